// Every table is accounted for in one-client snapshots: its rows belong to a client directly (client_id),
// through a parent row (OWNED_THROUGH), or to nobody (SHARED_TABLES, with the reason). A new table that is
// none of these fails here, instead of being silently left out of one-client export, import and reset.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engineName, type TestApp } from '../../../tests/support/app.js';
import { listTables, OWNED_THROUGH, SHARED_TABLES } from './tables.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe(`ownership of every table (${engineName})`, () => {
  it('is derived for every table: by client_id, through a parent, or declared shared', async () => {
    const tables = await listTables(t.db.kysely, t.db.engine);
    const names = new Set(tables.map((table) => table.name));
    const uncovered = tables
      .filter((table) => table.name !== 'clients' && !table.columns.includes('client_id') && !(table.name in OWNED_THROUGH) && !(table.name in SHARED_TABLES))
      .map((table) => table.name);
    expect(uncovered).toEqual([]);
    for (const [child, { parent, key }] of Object.entries(OWNED_THROUGH)) {
      const info = tables.find((table) => table.name === child)!;
      const parentInfo = tables.find((table) => table.name === parent)!;
      expect(info.columns, child).toContain(key);
      expect(parentInfo.columns, parent).toEqual(expect.arrayContaining([key, 'client_id']));
    }
    for (const shared of Object.keys(SHARED_TABLES)) expect(names.has(shared), shared).toBe(true);
  });

  it('every table has a primary key, so exports page through it', async () => {
    const tables = await listTables(t.db.kysely, t.db.engine);
    expect(tables.filter((table) => table.primaryKey.length === 0).map((table) => table.name)).toEqual([]);
  });
});
