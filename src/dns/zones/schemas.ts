// Request and response schemas of the zone operations, field names as the reference spells them. Bodies
// accept fields they do not know (the reference does not close its objects); they are ignored.
import { type Static, Type } from 'typebox';
import { StringEnum } from '../../platform/schema.js';
import { MAX_NAME_INPUT } from '../common/names.js';

const U32 = 4_294_967_295;
const TTL_MAX = 2_147_483_647;

const Meta = Type.Object({}, { additionalProperties: true, description: 'Free JSON data kept with the zone (at most 16 KiB)' });
const Seconds = (description: string, maximum = U32) => Type.Integer({ minimum: 0, maximum, description });

export const ZoneBody = Type.Object({
  name: Type.String({ maxLength: MAX_NAME_INPUT, description: 'Zone name, e.g. example.com (normalised to lower case, no trailing dot)' }),
  contact: Type.Optional(Type.String({ maxLength: 255, description: "Email of the zone's administrator (the SOA mailbox)" })),
  enabled: Type.Optional(Type.Boolean({ description: 'Whether the zone answers queries (default true)' })),
  primary_server: Type.Optional(Type.String({ maxLength: MAX_NAME_INPUT, description: 'Primary name server named in the SOA record' })),
  refresh: Type.Optional(Seconds('SOA refresh, seconds')),
  retry: Type.Optional(Seconds('SOA retry, seconds')),
  expiry: Type.Optional(Seconds('SOA expire, seconds')),
  nx_ttl: Type.Optional(Seconds('SOA minimum: how long resolvers cache a negative answer, seconds', TTL_MAX)),
  serial: Type.Optional(Seconds('Starting serial (the server bumps it on every change)')),
  meta: Type.Optional(Meta),
});
export type ZoneInput = Static<typeof ZoneBody>;

export const ZoneParams = Type.Object({ name: Type.String({ maxLength: MAX_NAME_INPUT, description: 'Zone name' }) });

const Int = Type.Integer();
const Ids = (description: string) => Type.Array(Type.Integer({ minimum: 0 }), { maxItems: 1000, description });

export const ZONE_ORDER_FIELDS = ['name', 'id', 'serial', 'enabled', 'status', 'created_at', 'updated_at'] as const;

export const ZoneListQuery = Type.Object({
  offset: Type.Optional(Type.Integer({ minimum: 0, description: 'Zones to skip' })),
  limit: Type.Optional(Type.Integer({ minimum: 0, description: 'Page size; 0 or absent: every zone' })),
  order_by: Type.Optional(StringEnum(ZONE_ORDER_FIELDS, { description: 'Sort field (default name)' })),
  order_direction: Type.Optional(StringEnum(['asc', 'desc'] as const)),
  id: Type.Optional(Ids('Only these zone ids')),
  client_id: Type.Optional(Ids("Only these clients' zones (a client sees only its own)")),
  reseller_id: Type.Optional(Ids('Accepted; applies to reseller views, which this API does not offer')),
  iam_reseller_id: Type.Optional(Ids('Accepted; applies to reseller views, which this API does not offer')),
  name: Type.Optional(Type.Array(Type.String({ maxLength: MAX_NAME_INPUT }), { maxItems: 100, description: 'Zone names (substrings unless exact_match)' })),
  case_sensitive: Type.Optional(Type.Boolean()),
  exact_match: Type.Optional(Type.Boolean()),
  enabled: Type.Optional(Type.Boolean()),
  status: Type.Optional(Type.String({ maxLength: 64, description: 'active or disabled' })),
  dynamic: Type.Optional(Type.Boolean({ description: 'Zones with (true) or without (false) RRsets that have pickers' })),
  healthcheck: Type.Optional(Type.Boolean({ description: 'Zones with (true) or without (false) RRsets that have a health check' })),
  updated_at_from: Type.Optional(Type.String({ format: 'date-time' })),
  updated_at_to: Type.Optional(Type.String({ format: 'date-time' })),
});
export type ZoneListFilter = Static<typeof ZoneListQuery>;

const ShortRecord = Type.Object({
  name: Type.String(),
  type: Type.String(),
  ttl: Int,
  short_answers: Type.Array(Type.String(), { description: 'Each enabled record, as a zone file writes its data' }),
});

const RRsetsAmount = Type.Object({
  total: Int,
  static: Int,
  dynamic: Type.Object({ total: Int, healthcheck: Int }),
});

const zoneFields = {
  id: Int,
  client_id: Int,
  name: Type.String(),
  contact: Type.String(),
  primary_server: Type.String(),
  refresh: Int,
  retry: Int,
  expiry: Int,
  nx_ttl: Int,
  serial: Int,
  enabled: Type.Boolean(),
  status: Type.String({ description: 'active (answers queries) or disabled' }),
  meta: Meta,
  dnssec_enabled: Type.Boolean(),
  dnssec_status: Type.String({ description: "'' (never enabled), pending, active, pending-disabled or disabled" }),
  dnssec_status_modified_on: Type.String({ description: "RFC 3339 time of the last dnssec_status change ('' when never)" }),
  rrsets_amount: RRsetsAmount,
};

export const ZoneSchema = Type.Object({ ...zoneFields, records: Type.Optional(Type.Array(ShortRecord)) });
/** One zone as its GET answers it: the reference declares `client_id` in the list's items only. */
export const ZoneDetailSchema = Type.Omit(ZoneSchema, ['client_id']);
export type Zone = Static<typeof ZoneSchema>;
export type ShortRecordOut = Static<typeof ShortRecord>;

export const ZoneList = Type.Object({ zones: Type.Array(ZoneSchema), total_amount: Int });

export const CreateZoneResult = Type.Object({ id: Int, warnings: Type.Array(Type.String()) });

/** The empty object several operations answer. */
export const Empty = Type.Object({}, { additionalProperties: false });
