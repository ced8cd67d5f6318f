// Waiting for SQLite's write lock without stopping the server. better-sqlite3 is synchronous: with a busy
// timeout, a statement that finds the file's write lock held by another process (a `sqlite3` shell or a
// database browser with changes not yet written, a generator command) waits inside the call, and the
// whole event loop with it. With another process holding the lock, each write stopped every request of
// every client for the 5 s of the timeout: a `GET /iam/clients/me` sent beside a create took 13.9 s.
// Here the main connection does not wait inside a call (busy timeout 0); a statement refused as busy is
// tried again after a pause on the event loop, until SQLITE_BUSY_WAIT_MS have passed. Outside a
// transaction the connection is left to other statements meanwhile.
import SQLite from 'better-sqlite3';
import { CompiledQuery, type DatabaseConnection, type QueryResult, SqliteDriver, type SqliteDialectConfig } from 'kysely';

/** How long a statement waits for another process's write lock before it fails (then a 503 to retry). */
export const SQLITE_BUSY_WAIT_MS = 5_000;

const isBusy = (error: unknown) => String((error as { code?: unknown })?.code ?? '').startsWith('SQLITE_BUSY');
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `run` until it does not fail as busy, pausing between tries (5 ms, doubling up to 50), for at most
 * `waitMs`; then its last failure is thrown. `run` must change nothing when it fails (a statement outside
 * a transaction, a whole transaction). `whilePaused` runs around each pause (to let go of the connection).
 */
export async function retryWhileBusy<T>(
  run: () => T | Promise<T>,
  waitMs = SQLITE_BUSY_WAIT_MS,
  whilePaused: (paused: Promise<void>) => Promise<void> = (paused) => paused,
): Promise<T> {
  const deadline = performance.now() + waitMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 50)) {
    try {
      return await run();
    } catch (error) {
      if (!isBusy(error) || performance.now() + wait > deadline) throw error;
    }
    await whilePaused(pause(wait));
  }
}

/**
 * Kysely's SQLite driver, with transactions begun IMMEDIATE (the write lock taken by BEGIN, the one
 * statement that can then be refused as busy) and busy statements tried again (retryWhileBusy). While a
 * statement outside a transaction waits (BEGIN among them), the driver's one connection is released, so
 * other statements run meanwhile.
 */
export class PatientSqliteDriver extends SqliteDriver {
  constructor(
    config: SqliteDialectConfig,
    private readonly connection: SQLite.Database,
  ) {
    super(config);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    return {
      executeQuery: <R>(query: CompiledQuery) => this.patiently<R>(connection, query),
      streamQuery: <R>(query: CompiledQuery, chunkSize?: number) => connection.streamQuery<R>(query, chunkSize),
    };
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  private patiently<R>(connection: DatabaseConnection, query: CompiledQuery): Promise<QueryResult<R>> {
    return retryWhileBusy(
      () => connection.executeQuery<R>(query),
      SQLITE_BUSY_WAIT_MS,
      async (paused) => {
        // Inside a transaction the connection is ours until it ends; outside, nothing of ours is on it.
        if (this.connection.inTransaction) return paused;
        await super.releaseConnection();
        await paused;
        await super.acquireConnection();
      },
    );
  }
}
