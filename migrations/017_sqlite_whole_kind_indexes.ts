// SQLite only: the two partial indexes of cloud_resources (`where kind = 'instance'`, migration 015, and
// `where kind = 'port'`, migration 016) become whole indexes with the kind as a key column. When a query
// compares a column that a partial index's WHERE names with a bound value (`kind = ?`), SQLite can use the
// index only for some values, so it prepares the statement again every time a value is bound: every read
// of a resource (`where client_id = ? ... and kind = ?`) was compiled anew at every run, 10-12 us each on a
// 2-core machine, several times a request. With the kind a key column, the same queries use the same
// indexes and are prepared once. PostgreSQL plans partial indexes without that cost; its indexes stay.
// `tests/foundation/sqlite-schema.test.ts` fails when a partial index appears on SQLite outside its short list.
import { type Kysely, type Migration, sql } from 'kysely';
import type { Engine } from '../src/platform/db/index.js';

export function sqliteWholeKindIndexes(engine: Engine): Migration {
  return {
    async up(db: Kysely<any>) {
      if (engine !== 'sqlite') return;
      // The whole index reads every row's attributes as JSON. Only a state import of an earlier version
      // could have stored attributes that are not JSON (on rows other than instances); such a row could
      // not be read either. Named here, instead of SQLite's bare "malformed JSON".
      const { rows } = await sql<{ id: string }>`select id from cloud_resources where not json_valid(attrs) limit 5`.execute(db);
      if (rows.length > 0)
        throw new Error(
          `migration 017: cloud_resources rows whose attrs are not JSON (${rows.map((r) => r.id).join(', ')}); delete or fix them, then start again`,
        );
      await sql`drop index cloud_resources_hosts`.execute(db);
      await sql`drop index cloud_resources_ports`.execute(db);
      await sql`create index cloud_resources_hosts on cloud_resources (client_id, region_id, kind, (json_extract(attrs, '$.host')), vcpus, id)`.execute(db);
      await sql`create index cloud_resources_ports on cloud_resources (client_id, region_id, kind, parent_id)`.execute(db);
    },
    async down(db: Kysely<any>) {
      if (engine !== 'sqlite') return;
      await sql`drop index cloud_resources_hosts`.execute(db);
      await sql`drop index cloud_resources_ports`.execute(db);
      await sql`create index cloud_resources_hosts on cloud_resources (client_id, region_id, (json_extract(attrs, '$.host')), vcpus, id)
        where kind = 'instance'`.execute(db);
      await sql`create index cloud_resources_ports on cloud_resources (client_id, region_id, parent_id) where kind = 'port'`.execute(db);
    },
  };
}
