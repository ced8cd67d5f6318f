// Request and response schemas of the RRset operations, field names as the reference spells them. Record
// content is an array of parts whose shape depends on the type; content.ts checks it.
import { type Static, Type } from 'typebox';
import { StringEnum } from '../../platform/schema.js';
import { MAX_NAME_INPUT } from '../common/names.js';
import { QUOTAS } from '../common/platform.js';

export const PICKER_TYPES = ['geodns', 'asn', 'country', 'continent', 'region', 'ip', 'geodistance', 'weighted_shuffle', 'default', 'first_n'] as const;
export type PickerType = (typeof PICKER_TYPES)[number];

const Meta = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const Picker = Type.Object({
  type: StringEnum(PICKER_TYPES, { description: 'Selector, filter or mutator applied to the records, in list order' }),
  limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, description: 'How many records pass (first_n); 0: no limit' })),
  strict: Type.Optional(Type.Boolean({ description: 'geodns: answer nothing (true) or every record (false) when none matches' })),
});
export type PickerInput = Static<typeof Picker>;

const Content = Type.Array(Type.Unknown(), { maxItems: 64, description: 'The record data in parts, e.g. ["192.0.2.1"], [10, "mail.example.com."]' });

const InputRecord = Type.Object({
  content: Content,
  enabled: Type.Optional(Type.Boolean({ description: 'A disabled record is kept but not answered (default true)' })),
  meta: Type.Optional(Meta('Data the pickers read: ip, asn, countries, continents, regions, latlong, weight, default, backup, notes')),
});

export const RRsetBody = Type.Object({
  ttl: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Time to live, seconds (default 300)' })),
  resource_records: Type.Array(InputRecord, { maxItems: QUOTAS.records, description: `The records of the set (1 to ${QUOTAS.records})` }),
  pickers: Type.Optional(Type.Array(Picker, { maxItems: 16 })),
  meta: Type.Optional(Meta('Data of the set: failover (health check), geodns_link')),
});
export type RRsetInput = Static<typeof RRsetBody>;

export const RRsetParams = Type.Object({
  zoneName: Type.String({ maxLength: MAX_NAME_INPUT, description: 'Zone name' }),
  rrsetName: Type.String({ maxLength: MAX_NAME_INPUT, description: 'Full owner name, e.g. www.example.com' }),
  rrsetType: Type.String({ maxLength: 16, description: 'Record type: A, AAAA, NS, CNAME, MX, TXT, SRV, PTR, SVCB, HTTPS, CAA, DS' }),
});
export type RRsetPath = Static<typeof RRsetParams>;

export const ZoneNameParams = Type.Object({ zoneName: Type.String({ maxLength: MAX_NAME_INPUT, description: 'Zone name' }) });

export const RRSET_ORDER_FIELDS = ['name', 'type', 'ttl', 'id', 'updated_at'] as const;

export const RRsetListQuery = Type.Object({
  offset: Type.Optional(Type.Integer({ minimum: 0, description: 'RRsets to skip' })),
  limit: Type.Optional(Type.Integer({ minimum: 0, description: 'Page size; 0 or absent: every RRset' })),
  order_by: Type.Optional(StringEnum(RRSET_ORDER_FIELDS, { description: 'Sort field (default name)' })),
  order_direction: Type.Optional(StringEnum(['asc', 'desc'] as const)),
});
export type RRsetListFilter = Static<typeof RRsetListQuery>;

const OutputRecord = Type.Object({
  id: Type.Integer(),
  content: Type.Array(Type.Unknown()),
  enabled: Type.Boolean(),
  meta: Meta('As sent'),
});

export const Warning = Type.Object({ key: Type.String(), message: Type.String() });

export const RRsetSchema = Type.Object({
  name: Type.String(),
  type: Type.String(),
  ttl: Type.Integer(),
  resource_records: Type.Array(OutputRecord),
  pickers: Type.Array(Picker),
  meta: Meta('As sent'),
  updated_at: Type.String({ format: 'date-time' }),
  warnings: Type.Array(Warning, { description: 'Side effects worth knowing about; the change was made' }),
});
export type RRsetOut = Static<typeof RRsetSchema>;

export const RRsetList = Type.Object({ rrsets: Type.Array(RRsetSchema), total_amount: Type.Integer() });

export const FailoverLogQuery = Type.Object({
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 0 })),
});

export const FailoverLog = Type.Object({
  log: Type.Array(Type.Object({ action: Type.String(), address: Type.String(), time: Type.Integer() })),
  total_amount: Type.Integer(),
});
