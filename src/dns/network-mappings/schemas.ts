// Request and response schemas of the network mapping operations.
import { type Static, Type } from 'typebox';
import { StringEnum } from '../../platform/schema.js';
import { MAPPING_LIMITS as LIMITS } from './limits.js';

const Strings = (description: string, maxItems: number) => Type.Array(Type.String({ maxLength: LIMITS.text }), { maxItems, description });

export const MappingEntry = Type.Object({
  tags: Type.Optional(Strings('Tags given to the networks of this entry', LIMITS.tags)),
  cidr4: Type.Optional(Strings('IPv4 networks, CIDR form (192.0.2.0/24)', LIMITS.networks)),
  cidr6: Type.Optional(Strings('IPv6 networks, CIDR form (2001:db8::/48)', LIMITS.networks)),
});

export const MappingBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: LIMITS.text, description: 'Name, unique per client (required to create)' })),
  mapping: Type.Optional(Type.Array(MappingEntry, { maxItems: LIMITS.entries })),
});
export type MappingInput = Static<typeof MappingBody>;

const EntryOut = Type.Object({ tags: Type.Array(Type.String()), cidr4: Type.Array(Type.String()), cidr6: Type.Array(Type.String()) });
export type MappingEntryOut = Static<typeof EntryOut>;

export const MappingSchema = Type.Object({ id: Type.Integer(), name: Type.String(), mapping: Type.Array(EntryOut) });
export type MappingOut = Static<typeof MappingSchema>;

export const MappingList = Type.Object({ network_mappings: Type.Array(MappingSchema), total_amount: Type.Integer() });

export const MAPPING_ORDER_FIELDS = ['name', 'id'] as const;

export const MappingListQuery = Type.Object({
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 0, description: '0 or absent: every mapping' })),
  order_by: Type.Optional(StringEnum(MAPPING_ORDER_FIELDS, { description: 'Sort field (default id)' })),
  order_direction: Type.Optional(StringEnum(['asc', 'desc'] as const)),
});
export type MappingListFilter = Static<typeof MappingListQuery>;

export const IdParams = Type.Object({ id: Type.Integer({ minimum: 0, description: 'Network mapping id' }) });
export const NameParams = Type.Object({ name: Type.String({ maxLength: 255, description: 'Network mapping name' }) });
