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
    expect(first.get()).toEqual({ n: 1 });
    for (let i = 0; i < 1_000; i += 1) prepared.prepare(`select ${i + 2} as n`);
    // 1,001 texts were prepared: the least recently used (the first) went.
    expect(prepared.prepare('select 1 as n')).not.toBe(first);
    prepared.close();
    expect(connection.open).toBe(false);
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
