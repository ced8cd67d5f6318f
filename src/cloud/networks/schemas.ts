import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { TagSchema, TagsInput } from '../common/schemas.js';

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

export const NetworkCreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    create_router: Type.Boolean({ default: true }),
    type: StringEnum(['vlan', 'vxlan'], { default: 'vxlan' }),
    tags: Type.Optional(TagsInput),
  },
  { additionalProperties: false },
);

export const NetworkUpdateBody = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })), tags: Type.Optional(Nullable(TagsInput)) },
  { additionalProperties: false },
);

export const NetworkListQuery = Type.Object({
  limit: Type.Integer({ minimum: 0, maximum: 1000, default: 1000 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  name: Type.Optional(Type.String({ maxLength: 61 })),
  external: Type.Optional(Type.Boolean()),
  order_by: Type.Optional(StringEnum(['created_at.asc', 'created_at.desc', 'name.asc', 'name.desc'])),
});
