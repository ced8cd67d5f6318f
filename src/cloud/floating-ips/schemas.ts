import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { LIMITS, pageQuery, TagsInput, TagsPatch, Text, Uuid, regionalRecordFields } from '../common/schemas.js';

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

export const FloatingIpCreateBody = Type.Object({
  port_id: Type.Optional(Nullable(Uuid())),
  fixed_ip_address: Type.Optional(Nullable(Type.String({ format: 'ipv4', maxLength: 15 }))),
  tags: Type.Optional(TagsInput),
});
export const AssignBody = Type.Object({ port_id: Uuid(), fixed_ip_address: Type.Optional(Nullable(Type.String({ maxLength: 45 }))) });

export const FloatingIpUpdateBody = Type.Object({
  port_id: Type.Optional(Nullable(Uuid({ description: 'Assign to this instance port; null: unassign' }))),
  fixed_ip_address: Type.Optional(Nullable(Type.String({ format: 'ipv4', maxLength: 15 }))),
  tags: Type.Optional(TagsPatch),
});
export const FloatingIpTagsBody = Type.Object({ tags: Type.Optional(TagsPatch) });

export const FloatingIpListQuery = Type.Object({
  ...pageQuery(),
  status: Type.Optional(StringEnum(['ACTIVE', 'DOWN', 'ERROR'])),
  port_ids: Type.Optional(Type.Array(Uuid(), { maxItems: LIMITS.items })),
  tag_key: Type.Optional(Type.Array(Text(255, { minLength: 1 }), { maxItems: LIMITS.tags })),
  tag_key_value: Type.Optional(Text(4096)),
});
