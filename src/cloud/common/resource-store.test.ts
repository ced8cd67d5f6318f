// A row inserted in a transaction is read back from what was inserted, not asked of the database again
// (an instant create's task reads its row in the transaction that wrote it); any change a store makes
// forgets it, and outside a transaction nothing is kept.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engineName, type TestApp } from '../../../tests/support/app.js';
import { transactionEndingWith } from '../../platform/db/final-statement.js';
import { newRow, ResourceStore } from './resource-store.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const scope = { clientId: 1, projectId: 1, regionId: 76 };

/** Removes a row behind the stores' back: a read that still finds it did not ask the database. */
async function removeBehind(db: Kysely<any>, id: string): Promise<void> {
  await sql`delete from cloud_resources where id = ${id}`.execute(db);
}

describe(`ResourceStore.byId in a transaction (${engineName})`, () => {
  it('answers a row this transaction inserted with what was inserted, the same as the database holds', async () => {
    await t.db.kysely.transaction().execute(async (trx) => {
      const row = newRow(scope, 'network', 'kept-1', 'kept', 'creating', 'task-kept-1', { mtu: 1450 }, 7);
      await new ResourceStore(trx).insert(row);
      const stored = await trx.selectFrom('cloud_resources').selectAll().where('id', '=', 'kept-1').executeTakeFirstOrThrow();
      expect(stored).toEqual(row);
      await removeBehind(trx, 'kept-1');
      // Another store of the same transaction (as a task's is): the row as inserted, a copy each time.
      const read = await new ResourceStore(trx).byId('kept-1');
      expect(read).toEqual(row);
      read!.name = 'changed';
      expect((await new ResourceStore(trx).byId('kept-1'))!.name).toBe('kept');
    });
  });

  it('keeps them in the transactions the task engine runs (on PostgreSQL, begun on a connection scope)', async () => {
    const read = await transactionEndingWith(t.db, async (trx) => {
      const row = newRow(scope, 'network', 'kept-6', 'kept', 'creating', 'task-kept-6', {}, 7);
      await new ResourceStore(trx).insert(row);
      await removeBehind(trx, 'kept-6');
      return { value: await new ResourceStore(trx).byId('kept-6') };
    });
    expect(read).toMatchObject({ id: 'kept-6', status: 'creating' });
  });

  it("leaves an insert and an update for the end of the task engine's transaction, byId answering the row as it will be", async () => {
    const seen = await transactionEndingWith(t.db, async (trx) => {
      const store = new ResourceStore(trx);
      await store.insertAtEnd(newRow(scope, 'network', 'kept-7', 'kept', 'creating', 'task-kept-7', {}, 7));
      await store.updateAtEnd('kept-7', { status: 'active', ready: 1 });
      const inSql = await trx.selectFrom('cloud_resources').select('id').where('id', '=', 'kept-7').execute();
      return { value: { inSql: inSql.length, byId: await new ResourceStore(trx).byId('kept-7') } };
    });
    expect(seen.inSql).toBe(0);
    expect(seen.byId).toMatchObject({ status: 'active', ready: 1 });
    expect(await new ResourceStore(t.db.kysely).byId('kept-7')).toMatchObject({ status: 'active', ready: 1, name: 'kept' });
  });

  it('reads the database again once a store changed the row', async () => {
    await t.db.kysely.transaction().execute(async (trx) => {
      const store = new ResourceStore(trx);
      await store.insert(newRow(scope, 'network', 'kept-2', 'kept', 'creating', 'task-kept-2', {}, 7));
      await store.update('kept-2', { status: 'active', ready: 1 });
      expect(await new ResourceStore(trx).byId('kept-2')).toMatchObject({ status: 'active', ready: 1 });
      await store.insert(newRow(scope, 'network', 'kept-3', 'kept', 'creating', 'task-kept-3', {}, 7));
      await store.deleteCreatedBy('task-kept-3');
      expect(await store.byId('kept-3')).toBeUndefined();
    });
  });

  it('keeps nothing outside a transaction, nor from one to the next', async () => {
    const store = new ResourceStore(t.db.kysely);
    await store.insert(newRow(scope, 'network', 'kept-4', 'kept', 'creating', 'task-kept-4', {}, 7));
    await removeBehind(t.db.kysely, 'kept-4');
    expect(await store.byId('kept-4')).toBeUndefined();
    await t.db.kysely.transaction().execute(async (trx) => {
      await new ResourceStore(trx).insert(newRow(scope, 'network', 'kept-5', 'kept', 'creating', 'task-kept-5', {}, 7));
      await removeBehind(trx, 'kept-5');
    });
    await t.db.kysely.transaction().execute(async (trx) => {
      expect(await new ResourceStore(trx).byId('kept-5')).toBeUndefined();
    });
  });
});

