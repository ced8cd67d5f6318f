// How long our PostgreSQL sessions wait: a statement waits for a lock at most --database-lock-timeout, and
// PostgreSQL ends a session of ours left idle in a transaction (a process paused in one), so that a row
// another session holds makes nothing of ours wait for ever, and none of ours holds a row for ever.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { otherSession } from '../../../tests/support/other-session.js';
import { scratchPostgres } from '../../../tests/support/scratch-postgres.js';
import { DEFAULT_DATABASE_LOCK_TIMEOUT } from '../../config.js';
import { toAppError } from '../error-handler.js';

const postgres = scratchPostgres();

describe.skipIf(!postgres.url)('the time limits of our PostgreSQL sessions', () => {
  it('are set on the pooled and the shared connections', async () => {
    expect(DEFAULT_DATABASE_LOCK_TIMEOUT).toBe(5_000);
    const db = await postgres.open({ databasePool: 1, databasePipe: 1 });
    const settings = sql<{ lock: string; idle: string }>`select current_setting('lock_timeout') as lock,
      current_setting('idle_in_transaction_session_timeout') as idle`;
    const pooled = await db.kysely.transaction().execute(async (trx) => (await settings.execute(trx)).rows[0]);
    const shared = (await settings.execute(db.kysely)).rows[0];
    expect(pooled).toEqual({ lock: '5s', idle: '30s' });
    expect(shared).toEqual(pooled);
    const unlimited = await postgres.open({ databasePool: 1, databaseLockTimeout: 0 });
    expect((await settings.execute(unlimited.kysely)).rows[0].lock).toBe('0');
  });

  it('fail a statement that waits for a row longer than the lock timeout, as a 503 to retry; the connection serves on', async () => {
    const db = await postgres.open({ databasePool: 1, databaseLockTimeout: 200 });
    await sql`create table if not exists held_rows (id int primary key, n int not null)`.execute(db.kysely);
    await sql`insert into held_rows values (1, 0) on conflict do nothing`.execute(db.kysely);
    const holder = await otherSession(db);
    try {
      await holder.query('begin');
      await holder.query('select * from held_rows where id = 1 for update');
      const started = performance.now();
      const failure = await db.kysely
        .transaction()
        .execute((trx) => sql`update held_rows set n = n + 1 where id = 1`.execute(trx))
        .catch((error: unknown) => error);
      expect(performance.now() - started).toBeLessThan(3_000);
      expect((failure as { code?: string }).code).toBe('55P03');
      const answer = toAppError(failure);
      expect([answer.status, answer.headers]).toEqual([503, { 'retry-after': '1' }]);
    } finally {
      await holder.query('rollback');
      await holder.end();
    }
    await db.kysely.transaction().execute((trx) => sql`update held_rows set n = n + 1 where id = 1`.execute(trx));
    expect((await sql<{ n: number }>`select n from held_rows where id = 1`.execute(db.kysely)).rows[0].n).toBe(1);
  });
});
