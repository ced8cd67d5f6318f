// The durable task queue (product-agnostic, used by the cloud product) and the cloud's own tables:
// projects, per-client quotas and one table for every simulated cloud resource.
import type { Kysely, Migration } from 'kysely';
import { EPOCH_MS, withSerialId } from '../src/platform/db/columns.js';
import type { Engine } from '../src/platform/db/index.js';

export function cloud(engine: Engine): Migration {
  return {
    async up(db: Kysely<any>) {
      // `id` is the queue order (serial); `task_id` is the public UUID.
      await withSerialId(db.schema.createTable('tasks'), engine)
        .addColumn('task_id', 'text', (c) => c.notNull().unique())
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('user_id', 'bigint', (c) => c.notNull())
        .addColumn('project_id', 'bigint')
        .addColumn('region_id', 'bigint')
        .addColumn('task_type', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('planned_failure', 'text')
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('created_resources', 'text')
        .addColumn('request_id', 'text')
        .addColumn('due_at', EPOCH_MS)
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until', EPOCH_MS)
        .addColumn('runner', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .addColumn('updated_at', EPOCH_MS, (c) => c.notNull())
        .addColumn('finished_at', EPOCH_MS)
        .addColumn('acknowledged_at', EPOCH_MS)
        .addColumn('acknowledged_by', 'bigint')
        .execute();
      await db.schema.createIndex('tasks_pending').on('tasks').columns(['state', 'due_at', 'id']).execute();
      await db.schema.createIndex('tasks_client').on('tasks').columns(['client_id', 'created_at']).execute();

      await withSerialId(db.schema.createTable('cloud_projects'), engine)
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('task_id', 'text')
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .addColumn('deleted_at', EPOCH_MS)
        .execute();
      await db.schema.createIndex('cloud_projects_client').on('cloud_projects').columns(['client_id', 'id']).execute();
      // At most one default project per client, even when two first requests race to create it.
      await db.schema
        .createIndex('cloud_projects_one_default')
        .on('cloud_projects')
        .columns(['client_id', 'is_default'])
        .unique()
        .where('is_default' as any, '=', 1)
        .execute();

      await db.schema
        .createTable('cloud_quotas')
        .addColumn('client_id', 'bigint', (c) => c.primaryKey())
        .addColumn('limits', 'text', (c) => c.notNull())
        .addColumn('updated_at', EPOCH_MS, (c) => c.notNull())
        .execute();

      // One table for every kind of resource (network, subnet, port, instance, volume, floatingip,
      // k8s_cluster): quotas, project deletion and dependency checks then read one place.
      await db.schema
        .createTable('cloud_resources')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('project_id', 'bigint', (c) => c.notNull())
        .addColumn('region_id', 'bigint', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('parent_id', 'text')
        .addColumn('owner_id', 'text')
        .addColumn('vcpus', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('ram_mb', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('size_gb', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('ready', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('creator_task_id', 'text')
        .addColumn('task_id', 'text')
        .addColumn('attrs', 'text', (c) => c.notNull())
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .addColumn('updated_at', EPOCH_MS, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('cloud_resources_scope')
        .on('cloud_resources')
        .columns(['client_id', 'project_id', 'region_id', 'kind', 'created_at'])
        .execute();
      // Covering index of the quota check, which runs in every create task: an index-only count.
      await db.schema
        .createIndex('cloud_resources_usage')
        .on('cloud_resources')
        .columns(['client_id', 'region_id', 'kind', 'ready', 'vcpus', 'ram_mb', 'size_gb'])
        .execute();
      await db.schema.createIndex('cloud_resources_parent').on('cloud_resources').columns(['parent_id']).execute();
      await db.schema.createIndex('cloud_resources_owner').on('cloud_resources').columns(['owner_id']).execute();
      await db.schema.createIndex('cloud_resources_creator').on('cloud_resources').columns(['creator_task_id']).execute();
    },
  };
}
