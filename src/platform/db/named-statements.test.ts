import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { scratchPostgres } from '../../../tests/support/scratch-postgres.js';
import type { Database } from './index.js';
import { StatementNames } from './named-statements.js';

describe('the names a pool gives to statement texts', () => {
  it('names a text from its second run on, always the same name, and each text its own', () => {
    const names = new StatementNames(10);
    expect(names.nameOf('select $1')).toBeUndefined();
    const first = names.nameOf('select $1');
    expect(first).toMatch(/^edgeplane_\d+$/);
    expect(names.nameOf('select $1')).toBe(first);
    names.nameOf('select $2');
    const second = names.nameOf('select $2');
    expect(second).not.toBe(first);
  });

  it('names no more than its limit: later texts stay unnamed, named ones keep their names', () => {
    const names = new StatementNames(2);
    for (const text of ['a $1', 'a $1', 'b $1', 'b $1', 'c $1', 'c $1', 'c $1']) names.nameOf(text);
    expect(names.size).toBe(2);
    expect(names.nameOf('c $1')).toBeUndefined();
    expect(names.nameOf('a $1')).toBeDefined();
    const none = new StatementNames(0);
    expect([none.nameOf('a $1'), none.nameOf('a $1'), none.nameOf('a $1')]).toEqual([undefined, undefined, undefined]);
  });

  it('forgets the oldest texts seen once, so texts run once (literal values in them) cannot grow it without end', () => {
    const names = new StatementNames(10);
    names.nameOf('kept $1');
    for (let i = 0; i < 5_000; i += 1) names.nameOf(`select ${i} where x = $1`);
    // The first sighting was forgotten: its next run counts as a first again.
    expect(names.nameOf('kept $1')).toBeUndefined();
    expect(names.nameOf('kept $1')).toBeDefined();
    expect(names.size).toBe(1);
  });
});

const postgres = scratchPostgres();
const url = postgres.url;

/** The statements the one connection of `db` has prepared, read on that connection. */
async function prepared(db: Database): Promise<string[]> {
  const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements order by statement`.execute(db.kysely);
  return rows.map((r) => r.statement);
}

describe.skipIf(!url)('statements on PostgreSQL', () => {
  it('are prepared once per connection from their second run, with the same answers; transaction control stays unnamed', async () => {
    const db = await postgres.open();
    await db.kysely.schema.createTable('named_t').addColumn('id', 'integer').addColumn('name', 'text').execute();
    await db.kysely.insertInto('named_t').values({ id: 1, name: 'one' }).execute();
    const read = (id: number) => db.kysely.selectFrom('named_t').selectAll().where('id', '=', id).execute();
    expect(await read(1)).toEqual([{ id: 1, name: 'one' }]);
    expect((await prepared(db)).some((s) => s.includes('named_t'))).toBe(false);
    expect(await read(1)).toEqual([{ id: 1, name: 'one' }]);
    expect(await read(2)).toEqual([]);
    await db.kysely.transaction().execute(async (trx) => {
      await trx.insertInto('named_t').values({ id: 2, name: 'two' }).execute();
    });
    expect(await read(2)).toEqual([{ id: 2, name: 'two' }]);
    const statements = await prepared(db);
    expect(statements.filter((s) => s.startsWith('select * from "named_t"'))).toHaveLength(1);
    expect(statements.some((s) => /^(begin|commit)/i.test(s))).toBe(false);
  });

  it('are never prepared with a limit of 0', async () => {
    const db = await postgres.open({ databaseStatements: 0 });
    for (let i = 0; i < 3; i += 1) await db.kysely.selectFrom('named_t').selectAll().where('id', '=', 1).execute();
    expect(await prepared(db)).toEqual([]);
  });
});
