// A create task's last write to its resource row (status, ready, task_id, updated_at) touched every index
// of cloud_resources: `ready` was a column of the covering index the quota check counted with before
// migration 013 kept the usage in cloud_usage. That index is replaced by one for what still counts rows,
// the client's public addresses (ports without a parent, of one region), whose predicate names only the
// kind. No index then holds a column that write changes, so on PostgreSQL it can be a heap-only update
// (no index entries written), given room on the row's page: the table's pages are filled to 85% by
// inserts. On SQLite, an update only writes the indexes of the columns it changes; it now changes none.
import { type Kysely, type Migration, sql } from 'kysely';
import type { Engine } from '../src/platform/db/index.js';

export function cloudResourcesHot(engine: Engine): Migration {
  return {
    async up(db: Kysely<any>) {
      await sql`drop index cloud_resources_usage`.execute(db);
      await sql`create index cloud_resources_ports on cloud_resources (client_id, region_id, parent_id) where kind = 'port'`.execute(db);
      if (engine === 'postgres') await sql`alter table cloud_resources set (fillfactor = 85)`.execute(db);
    },
    async down(db: Kysely<any>) {
      if (engine === 'postgres') await sql`alter table cloud_resources reset (fillfactor)`.execute(db);
      await sql`drop index cloud_resources_ports`.execute(db);
      await db.schema
        .createIndex('cloud_resources_usage')
        .on('cloud_resources')
        .columns(['client_id', 'region_id', 'kind', 'ready', 'vcpus', 'ram_mb', 'size_gb'])
        .execute();
    },
  };
}
