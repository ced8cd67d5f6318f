// Where long reads run. better-sqlite3 answers synchronously, so a count or an aggregation over millions
// of rows on the main thread would hold up every other request for its duration. With a SQLite file,
// such reads go to worker threads, each with its own read-only connection (WAL lets them read beside the
// writer). An in-memory database cannot be opened twice and PostgreSQL is asynchronous already: those
// read on the main connection. Used by CDN analytics; the WAAP log runs whole queries in its own threads.
import { createRequire } from 'node:module';
import type { CompiledQuery } from 'kysely';
import type { Database } from './index.js';
import { WorkerPool } from '../workers.js';

export interface Readers {
  /** Whether reads leave the main thread. */
  readonly offMainThread: boolean;
  all<R>(query: CompiledQuery): Promise<R[]>;
  close(): Promise<void>;
}

export interface ReaderOptions {
  /** Worker threads for a SQLite file. */
  threads: number;
  /** Extra pragmas for each worker's connection (e.g. a larger page cache for big scans). */
  pragmas?: string[];
}

// Plain CommonJS run with `eval`, so it works the same from TypeScript sources (tsx, Vitest) and from
// the bundle. Statements are prepared once per SQL text; the cache is bounded.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
for (const pragma of workerData.pragmas) db.pragma(pragma);
const statements = new Map();
parentPort.on('message', ({ id, sql, parameters }) => {
  try {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      if (statements.size > 500) statements.clear();
      statements.set(sql, statement);
    }
    parentPort.postMessage({ id, result: statement.reader ? statement.all(...parameters) : (statement.run(...parameters), []) });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: error.message, code: error.code } });
  }
});
`;

class WorkerReaders implements Readers {
  readonly offMainThread = true;
  private readonly pool: WorkerPool;

  constructor(file: string, options: ReaderOptions) {
    this.pool = new WorkerPool(
      () => ({
        source: WORKER_SOURCE,
        eval: true,
        workerData: { file, driver: createRequire(import.meta.url).resolve('better-sqlite3'), pragmas: options.pragmas ?? [] },
      }),
      options.threads,
    );
  }

  all<R>(query: CompiledQuery): Promise<R[]> {
    return this.pool.call<R[]>({ sql: query.sql, parameters: query.parameters });
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

export function createReaders(db: Database, options: ReaderOptions): Readers {
  const sqlite = db.raw.sqlite;
  if (sqlite && !sqlite.memory) return new WorkerReaders(sqlite.name, options);
  return {
    offMainThread: false,
    async all<R>(query: CompiledQuery) {
      return (await db.kysely.executeQuery(query)).rows as R[];
    },
    async close() {},
  };
}
