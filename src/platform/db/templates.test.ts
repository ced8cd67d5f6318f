// Queries compiled once give what Kysely's own way gives, on the suite's engine (SQLite, or PostgreSQL
// with EDGEPLANE_TEST_DATABASE_URL).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engineName, type TestApp } from '../../../tests/support/app.js';
import { countRows, insertRow, listed, QueryTemplate, selectRows, templateOf, updateRow } from './templates.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await sql`create table template_probe (id integer primary key, name text, size integer, note text)`.execute(t.db.kysely);
});
afterAll(async () => {
  await sql`drop table template_probe`.execute(t.db.kysely);
  await t.close();
});

const rows = async () =>
  (await t.db.kysely.selectFrom('template_probe').selectAll().orderBy('id').execute()).map((r) => ({ ...r, size: r.size === null ? null : Number(r.size) }));

describe(`query templates (${engineName})`, () => {
  it('build and compile a query once per dialect, then fill in the values', async () => {
    let builds = 0;
    const byName = new QueryTemplate(['name', 'size'], (db, v) => {
      builds += 1;
      return db.selectFrom('template_probe').select('id').where('name', '=', v.name).where('size', '>', v.size).where('note', 'is', null);
    });
    await insertRow(t.db.kysely, 'template_probe', { id: 1, name: 'a', size: 5 });
    await insertRow(t.db.kysely, 'template_probe', { id: 2, name: 'a', size: 9 });
    expect((await byName.execute(t.db.kysely, { name: 'a', size: 6 })).rows.map((r) => Number(r.id))).toEqual([2]);
    expect((await byName.execute(t.db.kysely, { name: 'a', size: 1 })).rows.map((r) => Number(r.id))).toEqual([1, 2]);
    await t.db.kysely.transaction().execute(async (trx) => {
      expect((await byName.execute(trx, { name: 'b', size: 0 })).rows).toEqual([]);
    });
    expect(builds).toBe(1);
    expect(byName.compiled(t.db.kysely, { name: 'x', size: 3 }).parameters).toEqual(['x', 3]);
  });

  it('insert rows as Kysely would: undefined values left out, RETURNING, an expression the usual way', async () => {
    await sql`delete from template_probe`.execute(t.db.kysely);
    const inserted = await insertRow<{ id: number }>(t.db.kysely, 'template_probe', { id: 3, name: 'c', size: undefined, note: null }, ['id']);
    expect(inserted.rows.map((r) => Number(r.id))).toEqual([3]);
    await insertRow(t.db.kysely, 'template_probe', { id: 4, name: sql`'from ' || 'sql'`, size: 2 });
    expect(await rows()).toEqual([
      { id: 3, name: 'c', size: null, note: null },
      { id: 4, name: 'from sql', size: 2, note: null },
    ]);
  });

  it('update by key the columns given, and nothing else', async () => {
    await updateRow(t.db.kysely, 'template_probe', 'id', 3, { name: 'c2', size: 7, note: undefined });
    await updateRow(t.db.kysely, 'template_probe', 'id', 4, { size: sql`size + 10` });
    await updateRow(t.db.kysely, 'template_probe', 'id', 4, { note: 'n' });
    expect(await rows()).toEqual([
      { id: 3, name: 'c2', size: 7, note: null },
      { id: 4, name: 'from sql', size: 12, note: 'n' },
    ]);
  });

  it('make one template per length of an in list (listed, templateOf)', async () => {
    const byIds = async (ids: number[]) => {
      const list = listed('id', ids);
      const template = templateOf(`template_probe ids ${ids.length}`, list.names, (db, v) =>
        db
          .selectFrom('template_probe')
          .select('id')
          .where(
            'id',
            'in',
            list.names.map((name) => v[name]),
          )
          .orderBy('id'),
      );
      return (await template.execute(t.db.kysely, list.values)).rows.map((r) => Number(r.id));
    };
    expect(await byIds([3, 4])).toEqual([3, 4]);
    expect(await byIds([4])).toEqual([4]);
    expect(await byIds([9, 3])).toEqual([3]);
    expect(listed('k', ['a', 'b'])).toEqual({ names: ['k0', 'k1'], values: { k0: 'a', k1: 'b' } });
  });

  it('refuse a template whose values do not all become parameters', () => {
    const literal = new QueryTemplate(['name'], (db) => db.selectFrom('template_probe').select('id').where('name', '=', sql.lit('fixed')));
    expect(() => literal.compiled(t.db.kysely, { name: 'x' })).toThrow(/name did not become parameters/);
  });

  it('select and count rows by equal columns, in the order asked, for each set of columns and values', async () => {
    await sql`delete from template_probe`.execute(t.db.kysely);
    for (const [id, name, size] of [
      [11, 'b', 1],
      [12, 'a', 1],
      [13, 'a', 2],
      [14, 'c', 2],
    ] as const)
      await insertRow(t.db.kysely, 'template_probe', { id, name, size });
    const ids = (found: { id: number }[]) => found.map((r) => Number(r.id));
    expect(ids(await selectRows(t.db.kysely, 'template_probe', { size: 1 }, 'id'))).toEqual([11, 12]);
    expect(ids(await selectRows(t.db.kysely, 'template_probe', { size: 2 }, 'name'))).toEqual([13, 14]);
    expect(ids(await selectRows(t.db.kysely, 'template_probe', { size: 1 }, 'name'))).toEqual([12, 11]);
    expect(ids(await selectRows(t.db.kysely, 'template_probe', { name: 'a', size: 2 }))).toEqual([13]);
    expect(ids(await selectRows(t.db.kysely, 'template_probe', { name: 'a', size: 3 }))).toEqual([]);
    expect(await countRows(t.db.kysely, 'template_probe', { size: 2 })).toBe(2);
    expect(await countRows(t.db.kysely, 'template_probe', { name: 'a' })).toBe(2);
    expect(await countRows(t.db.kysely, 'template_probe', { name: 'a', size: 1 })).toBe(1);
    expect(await countRows(t.db.kysely, 'template_probe', { name: 'z' })).toBe(0);
  });
});
