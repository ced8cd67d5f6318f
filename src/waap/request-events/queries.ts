// Where queries of the request-event log run. With a SQLite file or PostgreSQL, in reader threads (each
// with its own connection and cache of decoded blocks), so a scan over millions of events never holds up
// the main thread; with in-memory SQLite (one connection only) or no threads configured, on the main
// thread: synchronously for SQLite, so no write can come between a query's reads.
import type { Database } from '../../platform/db/index.js';
import { moduleWorker, WorkerPool } from '../../platform/workers.js';
import { BlockCache, runAsync, runSync } from './block-reader.js';
import { type QueryArgs, type QueryName, type QueryResult, startQuery } from './block-query.js';
import type { QueryWorkerData } from './query-worker.js';
import { PostgresBlockReads, SqliteBlockReads } from './store.js';

export interface QueryOptions {
  /** Reader threads (0: run on the main thread). */
  threads: number;
  /** Bytes of decoded blocks each reader keeps. */
  cacheBytes: number;
}

export class EventQueries {
  private readonly pool: WorkerPool | undefined;
  private readonly cache: BlockCache;
  private sqliteReads: SqliteBlockReads | undefined;

  constructor(
    private readonly database: Database,
    options: QueryOptions,
  ) {
    this.cache = new BlockCache(options.cacheBytes);
    const connection = database.connection;
    const offMainThread = options.threads > 0 && ('postgresUrl' in connection || connection.sqliteFile !== null);
    if (offMainThread) {
      const data: QueryWorkerData = 'postgresUrl' in connection
        ? { postgresUrl: connection.postgresUrl, schema: connection.schema, cacheBytes: options.cacheBytes }
        : { sqliteFile: connection.sqliteFile!, cacheBytes: options.cacheBytes };
      this.pool = new WorkerPool(() => moduleWorker(import.meta.url, './query-worker.ts', 'waap-query-worker.cjs', data), options.threads);
    }
  }

  /** Whether queries leave the main thread. */
  get offMainThread(): boolean {
    return this.pool !== undefined;
  }

  run<K extends QueryName>(name: K, ...args: QueryArgs<K>): Promise<QueryResult<K>> {
    if (this.pool) return this.pool.call<QueryResult<K>>({ name, args });
    const sqlite = this.database.raw.sqlite;
    if (sqlite) {
      // Statements are prepared on first use: the tables exist only once migrations have run.
      const reads = (this.sqliteReads ??= new SqliteBlockReads(sqlite));
      try {
        return Promise.resolve(runSync(startQuery(name, args), reads, this.cache));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return PostgresBlockReads.snapshot(this.database.raw.pg!, (reads) => runAsync(startQuery(name, args), reads, this.cache));
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }
}
