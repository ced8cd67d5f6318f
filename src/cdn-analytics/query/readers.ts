// Where analytic reads run. Aggregating months of access records can take a while, and better-sqlite3
// answers synchronously: on the main thread it would stall every other request meanwhile. So with a
// SQLite file, reads go to worker threads, each with its own read-only connection (WAL lets readers
// run beside the writer). PostgreSQL reads are asynchronous already, and an in-memory SQLite database
// cannot be opened twice, so those run on the main connection.
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { CompiledQuery } from 'kysely';
import type { Database } from '../../platform/db/index.js';

export interface Readers {
  /** Whether reads leave the main thread (for /_edgeplane/info-style reporting and tests). */
  readonly offMainThread: boolean;
  all<R>(query: CompiledQuery): Promise<R[]>;
  close(): Promise<void>;
}

// Plain CommonJS run with `eval`, so it works the same from TypeScript sources (tsx, Vitest) and dist/.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
const statements = new Map();
parentPort.on('message', ({ id, sql, parameters }) => {
  try {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      if (statements.size > 200) statements.clear();
      statements.set(sql, statement);
    }
    parentPort.postMessage({ id, rows: statement.all(...parameters) });
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
    private readonly size: number,
  ) {}

  // The threads start with the first read, not with the server: starting them costs CPU time that
  // start-up would otherwise share with them, for a product most runs never query.
  private start(): void {
    const { file, size } = this;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    for (let i = 0; i < size; i += 1) {
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver } });
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
    const start = this.next++ % this.workers.length;
    let chosen = this.workers[start];
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

export function createReaders(db: Database): Readers {
  const sqlite = db.raw.sqlite;
  if (sqlite && !sqlite.memory) return new WorkerReaders(sqlite.name, Math.max(1, Math.min(4, cpus().length - 1)));
  return {
    offMainThread: false,
    async all<R>(query: CompiledQuery) {
      return (await db.kysely.executeQuery(query)).rows as R[];
    },
    async close() {},
  };
}
