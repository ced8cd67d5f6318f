// Statements outside transactions share a few pipelined PostgreSQL connections (pipelined.ts): each gets
// its own answer, a failure fails alone, a lost connection is replaced, and transactions and
// `connection()` scopes never run there.
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { scratchPostgres } from '../../../tests/support/scratch-postgres.js';
import { toAppError } from '../error-handler.js';
import type { Database } from './index.js';
import { isRead } from './pipelined.js';

const postgres = scratchPostgres();
const url = postgres.url;

const pidOf = async (db: Database) => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db.kysely)).rows[0].pid;

/** The backends waiting for advisory lock `key`, once there are `count` of them. */
async function waitersOf(admin: pg.Client, key: number, count: number): Promise<number[]> {
  for (;;) {
    const { rows } = await admin.query<{ pid: number }>(`select pid from pg_locks where locktype = 'advisory' and objid = $1 and not granted`, [key]);
    if (rows.length >= count) return rows.map((row) => row.pid);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe.skipIf(!url)('statements outside transactions, pipelined on shared connections', () => {
  it('answers each of many concurrent statements with its own result, failures included, on the pipe connections only', async () => {
    // Never held up here, however long a loaded machine pauses this process (below: a connection held up).
    const db = await postgres.open({ databasePipe: 2, databasePool: 5, databasePipeHeldUpMs: 60_000 });
    await sql`create table pipe_things (id int primary key)`.execute(db.kysely);
    const outcomes = await Promise.all(
      Array.from({ length: 90 }, async (_, i) => {
        if (i % 3 === 2) {
          // Every third statement fails (a key taken by the one before it, or a missing table): alone.
          const failing = i % 2 ? sql`insert into pipe_things (id) values (${i - 2})` : sql`select * from no_such_table where id = ${i}`;
          await db.kysely
            .insertInto('pipe_things')
            .values({ id: i - 2 })
            .execute();
          return failing.execute(db.kysely).then(
            () => `statement ${i} did not fail`,
            // A statement written while the same text's first parse was failing is told its name does not exist.
            (error: Error) => (/duplicate key|no_such_table|prepared statement "\w+" does not exist/.test(error.message) ? 'failed alone' : error.message),
          );
        }
        const { rows } = await sql<{ value: number; pid: number }>`select ${i}::int as value, pg_backend_pid() as pid`.execute(db.kysely);
        return rows[0].value === i ? `pid ${rows[0].pid}` : `statement ${i} got ${rows[0].value}`;
      }),
    );
    expect(outcomes.filter((o) => o !== 'failed alone' && !o.startsWith('pid '))).toEqual([]);
    expect(outcomes.filter((o) => o === 'failed alone')).toHaveLength(30);
    expect(new Set(outcomes.filter((o) => o.startsWith('pid '))).size).toBeLessThanOrEqual(2);
    expect(
      (
        await db.kysely
          .selectFrom('pipe_things')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    ).toBe(30);
  });

  it('runs transactions and connection() scopes on pooled connections: a session lock is released where it was taken', async () => {
    const db = await postgres.open({ databasePipe: 2, databasePool: 2, databasePipeHeldUpMs: 60_000 });
    const shared = new Set(await Promise.all(Array.from({ length: 8 }, () => pidOf(db))));
    const inTransaction = await db.kysely
      .transaction()
      .execute(async (trx) => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0].pid);
    expect(shared.has(inTransaction)).toBe(false);
    // Kysely's migrator takes a session-level advisory lock this way, then releases it with another statement.
    await db.kysely.connection().execute(async (connection) => {
      await sql`select pg_advisory_lock(4242)`.execute(connection);
      await sql`select pg_advisory_unlock(4242)`.execute(connection);
    });
    const held = await sql<{ n: number }>`select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = 4242`.execute(db.kysely);
    expect(held.rows[0].n).toBe(0);
  });

  it('refuses a transaction begun by hand on the shared connections', async () => {
    const db = await postgres.open({ databasePipe: 1 });
    await expect(sql`begin`.execute(db.kysely)).rejects.toThrow('a transaction cannot run on the shared PostgreSQL connections');
    expect(await pidOf(db)).toBeGreaterThan(0);
  });

  it('replaces a shared connection that was lost; a statement caught by the loss fails as unavailable (503)', async () => {
    const db = await postgres.open({ databasePipe: 1 });
    const before = await pidOf(db);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const caught = sql`select pg_sleep(5)`.execute(db.kysely).then(
        () => undefined,
        (error: unknown) => error,
      );
      await admin.query('select pg_terminate_backend($1)', [before]);
      expect(toAppError(await caught).code).toBe('service_unavailable');
    } finally {
      await admin.end();
    }
    const after = await pidOf(db);
    expect(after).not.toBe(before);
  });

  it('sends the statements behind one that waits to a connection not held up, then to the pool', async () => {
    // Held up after 1 ms without an answer (20 ms by default), so the test need not pause long.
    const db = await postgres.open({ databasePipe: 2, databasePool: 2, databasePipeHeldUpMs: 1 });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query('select pg_advisory_lock(4343)');
      // One statement waiting for the lock on each shared connection (each goes to the one with fewer in flight).
      let waited = 0;
      const waiting = [1, 2].map(() => sql`select pg_advisory_xact_lock(4343)`.execute(db.kysely).then(() => (waited += 1)));
      const pipePids = await waitersOf(admin, 4343, 2);
      // Both connections are held up: the reads behind them are answered by the pool meanwhile (two at a
      // time: its connections taken, the others queue there, as transactions do).
      const meanwhile = await Promise.all(Array.from({ length: 5 }, () => pidOf(db)));
      expect(waited).toBe(0);
      expect(meanwhile.filter((pid) => pipePids.includes(pid))).toEqual([]);
      await admin.query('select pg_advisory_unlock(4343)');
      await Promise.all(waiting);
      // Answering again, the shared connections take the statements again.
      expect(pipePids).toContain(await pidOf(db));
    } finally {
      await admin.end();
    }
  });

  it('answers the reads written behind a waiting statement from the pool; a write behind it waits and runs once', async () => {
    // One shared connection; 50 ms is far longer than the statements below take to be written one behind the other.
    const db = await postgres.open({ databasePipe: 1, databasePool: 2, databasePipeHeldUpMs: 50 });
    await sql`create table pipe_behind (n int)`.execute(db.kysely);
    const pipePid = await pidOf(db);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query('select pg_advisory_lock(4345)');
      const done: string[] = [];
      const waiting = sql`select pg_advisory_xact_lock(4345)`.execute(db.kysely).then(() => done.push('lock'));
      const write = sql`insert into pipe_behind (n) values (1)`.execute(db.kysely).then(() => done.push('write'));
      const reads = await Promise.all(Array.from({ length: 3 }, () => pidOf(db)));
      expect(reads.filter((pid) => pid === pipePid)).toEqual([]);
      expect(await waitersOf(admin, 4345, 1)).toEqual([pipePid]);
      expect(done).toEqual([]);
      await admin.query('select pg_advisory_unlock(4345)');
      await Promise.all([waiting, write]);
      expect(done).toEqual(['lock', 'write']);
      expect((await sql<{ n: number }>`select count(*)::int as n from pipe_behind`.execute(db.kysely)).rows[0].n).toBe(1);
    } finally {
      await admin.end();
    }
  });

  it('sends every statement over the pool with --database-pipe 0', async () => {
    const db = await postgres.open({ databasePipe: 0, databasePool: 3 });
    const inTransaction = await db.kysely
      .transaction()
      .execute(async (trx) => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0].pid);
    expect(await pidOf(db)).toBe(inTransaction);
  });
});

describe('which statements are asked again of the pool behind a held-up connection', () => {
  it('reads only: no write, row lock, sequence or locking function', () => {
    expect(isRead('select "id", "name" from "cloud_resources" where "id" = $1')).toBe(true);
    expect(isRead('  SELECT count(*) from tasks')).toBe(true);
    for (const text of [
      'update api_tokens set last_used_at = $1 where id = $2',
      'insert into t (n) values (1)',
      'with moved as (delete from t returning *) select * from moved',
      'select * from cloud_quotas where client_id = $1 for update',
      'select * from t for no key update',
      "select nextval('seq')",
      'select pg_advisory_lock(1)',
      'select pg_try_advisory_xact_lock(7)',
      'select cloud_quota_check($1, $2)',
    ])
      expect(isRead(text)).toBe(false);
  });
});
