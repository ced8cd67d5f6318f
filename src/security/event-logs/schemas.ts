// DDoS notifier event logs: the list record (`ClientView`), the detail record with the seven attack_*
// arrays, the list query, and the control-API input used to seed records.
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';

export const ALERT_TYPES = ['ddos_alert', 'rtbh_alert'] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

/** Columns a list may be ordered by, ascending or (with `-`) descending. */
export const ORDER_FIELDS = ['attack_start_time', 'attack_power_bps', 'attack_power_pps', 'number_of_ip_involved_in_attack', 'alert_type'] as const;
export type OrderField = (typeof ORDER_FIELDS)[number];
export const ORDERINGS = ORDER_FIELDS.flatMap((f) => [f, `-${f}`]) as `${'' | '-'}${OrderField}`[];

/** The seven arrays of the detail record; their items are free-form objects in the provider's API. */
export const ATTACK_ARRAYS = [
  'attack_traffic',
  'attack_packet_sizes',
  'attack_top_source_countries',
  'attack_top_source_ips',
  'attack_top_source_ports',
  'attack_top_destination_ports',
  'attack_top_protocols',
] as const;
export type AttackArrayName = (typeof ATTACK_ARRAYS)[number];
export type AttackItem = Record<string, unknown>;
export type AttackArrays = Record<AttackArrayName, AttackItem[] | null>;

const AttackItemSchema = Type.Object({}, { additionalProperties: true, description: 'One entry of an attack breakdown' });
const AttackListSchema = (description: string) => Nullable(Type.Array(AttackItemSchema), { description });

const summaryFields = {
  id: Type.String({ format: 'uuid', description: 'Event log ID' }),
  alert_type: Nullable(StringEnum(ALERT_TYPES)),
  client_id: Nullable(Type.Integer()),
  notification_type: Nullable(Type.String()),
  attack_start_time: Nullable(Type.String({ format: 'date-time' })),
  attack_power_bps: Nullable(Type.Number({ description: 'Peak attack traffic, bits per second' })),
  attack_power_pps: Nullable(Type.Number({ description: 'Peak attack traffic, packets per second' })),
  number_of_ip_involved_in_attack: Nullable(Type.Integer()),
  targeted_ip_addresses: Nullable(Type.String({ description: 'Attacked addresses, comma-separated when several' })),
};

export const EventLogSummarySchema = Type.Object(summaryFields, { description: 'DDoS event log record (list view)' });
export type EventLogSummary = Static<typeof EventLogSummarySchema>;

export const EventLogDetailSchema = Type.Object(
  {
    ...summaryFields,
    attack_traffic: AttackListSchema('Attack traffic over time: {time, bps, pps} per interval'),
    attack_packet_sizes: AttackListSchema('Packet-size distribution: {size_from, size_to, percent, pps}'),
    attack_top_source_countries: AttackListSchema('Top source countries: {country, percent, bps, pps}'),
    attack_top_source_ips: AttackListSchema('Top source addresses: {ip, country, percent, bps, pps}'),
    attack_top_source_ports: AttackListSchema('Top source ports: {port, percent, pps}'),
    attack_top_destination_ports: AttackListSchema('Top destination ports: {port, percent, pps}'),
    attack_top_protocols: AttackListSchema('Protocols: {protocol, percent, bps, pps}'),
  },
  { description: 'DDoS event log record with the attack breakdown' },
);
export type EventLogDetail = Static<typeof EventLogDetailSchema>;

export const EventLogPageSchema = Type.Object(
  {
    count: Type.Integer({ minimum: 0 }),
    limit: Type.Integer({ minimum: 1 }),
    offset: Type.Integer({ minimum: 0 }),
    results: Type.Array(EventLogSummarySchema),
  },
  { description: 'One page of event logs; count is the total over all pages' },
);
export type EventLogPage = Static<typeof EventLogPageSchema>;

export const EventLogListQuerySchema = Type.Object({
  date_from: Type.Optional(Type.String({ description: 'Earliest attack start: ISO 8601 date-time or date (default: one year before now)' })),
  date_to: Type.Optional(Type.String({ description: 'Latest attack start: ISO 8601 date-time, or a date meaning that whole day (default: now)' })),
  alert_type: Type.Optional(StringEnum(ALERT_TYPES)),
  targeted_ip_addresses: Type.Optional(Type.String({ minLength: 1, description: 'Only records targeting this address (or exactly this list)' })),
  ordering: StringEnum(ORDERINGS, { default: 'attack_start_time', description: 'Sort field; a leading - sorts descending' }),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 10, description: 'Page size, at most 500' }),
  offset: Type.Integer({ minimum: 0, default: 0, description: 'Number of records to skip' }),
});
export type EventLogListQuery = Static<typeof EventLogListQuerySchema>;

export const EventLogParamsSchema = Type.Object({ event_log_id: Type.String({ format: 'uuid', description: 'Event log ID (UUID)' }) });

const NullableNumber = Type.Optional(Nullable(Type.Number({ minimum: 0 })));
const AttackInput = Type.Optional(Nullable(Type.Array(AttackItemSchema)));

/** A record as the operator seeds it; the id is generated when absent. */
export const EventLogInputSchema = Type.Object(
  {
    id: Type.Optional(Type.String({ format: 'uuid' })),
    client_id: Type.Integer({ minimum: 1 }),
    alert_type: Type.Optional(Nullable(StringEnum(ALERT_TYPES))),
    notification_type: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    attack_start_time: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
    attack_power_bps: NullableNumber,
    attack_power_pps: NullableNumber,
    number_of_ip_involved_in_attack: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
    targeted_ip_addresses: Type.Optional(Nullable(Type.String({ maxLength: 4000 }))),
    attack_traffic: AttackInput,
    attack_packet_sizes: AttackInput,
    attack_top_source_countries: AttackInput,
    attack_top_source_ips: AttackInput,
    attack_top_source_ports: AttackInput,
    attack_top_destination_ports: AttackInput,
    attack_top_protocols: AttackInput,
  },
  { additionalProperties: false },
);
export type EventLogInput = Static<typeof EventLogInputSchema>;

export const EventLogBulkSchema = Type.Object({ records: Type.Array(EventLogInputSchema, { minItems: 1, maxItems: 10000 }) }, { additionalProperties: false });
export type EventLogBulk = Static<typeof EventLogBulkSchema>;

export const GenerateSchema = Type.Object(
  {
    client_id: Type.Integer({ minimum: 1 }),
    count: Type.Integer({ minimum: 1, maximum: 100000, default: 50 }),
    seed: Type.Integer({ default: 1, description: 'Same seed, client and end give the same records' }),
    end: Type.Optional(Type.String({ format: 'date-time', description: 'Latest attack start (default: now)' })),
    days: Type.Integer({ minimum: 1, maximum: 3650, default: 30, description: 'Attacks start within this many days before end' }),
  },
  { additionalProperties: false },
);
export type GenerateRequest = Static<typeof GenerateSchema>;

export const CreatedSchema = Type.Object({ created: Type.Integer(), ids: Type.Array(Type.String()) });
