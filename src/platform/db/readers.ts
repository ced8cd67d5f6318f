// Where long reads run. better-sqlite3 answers synchronously, so a count or an aggregation over millions
// of rows on the main thread would hold up every other request for its duration. With a SQLite file,
// such reads go to worker threads, each with its own read-only connection (WAL lets them read beside the
// writer). An in-memory database cannot be opened twice and PostgreSQL is asynchronous already: those
// read on the main connection. Used by the products whose reads can be long (WAAP log, CDN analytics).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { CompiledQuery } from 'kysely';
import type { Database } from './index.js';

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
    parentPort.postMessage({ id, rows: statement.reader ? statement.all(...parameters) : (statement.run(...parameters), []) });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: error.message, code: error.code } });
  }
});
`;

interface Pending {
  resolve(rows: unknown[]): void;
  reject(error: Error): void;
}

class WorkerReaders implements Readers {
  readonly offMainThread = true;
  private readonly workers: { worker: Worker; pending: Map<number, Pending> }[] = [];
  private next = 0;
  private ids = 0;

  constructor(
    private readonly file: string,
    private readonly options: ReaderOptions,
  ) {}

  // The threads start with the first read, not with the server: starting them costs CPU time that
  // start-up would otherwise share with them, for products many runs never query.
  private start(): void {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    for (let i = 0; i < this.options.threads; i += 1) {
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file: this.file, driver, pragmas: this.options.pragmas ?? [] } });
      const pending = new Map<number, Pending>();
      worker.on('message', ({ id, rows, error }: { id: number; rows?: unknown[]; error?: { message: string; code?: string } }) => {
        const waiting = pending.get(id);
        pending.delete(id);
        if (pending.size === 0) worker.unref();
        if (!waiting) return;
        if (error) waiting.reject(Object.assign(new Error(error.message), { code: error.code }));
        else waiting.resolve(rows ?? []);
      });
      // A dead worker fails what it was doing; the next reads go to the others or surface the error.
      worker.on('error', (error) => {
        for (const waiting of pending.values()) waiting.reject(error);
        pending.clear();
        worker.unref();
      });
      // An idle worker must not keep the process alive; a busy one must, or a script awaiting its
      // answer would see the process exit under it.
      worker.unref();
      this.workers.push({ worker, pending });
    }
  }

  all<R>(query: CompiledQuery): Promise<R[]> {
    if (this.workers.length === 0) this.start();
    // The least busy worker; ties go round-robin.
    let chosen = this.workers[this.next++ % this.workers.length];
    for (const candidate of this.workers) if (candidate.pending.size < chosen.pending.size) chosen = candidate;
    const id = ++this.ids;
    return new Promise<R[]>((resolve, reject) => {
      chosen.pending.set(id, { resolve: resolve as (rows: unknown[]) => void, reject });
      chosen.worker.ref();
      chosen.worker.postMessage({ id, sql: query.sql, parameters: query.parameters });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map(({ worker }) => worker.terminate()));
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
