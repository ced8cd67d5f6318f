// Schemas shared by every cloud resource.
import { Type } from 'typebox';
import { Nullable } from '../../platform/schema.js';

export const ProjectRegionParams = Type.Object({
  project_id: Type.Integer({ minimum: 1, description: 'Project ID' }),
  region_id: Type.Integer({ minimum: 1, description: 'Region ID' }),
});

export const UuidParam = (name: string, description: string) =>
  Type.Object({
    project_id: Type.Integer({ minimum: 1, description: 'Project ID' }),
    region_id: Type.Integer({ minimum: 1, description: 'Region ID' }),
    [name]: Type.String({ format: 'uuid', description }),
  });

/** What every asynchronous call answers: the task to poll, and the ID of the resource it is about. */
export const TaskIdList = Type.Object(
  {
    tasks: Type.Array(Type.String(), { description: 'Tasks to poll at GET /cloud/v1/tasks/{task_id} until FINISHED or ERROR' }),
    id: Type.String({ description: 'ID of the resource the task is about' }),
  },
  { description: 'Task IDs of an asynchronous operation' },
);

export const TagSchema = Type.Object({ key: Type.String(), value: Type.String(), read_only: Type.Boolean() });

/** Fields every regional cloud record carries: where it lives and which tasks made and last changed it. */
export const regionalRecordFields = {
  tags: Type.Array(TagSchema),
  project_id: Type.Integer(),
  region_id: Type.Integer(),
  region: Type.String(),
  creator_task_id: Nullable(Type.String()),
  task_id: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
};

export const TagsInput = Type.Record(Type.String({ maxLength: 255 }), Type.String({ maxLength: 1024 }), {
  description: 'Key-value tags',
});

export const CLOUD_TAG = 'Cloud';
