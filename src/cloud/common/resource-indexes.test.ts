// A create task's finishing write to its resource row changes columns no index of cloud_resources holds
// (migration 016), so PostgreSQL makes it a heap-only update, writing no index entry: a new index on one
// of these columns would bring back a write of every index on every create.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engineName, type TestApp } from '../../../tests/support/app.js';
import { newRow, ResourceStore } from './resource-store.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

/** What createTask (task-plans.ts) writes when a resource is made. */
const FINISHING_COLUMNS = ['status', 'ready', 'task_id', 'updated_at'];

async function indexDefinitions(): Promise<string[]> {
  const db = t.db.kysely;
  const { rows } =
    t.db.engine === 'postgres'
      ? await sql<{ definition: string }>`select indexdef as definition from pg_indexes
          where tablename = 'cloud_resources' and schemaname = current_schema()`.execute(db)
      : await sql<{ definition: string }>`select sql as definition from sqlite_master
          where type = 'index' and tbl_name = 'cloud_resources' and sql is not null`.execute(db);
  return rows.map((r) => r.definition);
}

describe(`cloud_resources' indexes (${engineName})`, () => {
  it('hold none of the columns a create task finishes with, in their columns, expressions or predicates', async () => {
    const definitions = await indexDefinitions();
    expect(definitions.length).toBeGreaterThan(3);
    for (const definition of definitions) for (const column of FINISHING_COLUMNS) expect(definition).not.toMatch(new RegExp(`\\b${column}\\b`));
  });

  it.skipIf(engineName !== 'postgres')('make that write a heap-only update on PostgreSQL', async () => {
    const hot = await t.db.kysely.transaction().execute(async (trx) => {
      const store = new ResourceStore(trx);
      const scope = { clientId: 1, projectId: 1, regionId: 76 };
      await store.insert(newRow(scope, 'network', 'hot-check', 'hot-check', 'creating', 'task-hot', {}, 1));
      await store.update('hot-check', { status: 'active', ready: 1, task_id: null, updated_at: 2 });
      const { rows } = await sql<{ updated: number; hot: number }>`select
          pg_stat_get_xact_tuples_updated('cloud_resources'::regclass) as updated,
          pg_stat_get_xact_tuples_hot_updated('cloud_resources'::regclass) as hot`.execute(trx);
      return rows[0];
    });
    expect(Number(hot.updated)).toBe(1);
    expect(Number(hot.hot)).toBe(1);
  });
});
