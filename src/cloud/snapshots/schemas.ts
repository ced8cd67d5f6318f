import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { pageQuery, ResourceName, TagSchema, TagsInput, TagsPatch, Text, Uuid } from '../common/schemas.js';

export const SnapshotSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    description: Nullable(Type.String()),
    volume_id: Type.String({ format: 'uuid' }),
    size: Type.Integer({ description: 'GiB: the size of the volume when the snapshot was taken' }),
    status: StringEnum(['available', 'backing-up', 'creating', 'deleted', 'deleting', 'error', 'error_deleting', 'restoring', 'unmanaging']),
    tags: Type.Array(TagSchema),
    project_id: Type.Integer(),
    region_id: Type.Integer(),
    region: Type.String(),
    creator_task_id: Type.String(),
    task_id: Nullable(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { description: 'A point-in-time copy of a volume' },
);

export const SnapshotCreateBody = Type.Object({
  name: ResourceName(),
  volume_id: Uuid(),
  description: Type.Optional(Text()),
  tags: Type.Optional(TagsInput),
});

export const SnapshotUpdateBody = Type.Object({ name: Type.Optional(ResourceName()), tags: Type.Optional(TagsPatch) });

export const SnapshotListQuery = Type.Object({
  ...pageQuery(),
  volume_id: Type.Optional(Text(36)),
  instance_id: Type.Optional(Text(36)),
  lifecycle_policy_id: Type.Optional(Type.Integer()),
  schedule_id: Type.Optional(Text(36)),
});
