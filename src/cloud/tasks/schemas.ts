import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';

/** Every key the reference names in `created_resources`; a task fills the ones it created. */
export const CREATED_RESOURCE_KEYS = [
  'ai_clusters',
  'api_keys',
  'caas_containers',
  'clusters',
  'ddos_profiles',
  'faas_functions',
  'faas_namespaces',
  'file_shares',
  'floatingips',
  'healthmonitors',
  'images',
  'inference_instances',
  'instances',
  'k8s_clusters',
  'k8s_pools',
  'l7polices',
  'l7rules',
  'laas_topic',
  'listeners',
  'loadbalancers',
  'members',
  'networks',
  'pools',
  'ports',
  'postgresql_clusters',
  'projects',
  'registry_registries',
  'registry_users',
  'routers',
  'secrets',
  'security_group_rules',
  'security_groups',
  'servergroups',
  'snapshots',
  'subnets',
  'volumes',
] as const;
const INTEGER_KEYS = new Set(['ddos_profiles', 'projects']);

export const CreatedResourcesSchema = Type.Object(
  Object.fromEntries(CREATED_RESOURCE_KEYS.map((k) => [k, Type.Array(INTEGER_KEYS.has(k) ? Type.Integer() : Type.String())])),
  { description: 'IDs of what the task created, per resource type; types it did not create are empty lists' },
);

const ISO_DATE_TIME = '^\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?)?(Z|[+-]\\d{2}:?\\d{2})?$';

export const TASK_STATE_VALUES = ['ERROR', 'FINISHED', 'NEW', 'RUNNING'] as const;

export const TaskSchema = Type.Object(
  {
    id: Type.String({ description: 'Task ID (UUID)' }),
    task_type: Type.String({ description: 'For example create_vm, delete_network, upgrade_k8s_cluster_v2' }),
    state: StringEnum(TASK_STATE_VALUES, { description: 'NEW -> RUNNING -> FINISHED or ERROR' }),
    error: Nullable(Type.String({ description: 'Why the task failed, when state is ERROR' })),
    created_on: Nullable(Type.String({ description: 'ISO 8601 without zone' })),
    updated_on: Nullable(Type.String()),
    finished_on: Nullable(Type.String()),
    created_resources: Nullable(CreatedResourcesSchema),
    data: Nullable(Type.Object({}, { additionalProperties: true })),
    detailed_state: Nullable(Type.String()),
    project_id: Nullable(Type.Integer()),
    region_id: Nullable(Type.Integer()),
    client_id: Nullable(Type.Integer()),
    user_id: Type.Integer(),
    user_client_id: Nullable(Type.Integer()),
    request_id: Nullable(Type.String()),
    acknowledged_at: Nullable(Type.String()),
    acknowledged_by: Nullable(Type.Integer()),
    job_id: Nullable(Type.String()),
    schedule_id: Nullable(Type.String()),
    lifecycle_policy_id: Nullable(Type.Integer()),
  },
  { description: 'An asynchronous cloud task' },
);

export const TaskListQuery = Type.Object({
  limit: Type.Integer({ minimum: 0, maximum: 1000, default: 10, description: 'Page size (default 10, at most 1000)' }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  project_id: Type.Optional(Type.Array(Type.Integer(), { description: 'Repeat the key for several projects' })),
  region_id: Type.Optional(Type.Array(Type.Integer())),
  state: Type.Optional(Type.Array(StringEnum(TASK_STATE_VALUES))),
  task_type: Type.Optional(Type.String({ maxLength: 64 })),
  // ISO 8601, with or without zone (the official client sends Python's isoformat(); no zone means UTC).
  from_timestamp: Type.Optional(Type.String({ pattern: ISO_DATE_TIME, maxLength: 40, description: 'Tasks created at or after' })),
  to_timestamp: Type.Optional(Type.String({ pattern: ISO_DATE_TIME, maxLength: 40, description: 'Tasks created at or before' })),
  is_acknowledged: Type.Optional(Type.Boolean()),
  order_by: Type.Optional(StringEnum(['asc', 'desc'], { description: 'By creation time' })),
  sorting: Type.Optional(StringEnum(['asc', 'desc'], { description: 'Deprecated alias of order_by' })),
});

export const AcknowledgeAllQuery = Type.Object({
  project_id: Type.Optional(Type.Integer()),
  region_id: Type.Optional(Type.Integer()),
});
