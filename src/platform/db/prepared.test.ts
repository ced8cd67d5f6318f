import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase, preparedOnce } from './index.js';

describe('SQLite statements for Kysely', () => {
  it('prepares each SQL text once, keeps the 1,000 most recently used, and closes the connection', () => {
    const connection = new SQLite(':memory:');
    const prepared = preparedOnce(connection);
    const first = prepared.prepare('select 1 as n');
    expect(prepared.prepare('select 1 as n')).toBe(first);
    expect(first.all([])).toEqual([{ n: 1 }]);
    for (let i = 0; i < 1_000; i += 1) prepared.prepare(`select ${i + 2} as n`);
    // 1,001 texts were prepared: the least recently used (the first) went.
    expect(prepared.prepare('select 1 as n')).not.toBe(first);
    prepared.close();
    expect(connection.open).toBe(false);
  });
});

describe('rows of reading statements', () => {
  it('are the objects better-sqlite3 would make, through all and iterate', () => {
    const connection = new SQLite(':memory:');
    connection.exec(`create table t (id integer primary key, name text, size real, note text, data blob)`);
    connection.exec(`insert into t (name, size, note, data) values ('a', 1.5, null, x'0102'), ('b', 2, 'x', null)`);
    const prepared = preparedOnce(connection);
    const texts = [
      'select * from t order by id',
      `select name as "weird ""name""", size as "a", note as "a", count(*) over () as "count(*)" from t order by id`,
      'select 1 as "__proto__", 2 as other',
      'select * from t where id > 5',
    ];
    for (const text of texts) {
      const expected = connection.prepare(text).all();
      expect(prepared.prepare(text).all([]), text).toEqual(expected);
      expect([...prepared.prepare(text).iterate([])], text).toEqual(expected);
      for (const row of prepared.prepare(text).all([]) as object[]) expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    }
    // A repeated name keeps its last value (a `__proto__` column is left to better-sqlite3, as compared above).
    expect(prepared.prepare(texts[1]).all([])).toEqual([
      { 'weird "name"': 'a', a: null, 'count(*)': 2 },
      { 'weird "name"': 'b', a: 'x', 'count(*)': 2 },
    ]);
    // Writes answer as before.
    expect(prepared.prepare(`insert into t (name) values ('c')`).run([]).changes).toBe(1);
    prepared.close();
  });

  it('follow a schema change of a statement prepared before it', () => {
    const connection = new SQLite(':memory:');
    connection.exec(`create table t (a integer)`);
    connection.exec(`insert into t values (1)`);
    const prepared = preparedOnce(connection);
    expect(prepared.prepare('select * from t').all([])).toEqual([{ a: 1 }]);
    connection.exec(`alter table t add column b text default 'x'`);
    expect(prepared.prepare('select * from t').all([])).toEqual([{ a: 1, b: 'x' }]);
    prepared.close();
  });
});

describe('LIMIT and OFFSET on SQLite', () => {
  it('are bound as expressions SQLite does not read at plan time, and still page the rows', async () => {
    const db = await openDatabase({ dataDir: '', memory: true });
    try {
      await sql`create table t (n integer)`.execute(db.kysely);
      await db.kysely
        .insertInto('t')
        .values([1, 2, 3, 4, 5].map((n) => ({ n })))
        .execute();
      const page = db.kysely.selectFrom('t').select('n').orderBy('n').limit(2).offset(1);
      // A bare `limit ?` makes SQLite prepare the statement again at every run (see StableLimitCompiler).
      expect(page.compile().sql).toBe('select "n" from "t" order by "n" limit +? offset +?');
      expect(await page.execute()).toEqual([{ n: 2 }, { n: 3 }]);
      expect(await db.kysely.selectFrom('t').select('n').orderBy('n', 'desc').limit(1).execute()).toEqual([{ n: 5 }]);
    } finally {
      await db.close();
    }
  });
});
