// The migrated SQLite schema keeps SQLite's statements prepared once. A partial index makes SQLite
// prepare again, at every run, each statement that compares a column of the index's WHERE with a bound
// value (the index may serve some values and not others): every cloud resource read did so while
// cloud_resources had indexes `where kind = ...` (migration 017).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type Migrator, sql } from 'kysely';
import { migrations } from '../../migrations/index.js';
import { openAndMigrate } from '../../src/server.js';
import { type Database, openDatabase } from '../../src/platform/db/index.js';
import { createMigrator, migrateToLatest } from '../../src/platform/db/migrate.js';

/**
 * The partial indexes SQLite may have, each with why no query binds a value for its WHERE's columns. A new
 * partial index belongs here only if every query comparing those columns writes its value as a literal.
 */
const PARTIAL_INDEXES: Record<string, string> = {
  // One default project per client; the default project's read writes `is_default = 1` (projects/store.ts).
  cloud_projects_one_default: 'is_default',
};

let db: Database;
beforeAll(async () => {
  db = await openAndMigrate(loadConfig({}, { memory: true }));
});
afterAll(async () => {
  await db.close();
});

function planOf(text: string, ...values: unknown[]): string {
  const steps = db.raw.sqlite!.prepare(`explain query plan ${text}`).all(...values) as { detail: string }[];
  return steps.map((step) => step.detail).join('; ');
}

describe('the SQLite schema', () => {
  it('has no partial index but those whose columns are never compared with a bound value', () => {
    // Every index SQLite holds with a WHERE (written on any line, in any case); automatic indexes have no SQL.
    const partial = (
      db.raw.sqlite!.prepare(`select name, sql from sqlite_master where type = 'index' and sql is not null`).all() as { name: string; sql: string }[]
    ).filter((index) => /\bwhere\b/i.test(index.sql));
    expect(Object.fromEntries(partial.map((index) => [index.name, PARTIAL_INDEXES[index.name] ?? `not listed: ${index.sql}`]))).toEqual(PARTIAL_INDEXES);
  });

  it('answers the cloud resource reads that compare the kind from the indexes the partial ones were', () => {
    expect(
      planOf(
        `select json_extract(attrs, '$.host') as host, sum(vcpus) from cloud_resources where client_id = ? and region_id = ? and kind = ?
         and id <> ? and json_extract(attrs, '$.host') <> '' group by json_extract(attrs, '$.host')`,
        1,
        76,
        'instance',
        'x',
      ),
    ).toContain('USING INDEX cloud_resources_hosts (client_id=? AND region_id=? AND kind=?)');
    expect(
      planOf(`select * from cloud_resources where client_id = ? and project_id = ? and region_id = ? and kind = ? and id = ?`, 1, 1, 76, 'network', 'x'),
    ).toMatch(/USING INDEX (sqlite_autoindex_cloud_resources_1|cloud_resources_scope)/);
  });
});

/** Runs `body` on a new in-memory database migrated up to `version` (included), then closes it. */
async function atVersion(version: string, body: (db: Database, migrator: Migrator) => Promise<void>): Promise<void> {
  const db = await openDatabase({ memory: true, dataDir: '' });
  try {
    const migrator = await createMigrator(db, migrations);
    expect((await migrator.migrateTo(version)).error).toBeUndefined();
    await body(db, migrator);
  } finally {
    await db.close();
  }
}

describe('migration 017 on a database of the version before', () => {
  it('names the rows whose attributes are not JSON instead of failing on them unexplained, and changes nothing', async () => {
    await atVersion('016_cloud_resources_hot', async (old) => {
      await sql`insert into cloud_resources (id, kind, client_id, project_id, region_id, name, status, attrs, created_at, updated_at)
        values ('net-bad-attrs', 'network', 1, 1, 76, 'imported', 'active', '{not json', 1, 1)`.execute(old.kysely);
      await expect(migrateToLatest(old, migrations)).rejects.toThrow(/017_sqlite_whole_kind_indexes.*net-bad-attrs.*delete or fix them/);
      const indexes = await sql<{ sql: string }>`select sql from sqlite_master where name = 'cloud_resources_hosts'`.execute(old.kysely);
      expect(indexes.rows[0].sql).toMatch(/where kind = 'instance'/);
      await sql`update cloud_resources set attrs = '{}' where id = 'net-bad-attrs'`.execute(old.kysely);
      await migrateToLatest(old, migrations);
      const after = await sql<{ sql: string }>`select sql from sqlite_master where name = 'cloud_resources_hosts'`.execute(old.kysely);
      expect(after.rows[0].sql).not.toMatch(/where/i);
    });
  });
});

describe('migration 018 on a database of the version before', () => {
  it('counts the public addresses already there, and going down gives back the count index and triggers of 017', async () => {
    await atVersion('017_sqlite_whole_kind_indexes', async (old, migrator) => {
      const port = (id: string, ready: number, parent: string | null) =>
        sql`insert into cloud_resources (id, kind, client_id, project_id, region_id, name, status, attrs, parent_id, ready, created_at, updated_at)
          values (${id}, 'port', 1, 1, 76, ${id}, 'ACTIVE', '{}', ${parent}, ${ready}, 1, 1)`.execute(old.kysely);
      await port('public-ready', 1, null);
      await port('private-ready', 1, 'net-1');
      await port('public-creating', 0, null);
      await migrateToLatest(old, migrations);
      const usage = async () =>
        (await sql<{ n: number; public_ports: number }>`select n, public_ports from cloud_usage where kind = 'port'`.execute(old.kysely)).rows;
      expect(await usage()).toEqual([{ n: 2, public_ports: 1 }]);
      // The triggers keep it from here: a port made ready, a public one given a network.
      await sql`update cloud_resources set ready = 1 where id = 'public-creating'`.execute(old.kysely);
      await sql`update cloud_resources set parent_id = 'net-1' where id = 'public-ready'`.execute(old.kysely);
      expect(await usage()).toEqual([{ n: 3, public_ports: 1 }]);

      expect((await migrator.migrateTo('017_sqlite_whole_kind_indexes')).error).toBeUndefined();
      const columns = await sql<{ name: string }>`select name from pragma_table_info('cloud_usage')`.execute(old.kysely);
      expect(columns.rows.map((c) => c.name)).not.toContain('public_ports');
      const index = await sql<{ sql: string }>`select sql from sqlite_master where name = 'cloud_resources_ports'`.execute(old.kysely);
      expect(index.rows[0].sql).toMatch(/\(client_id, region_id, kind, parent_id\)/);
      await sql`delete from cloud_resources where id = 'private-ready'`.execute(old.kysely);
      expect((await sql<{ n: number }>`select n from cloud_usage where kind = 'port'`.execute(old.kysely)).rows).toEqual([{ n: 2 }]);
    });
  });
});
