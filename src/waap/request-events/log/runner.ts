// Where queries of the request-event log run. With a SQLite file or PostgreSQL, in reader threads (each
// with its own connection and cache of decoded blocks), so a scan over millions of events never holds up
// the main thread; with in-memory SQLite (one connection only) or no threads configured, on the main
// thread: synchronously for SQLite, so no write can come between a query's reads.
import type { Database } from '../../../platform/db/index.js';
import { AppError } from '../../../platform/errors.js';
import { moduleWorker, WorkerPool } from '../../../platform/workers.js';
import { BlockCache, runAsync, runSync } from './reader.js';
import { type QueryArgs, type QueryName, type QueryResult, startQuery } from './queries.js';
import type { QueryWorkerData } from './query-worker.js';
import { PostgresBlockReads, SqliteBlockReads } from './reads.js';

export interface QueryOptions {
  /** Reader threads (0: run on the main thread). */
  threads: number;
  /** Bytes of decoded blocks each reader keeps. */
  cacheBytes: number;
  /** How long one query may take (milliseconds; default QUERY_BUDGET_MS). */
  budgetMs?: number;
}

/** The default time budget of one query: far above any query of the benchmarks at 10M events (p99 under 30 ms). */
export const QUERY_BUDGET_MS = 10_000;
// A thread past its budget is still stopped by the cooperative check between two reads; this is for a
// thread stuck inside one step.
const HARD_STOP_GRACE_MS = 2_000;

export class QueryRunner {
  private readonly pool: WorkerPool | undefined;
  private readonly cache: BlockCache;
  private sqliteReads: SqliteBlockReads | undefined;
  private readonly budgetMs: number;

  constructor(
    private readonly database: Database,
    options: QueryOptions,
  ) {
    this.cache = new BlockCache(options.cacheBytes);
    this.budgetMs = options.budgetMs ?? QUERY_BUDGET_MS;
    const connection = database.connection;
    const offMainThread = options.threads > 0 && ('postgresUrl' in connection || connection.sqliteFile !== null);
    if (offMainThread) {
      const data: QueryWorkerData =
        'postgresUrl' in connection
          ? { postgresUrl: connection.postgresUrl, schema: connection.schema, cacheBytes: options.cacheBytes }
          : { sqliteFile: connection.sqliteFile!, cacheBytes: options.cacheBytes };
      this.pool = new WorkerPool(() => moduleWorker(import.meta.url, './query-worker.ts', 'waap-query-worker.cjs', data), options.threads);
    }
  }

  /** Whether queries leave the main thread. */
  get offMainThread(): boolean {
    return this.pool !== undefined;
  }

  /**
   * Runs a named query within the time budget; past it, the query is stopped (between two reads, or with
   * its thread when stuck inside one) and fails with an AppError that says so.
   */
  run<K extends QueryName>(name: K, ...args: QueryArgs<K>): Promise<QueryResult<K>> {
    const deadline = Date.now() + this.budgetMs;
    return this.start(name, args, deadline).catch((error: unknown) => {
      const code = (error as { code?: unknown }).code;
      if (code === 'query_timeout' || code === 'worker_timeout' || code === '57014') throw this.timedOut();
      throw error;
    });
  }

  private start<K extends QueryName>(name: K, args: QueryArgs<K>, deadline: number): Promise<QueryResult<K>> {
    if (this.pool) return this.pool.call<QueryResult<K>>({ name, args, deadline }, { timeoutMs: this.budgetMs + HARD_STOP_GRACE_MS });
    const sqlite = this.database.raw.sqlite;
    if (sqlite) {
      // Statements are prepared on first use: the tables exist only once migrations have run.
      const reads = (this.sqliteReads ??= new SqliteBlockReads(sqlite));
      try {
        return Promise.resolve(runSync(startQuery(name, args), reads, this.cache, deadline));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return PostgresBlockReads.snapshot(this.database.raw.pg!, (reads) => runAsync(startQuery(name, args), reads, this.cache, deadline), deadline);
  }

  private timedOut(): AppError {
    const seconds = this.budgetMs / 1000;
    return new AppError('bad_request', `The query took longer than its ${seconds} s budget and was stopped; narrow the time range or the filters.`);
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }
}
