import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { pageQuery, ResourceName, Text } from '../common/schemas.js';

export const ProjectSchema = Type.Object(
  {
    id: Type.Integer(),
    client_id: Type.Integer(),
    name: Type.String(),
    description: Nullable(Type.String({ maxLength: 255 })),
    is_default: Type.Boolean({ description: 'Every client has exactly one default project' }),
    state: Type.String({ description: 'ACTIVE, DELETING or DELETED' }),
    task_id: Nullable(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
    deleted_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { description: 'A project: the container of cloud resources' },
);

export const ProjectCreateBody = Type.Object({
  name: ResourceName(),
  description: Type.Optional(Nullable(Text(255))),
});

export const ProjectUpdateBody = Type.Object({
  name: Type.Optional(ResourceName()),
  description: Type.Optional(Nullable(Text(255))),
});

export const ProjectListQuery = Type.Object({
  ...pageQuery(),
  name: Type.Optional(Text()),
  include_deleted: Type.Boolean({ default: false }),
  order_by: Type.Optional(StringEnum(['created_at.asc', 'created_at.desc', 'name.asc', 'name.desc'])),
});

export const ProjectParams = Type.Object({ project_id: Type.Integer({ minimum: 1 }) });