describe(`ResourceStore reads compiled once (${engineName})`, () => {
  // Rows of client 40 (and one of client 41 in the same project number), made apart from the other tests'.
  const mine = { clientId: 40, projectId: 1, regionId: 76 };
  const names = (rows: { name: string }[]) => rows.map((r) => r.name);
  beforeAll(async () => {
    const store = new ResourceStore(t.db.kysely);
    const rows = [
      newRow(mine, 'network', 'r-net-b', 'net-b', 'active', 't-1', {}, 1_000),
      newRow(mine, 'network', 'r-net-a', 'net-a', 'active', 't-2', {}, 2_000),
      newRow(mine, 'network', 'r-net-c', 'net-c', 'deleting', 't-3', {}, 3_000),
      newRow(mine, 'subnet', 'r-sub-1', 'sub-1', 'active', 't-4', {}, 4_000, { parent_id: 'r-net-a' }),
      newRow(mine, 'subnet', 'r-sub-2', 'sub-2', 'active', 't-5', {}, 5_000, { parent_id: 'r-net-a' }),
      newRow(mine, 'port', 'r-port-1', 'port-1', 'active', 't-6', {}, 6_000, { parent_id: 'r-net-a', owner_id: 'r-owner' }),
      newRow({ ...mine, clientId: 41 }, 'network', 'r-other', 'net-a', 'active', 't-7', {}, 1_500),
    ];
    await store.insert(...rows);
  });

  it('reads one row by id in the caller scope only, whatever the kind asked', async () => {
    const store = new ResourceStore(t.db.kysely);
    expect((await store.get('network', mine, 'r-net-a'))?.name).toBe('net-a');
    expect(await store.get('subnet', mine, 'r-net-a')).toBeUndefined();
    expect(await store.get('network', { ...mine, clientId: 41 }, 'r-net-a')).toBeUndefined();
    expect((await store.get('network', { ...mine, clientId: 41 }, 'r-other'))?.client_id).toBe(41);
  });

  it('reads one row by name in the caller scope only, and by id alone', async () => {
    const store = new ResourceStore(t.db.kysely);
    expect((await store.getByName('network', mine, 'net-a'))?.id).toBe('r-net-a');
    expect((await store.getByName('network', { ...mine, clientId: 41 }, 'net-a'))?.id).toBe('r-other');
    expect(await store.getByName('subnet', mine, 'net-a')).toBeUndefined();
    expect(await store.getByName('network', mine, 'none')).toBeUndefined();
    expect((await store.byId('r-sub-2'))?.parent_id).toBe('r-net-a');
    expect(await store.byId('r-none')).toBeUndefined();
  });

  it('counts and lists by every filter shape, values changing between calls of one shape', async () => {
    const store = new ResourceStore(t.db.kysely);
    const page = { limit: 10, offset: 0 };
    expect(await store.count('network', mine)).toBe(3);
    expect(names(await store.list('network', mine, {}, page))).toEqual(['net-b', 'net-a', 'net-c']);
    expect(names(await store.list('network', mine, { orderBy: 'name.asc' }, page))).toEqual(['net-a', 'net-b', 'net-c']);
    expect(names(await store.list('network', mine, { orderBy: 'created_at.desc' }, { limit: 2, offset: 1 }))).toEqual(['net-a', 'net-b']);
    for (const [name, n] of [
      ['net-a', 1],
      ['net-b', 1],
      ['none', 0],
    ] as const) {
      expect(await store.count('network', mine, { name })).toBe(n);
      expect(names(await store.list('network', mine, { name }, page))).toEqual(n ? [name] : []);
    }
    expect(names(await store.list('network', mine, { status: 'deleting' }, page))).toEqual(['net-c']);
    expect(await store.count('network', mine, { status: 'active', name: 'net-b' })).toBe(1);
    expect(await store.count('network', mine, { status: 'deleting', name: 'net-b' })).toBe(0);
    expect(names(await store.list('subnet', mine, { parentId: 'r-net-a' }, page))).toEqual(['sub-1', 'sub-2']);
    expect(await store.count('subnet', mine, { parentId: 'r-net-b' })).toBe(0);
    expect(await store.count('port', mine, { ownerId: 'r-owner' })).toBe(1);
    expect(await store.count('port', mine, { owned: true })).toBe(1);
    expect(await store.count('port', mine, { owned: false })).toBe(0);
    expect(await store.count('network', mine, { owned: false })).toBe(3);
  });

  it('reads all rows of a kind, and the children and attached rows of one kind or any', async () => {
    const store = new ResourceStore(t.db.kysely);
    expect(names(await store.all('network', mine))).toEqual(['net-b', 'net-a', 'net-c']);
    expect(names(await store.children('r-net-a'))).toEqual(['sub-1', 'sub-2', 'port-1']);
    expect(names(await store.children('r-net-a', 'subnet'))).toEqual(['sub-1', 'sub-2']);
    expect(names(await store.children('r-net-b', 'subnet'))).toEqual([]);
    expect(names(await store.attachedTo('r-owner'))).toEqual(['port-1']);
    expect(names(await store.attachedTo('r-owner', 'volume'))).toEqual([]);
  });
});
