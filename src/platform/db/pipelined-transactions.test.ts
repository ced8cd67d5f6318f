// A transaction's statements share socket writes where their answers can wait (pipelined-transactions.ts):
// BEGIN with the first statement, the writes left for the end with the last statement and the COMMIT. The
// transaction is the same (its statements roll back together), a failure is the statement's own, and a
// BEGIN never followed by a statement does not outlive the connection's checkout.
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { countPoolWrites } from '../../../tests/support/pool-writes.js';
import { scratchPostgres } from '../../../tests/support/scratch-postgres.js';
import { transactionEndingWith, writeAtEnd } from './final-statement.js';

const postgres = scratchPostgres();
const url = postgres.url;

describe.skipIf(!url)("a transaction's BEGIN, sent with its first statement", () => {
  it('writes BEGIN and the first statement together; the statements still commit or roll back as one', async () => {
    const db = await postgres.open({ databasePipe: 0 });
    await sql`create table begin_things (id int primary key)`.execute(db.kysely);
    const counter = countPoolWrites(db.raw.pg!);
    await db.kysely.transaction().execute(async (trx) => {
      await trx.insertInto('begin_things').values({ id: 1 }).execute();
      // BEGIN, the insert: one write.
      expect(counter.writes).toBe(1);
      await trx.insertInto('begin_things').values({ id: 2 }).execute();
    });
    // ... then the second insert and the COMMIT: one each.
    expect(counter.writes).toBe(3);
    await expect(
      db.kysely.transaction().execute(async (trx) => {
        await trx.insertInto('begin_things').values({ id: 3 }).execute();
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    const ids = await db.kysely.selectFrom('begin_things').select('id').orderBy('id').execute();
    expect(ids.map((r) => r.id)).toEqual([1, 2]);
  });

  it('writes the statements left for the end, the last one and the COMMIT together, with BEGIN when nothing ran before', async () => {
    const db = await postgres.open({ databasePipe: 0 });
    await sql`create table ahead_things (id int primary key)`.execute(db.kysely);
    const counter = countPoolWrites(db.raw.pg!);
    const insert = (id: number) => db.kysely.insertInto('ahead_things').values({ id }).compile();
    const last = (id: number) => ({
      query: sql`insert into ahead_things (id) values (${id})`,
      text: `insert into ahead_things (id) values (${id})`,
      failure: () => undefined,
    });
    await transactionEndingWith(db, async (trx) => {
      await trx.insertInto('ahead_things').values({ id: 1 }).execute();
      await writeAtEnd(trx, insert(2));
      await writeAtEnd(trx, insert(3));
      return { value: undefined, last: last(4) };
    });
    // BEGIN with the work's insert; the two writes left for the end, the last statement and the COMMIT.
    expect(counter.writes).toBe(2);
    // Nothing but writes left for the end: the whole transaction in one write.
    await transactionEndingWith(db, async (trx) => {
      await writeAtEnd(trx, insert(5));
      return { value: undefined, last: last(6) };
    });
    expect(counter.writes).toBe(3);
    expect((await db.kysely.selectFrom('ahead_things').select('id').orderBy('id').execute()).map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6]);
    // A write that fails fails the transaction with its own error: nothing of it stays.
    await expect(
      transactionEndingWith(db, async (trx) => {
        await trx.insertInto('ahead_things').values({ id: 7 }).execute();
        await writeAtEnd(trx, insert(8));
        await writeAtEnd(trx, insert(1));
        return { value: undefined, last: { query: sql`select 1`, text: 'select 1', failure: () => undefined } };
      }),
    ).rejects.toThrow(/duplicate key/);
    expect((await db.kysely.selectFrom('ahead_things').select('id').orderBy('id').execute()).map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('answers a failing first statement with its own error, and the connection serves the next transaction', async () => {
    const db = await postgres.open({ databasePipe: 0 });
    await sql`create table begin_keys (id int primary key)`.execute(db.kysely);
    await db.kysely.insertInto('begin_keys').values({ id: 1 }).execute();
    await expect(db.kysely.transaction().execute((trx) => trx.insertInto('begin_keys').values({ id: 1 }).execute())).rejects.toThrow(/duplicate key/);
    await db.kysely.transaction().execute((trx) => trx.insertInto('begin_keys').values({ id: 2 }).execute());
    expect((await db.kysely.selectFrom('begin_keys').select('id').orderBy('id').execute()).map((r) => r.id)).toEqual([1, 2]);
  });

  it('answers BEGIN with options (an isolation level) as PostgreSQL does, and an empty transaction commits', async () => {
    const db = await postgres.open({ databasePipe: 0 });
    const level = await db.kysely
      .transaction()
      .setIsolationLevel('serializable')
      .execute(async (trx) => (await sql<{ level: string }>`select current_setting('transaction_isolation') as level`.execute(trx)).rows[0].level);
    expect(level).toBe('serializable');
    await db.kysely.transaction().execute(async () => undefined);
    expect((await sql<{ one: number }>`select 1 as one`.execute(db.kysely)).rows[0].one).toBe(1);
  });

  it('answers a query with a callback after a held BEGIN through its callback, in the transaction', async () => {
    const db = await postgres.open({ databasePipe: 0, databasePool: 1 });
    const client = await db.raw.pg!.connect();
    try {
      await client.query('begin');
      const one = await new Promise<number>((resolve, reject) =>
        client.query('select 1 as one', (error: Error | null, result: pg.QueryResult) => (error ? reject(error) : resolve(result.rows[0].one))),
      );
      expect(one).toBe(1);
      // BEGIN was written with it: a SAVEPOINT needs a transaction block.
      await expect(client.query('savepoint inside')).resolves.toMatchObject({ command: 'SAVEPOINT' });
      await client.query('rollback');
    } finally {
      client.release();
    }
  });

  it('forgets a BEGIN sent by hand and never followed when the connection goes back to the pool', async () => {
    const db = await postgres.open({ databasePipe: 0, databasePool: 1 });
    await sql`create table begin_left (id int)`.execute(db.kysely);
    const pool = db.raw.pg!;
    const first = await pool.connect();
    await first.query('begin');
    first.release();
    const second = await pool.connect();
    try {
      await second.query('insert into begin_left (id) values (1)');
    } finally {
      second.release();
    }
    // Seen from another connection: the insert was not left in a transaction nobody ends.
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      const schema = (await sql<{ schema: string }>`select current_schema() as schema`.execute(db.kysely)).rows[0].schema;
      const { rows } = await other.query(`select count(*)::int as n from "${schema}".begin_left`);
      expect(rows[0].n).toBe(1);
    } finally {
      await other.end();
    }
  });
});
