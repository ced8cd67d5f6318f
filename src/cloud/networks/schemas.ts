import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { LIMITS, pageQuery, ResourceName, TagSchema, TagsInput, TagsPatch, Text } from '../common/schemas.js';

export const NetworkSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    type: Type.String({ description: 'vlan or vxlan' }),
    mtu: Type.Integer(),
    segmentation_id: Nullable(Type.Integer()),
    external: Type.Boolean(),
    shared: Type.Boolean(),
    default: Nullable(Type.Boolean()),
    port_security_enabled: Type.Boolean(),
    subnets: Type.Array(Type.String({ format: 'uuid' })),
    tags: Type.Array(TagSchema),
    project_id: Nullable(Type.Integer()),
    region_id: Type.Integer(),
    region: Type.String(),
    creator_task_id: Nullable(Type.String()),
    task_id: Nullable(Type.String({ description: 'The task working on the network right now (creating, deleting), else null' })),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { description: 'A private network' },
);

export const NetworkCreateBody = Type.Object({
  name: ResourceName(),
  create_router: Type.Boolean({ default: true }),
  type: StringEnum(['vlan', 'vxlan'], { default: 'vxlan' }),
  tags: Type.Optional(TagsInput),
});

export const NetworkUpdateBody = Type.Object({ name: Type.Optional(ResourceName()), tags: Type.Optional(TagsPatch) });

export const NetworkListQuery = Type.Object({
  ...pageQuery(),
  name: Type.Optional(Type.String({ maxLength: 61 })),
  external: Type.Optional(Type.Boolean()),
  network_type: Type.Optional(StringEnum(['vlan', 'vxlan'])),
  owned_by: Type.Optional(StringEnum(['any', 'project'])),
  order_by: Type.Optional(StringEnum(['created_at.asc', 'created_at.desc', 'name.asc', 'name.desc', 'priority.desc'])),
  tag_key: Type.Optional(Type.Array(Text(255, { minLength: 1 }), { maxItems: LIMITS.tags })),
  tag_key_value: Type.Optional(Text(4096)),
});
