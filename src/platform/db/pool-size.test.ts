// How many PostgreSQL connections a process opens for transactions: --database-pool, five by default.
// Transactions beyond that wait for a connection instead of opening more. (Statements outside
// transactions share the pipe's connections: pipelined.test.ts.)
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { scratchPostgres } from '../../../tests/support/scratch-postgres.js';
import { DEFAULT_DATABASE_POOL } from '../../config.js';
import type { Database } from './index.js';

const postgres = scratchPostgres();

/** The distinct backends that served `n` transactions started together, each holding its connection briefly. */
async function backendsServing(db: Database, n: number): Promise<number> {
  const pids = await Promise.all(
    Array.from({ length: n }, () =>
      db.kysely.transaction().execute(async (trx) => (await sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.05)`.execute(trx)).rows[0].pid),
    ),
  );
  return new Set(pids).size;
}

describe.skipIf(!postgres.url)('the PostgreSQL pool size', () => {
  it('is five connections unless set', async () => {
    expect(DEFAULT_DATABASE_POOL).toBe(5);
    const db = await postgres.open({ databasePool: undefined });
    expect(await backendsServing(db, 12)).toBe(5);
  });

  it('is what --database-pool says', async () => {
    const db = await postgres.open({ databasePool: 2 });
    expect(await backendsServing(db, 6)).toBe(2);
  });
});
