// A PostgreSQL connection that dies while a transaction holds it (the server restarted or stopped, an
// administrator ended the backend) fails that transaction only, as a database that is unavailable (503):
// the process keeps running and the pool serves the next one on a new connection. node-postgres emits
// the socket's error on the client, and the pool listens for it only while the client is idle: without a
// listener of our own, the error of a client held between two statements of a transaction ended the
// process.
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { scratchPostgres } from '../../../tests/support/scratch-postgres.js';
import { toAppError } from '../error-handler.js';

const postgres = scratchPostgres();
const url = postgres.url;

describe.skipIf(!url)('a PostgreSQL connection lost inside a transaction', () => {
  it('fails that transaction, leaves the process running, and the next transaction gets a new connection', async () => {
    const db = await postgres.open({ databasePool: 2 });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    let held = 0;
    try {
      const lost = db.kysely.transaction().execute(async (trx) => {
        held = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0].pid;
        await admin.query('select pg_terminate_backend($1)', [held]);
        // The backend's goodbye reaches the client while it waits between two statements.
        await new Promise((resolve) => setTimeout(resolve, 200));
        await sql`select 1`.execute(trx);
      });
      // The client's next statement is refused; the request it served answers 503, as for a database that is down.
      const error = await lost.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(toAppError(error).code).toBe('service_unavailable');
    } finally {
      await admin.end();
    }
    const next = await db.kysely.transaction().execute(async (trx) => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0].pid);
    expect(next).not.toBe(held);
  });
});
