// A row inserted in a transaction is read back from what was inserted, not asked of the database again
// (an instant create's task reads its row in the transaction that wrote it); any change a store makes
// forgets it, and outside a transaction nothing is kept.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engineName, type TestApp } from '../../../tests/support/app.js';
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
