import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { TagsInput, regionalRecordFields } from '../common/schemas.js';
import { InstanceSchema } from '../instances/schemas.js';

export const FloatingIpSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    floating_ip_address: Nullable(Type.String()),
    fixed_ip_address: Nullable(Type.String()),
    port_id: Nullable(Type.String({ format: 'uuid' })),
    router_id: Nullable(Type.String({ format: 'uuid' })),
    status: Nullable(StringEnum(['ACTIVE', 'DOWN', 'ERROR'])),
    ...regionalRecordFields,
    updated_at: Type.String({ format: 'date-time' }),
  },
  { description: 'A public floating IP address' },
);

export const FloatingIpCreateBody = Type.Object(
  { port_id: Type.Optional(Nullable(Type.String({ format: 'uuid' }))), fixed_ip_address: Type.Optional(Nullable(Type.String({ format: 'ipv4' }))), tags: Type.Optional(TagsInput) },
  { additionalProperties: false },
);
export const AssignBody = Type.Object({ port_id: Type.String({ format: 'uuid' }), fixed_ip_address: Type.Optional(Nullable(Type.String({ format: 'ipv4' }))) }, { additionalProperties: false });

export const FloatingIpListQuery = Type.Object({
  limit: Type.Integer({ minimum: 0, maximum: 1000, default: 1000 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  status: Type.Optional(StringEnum(['ACTIVE', 'DOWN', 'ERROR'])),
});

/** List items also carry the instance the address points at (null when unassigned). */
export const FloatingIpListItem = Type.Object(
  { ...FloatingIpSchema.properties, instance: Nullable(InstanceSchema), loadbalancer: Type.Null() },
  { description: 'A floating IP with the instance it is assigned to' },
);
