import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { scratchPostgres } from '../../../tests/support/scratch-postgres.js';
import { type FinalStatement, sqlNumber, sqlLiteral, transactionEndingWith, writeAtEnd } from './final-statement.js';
import { openDatabase, type Database } from './index.js';

const postgres = scratchPostgres();
const url = postgres.url;
const sqlite: Database[] = [];
afterAll(async () => {
  for (const db of sqlite) await db.close();
});

const engines = [
  {
    name: 'sqlite',
    open: async () => {
      const db = await openDatabase({ dataDir: '', memory: true });
      sqlite.push(db);
      return db;
    },
  },
  ...(url ? [{ name: 'postgres', open: () => postgres.open() }] : []),
];

class Refused extends Error {}

/** A statement that writes a row, or fails (as each engine can be made to) and is named Refused. */
function finalStatement(db: Database, fail: boolean): FinalStatement {
  const failing = db.engine === 'postgres' ? 'select 1 / 0' : `select json('not json')`;
  const name = "it's the last";
  return {
    query: fail ? sql.raw(failing) : sql`insert into final_t (name) values (${name})`,
    text: fail ? failing : `insert into final_t (name) values (${sqlLiteral(name)})`,
    failure: (error) => (error instanceof Error && /division by zero|malformed JSON/.test(error.message) ? new Refused('over') : undefined),
  };
}

describe.each(engines)('a transaction that ends with a statement ($name)', ({ open }) => {
  it('commits the work and the statement together, or rolls both back with the statement’s failure named', async () => {
    const db = await open();
    await db.kysely.schema.createTable('final_t').ifNotExists().addColumn('name', 'text').execute();
    const names = async () => (await db.kysely.selectFrom('final_t').select('name').orderBy('name').execute()).map((r) => r.name as string);
    const run = (fail: boolean, last = true) =>
      transactionEndingWith(db, async (trx) => {
        await trx
          .insertInto('final_t')
          .values({ name: `work ${fail}` })
          .execute();
        return { value: 7, last: last ? finalStatement(db, fail) : undefined };
      });

    await expect(run(false)).resolves.toBe(7);
    expect(await names()).toEqual(["it's the last", 'work false']);
    await expect(run(true)).rejects.toBeInstanceOf(Refused);
    expect(await names()).toEqual(["it's the last", 'work false']);
    await expect(run(false, false)).resolves.toBe(7);
    expect(await names()).toEqual(["it's the last", 'work false', 'work false']);
    // The work's own failure rolls back too, and the connection serves the next transaction.
    await expect(
      transactionEndingWith(db, async (trx) => {
        await trx.insertInto('final_t').values({ name: 'lost' }).execute();
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    expect(await names()).not.toContain('lost');
    expect(await sql<{ n: number }>`select 1 as n`.execute(db.kysely)).toMatchObject({ rows: [{ n: 1 }] });
  });
});

describe.each(engines)('a transaction with writes left for its end ($name)', ({ open }) => {
  it('runs them in order after the work and before the last statement, and rolls them back with any failure', async () => {
    const db = await open();
    await db.kysely.schema.createTable('ahead_t').ifNotExists().addColumn('name', 'text').execute();
    const names = async () => (await db.kysely.selectFrom('ahead_t').select('name').orderBy('name').execute()).map((r) => r.name as string);
    const write = (name: string) =>
      name === 'broken' ? db.kysely.insertInto('no_such_table').values({ name }).compile() : db.kysely.insertInto('ahead_t').values({ name }).compile();
    // The last statement counts what is there when it runs: the work's row and the writes left for the end.
    const counting = 'insert into ahead_t (name) select ' + "'last saw ' || count(*) from ahead_t";
    const last = (fail: boolean): FinalStatement => ({
      query: sql.raw(fail ? 'select * from no_such_table' : counting),
      text: fail ? 'select * from no_such_table' : counting,
      failure: () => undefined,
    });
    const run = (left: string[], fail = false) =>
      transactionEndingWith(db, async (trx) => {
        for (const name of left) await writeAtEnd(trx, write(name));
        // Not there yet for the work's own statements.
        const seen = await trx.selectFrom('ahead_t').select('name').where('name', 'like', 'left%').execute();
        await trx
          .insertInto('ahead_t')
          .values({ name: `work saw ${seen.length}` })
          .execute();
        return { value: 'done', last: last(fail) };
      });
    await expect(run(['left 1', 'left 2'])).resolves.toBe('done');
    expect(await names()).toEqual(['last saw 3', 'left 1', 'left 2', 'work saw 0']);
    await expect(run(['left 3', 'broken', 'left 4'])).rejects.toThrow(/no_such_table|no such table/);
    await expect(run(['left 5'], true)).rejects.toThrow(/no_such_table|no such table/);
    expect(await names()).toEqual(['last saw 3', 'left 1', 'left 2', 'work saw 0']);
    // Without a last statement they still run, and commit; outside such a transaction they run at once.
    await expect(transactionEndingWith(db, async (trx) => ({ value: 1, last: void (await writeAtEnd(trx, write('alone'))) }))).resolves.toBe(1);
    await db.kysely.transaction().execute((trx) => writeAtEnd(trx, write('in a plain transaction')));
    await writeAtEnd(db.kysely, write('in none'));
    expect(await names()).toEqual(expect.arrayContaining(['alone', 'in a plain transaction', 'in none']));
  });
});

describe.skipIf(!url)('a transaction that ends with a statement on PostgreSQL', () => {
  it('sends the statement and the COMMIT in one message', async () => {
    const db = await postgres.open();
    await db.kysely.schema.createTable('final_one').ifNotExists().addColumn('n', 'integer').execute();
    // What the pool's one connection is sent, read as the driver is called.
    const sent: string[] = [];
    const client = await db.raw.pg!.connect();
    const query = client.query;
    client.query = ((...args: unknown[]) => {
      const [config] = args;
      sent.push(typeof config === 'string' ? config : (config as { text: string }).text);
      return (query as (...a: unknown[]) => unknown).apply(client, args);
    }) as typeof client.query;
    client.release();
    try {
      await transactionEndingWith(db, async (trx) => {
        await trx.insertInto('final_one').values({ n: 1 }).execute();
        const last = {
          query: sql`insert into final_one (n) values (${2})`,
          text: `insert into final_one (n) values (${sqlNumber(2)})`,
          failure: () => undefined,
        };
        return { value: undefined, last };
      });
    } finally {
      client.query = query;
    }
    expect(sent.map((text) => text.replace(/\s+/g, ' ').trim())).toEqual([
      'begin',
      'insert into "final_one" ("n") values ($1)',
      'insert into final_one (n) values (2); commit',
    ]);
    expect((await db.kysely.selectFrom('final_one').select('n').orderBy('n').execute()).map((r) => r.n)).toEqual([1, 2]);
  });
});

describe('literals written into a statement', () => {
  it('quote any text, refuse NUL, and take only finite numbers', () => {
    expect(sqlLiteral(`a'b\\c`)).toBe(`E'a''b\\\\c'`);
    expect(() => sqlLiteral('a\0b')).toThrow(/NUL/);
    expect([42, 1.5, 1e21].map(sqlNumber)).toEqual(['42', '1.5', '1e+21']);
    for (const bad of [Number.NaN, Infinity, -Infinity, '1; drop table t' as unknown as number]) expect(() => sqlNumber(bad)).toThrow(/not a finite number/);
  });
});
