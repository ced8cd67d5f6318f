// Where the log's reads run. better-sqlite3 answers synchronously, so a count over millions of events
// on the main thread would hold up every other request for its duration. With a SQLite file, reads go
// to worker threads with their own read-only connections (WAL lets them read beside the writer). An
// in-memory database cannot be opened twice and PostgreSQL is asynchronous already: those read in place.
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { CompiledQuery } from 'kysely';
import type { Database } from '../../platform/db/index.js';

export interface Readers {
  all<R>(query: CompiledQuery): Promise<R[]>;
  close(): Promise<void>;
}

// CommonJS evaluated in the worker, so it runs the same from sources (tsx, Vitest) and from dist/.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('cache_size = -131072');
db.pragma('mmap_size = 1073741824');
const prepared = new Map();
parentPort.on('message', ({ id, sql, parameters }) => {
  try {
    let statement = prepared.get(sql);
    if (!statement) {
      if (prepared.size > 500) prepared.clear();
      statement = db.prepare(sql);
      prepared.set(sql, statement);
    }
    parentPort.postMessage({ id, rows: statement.reader ? statement.all(...parameters) : (statement.run(...parameters), []) });
  } catch (error) {
    parentPort.postMessage({ id, error: error.message });
  }
});
`;

interface Waiting {
  resolve(rows: unknown[]): void;
  reject(error: Error): void;
}

class WorkerReaders implements Readers {
  private readonly pool: { worker: Worker; waiting: Map<number, Waiting> }[] = [];
  private sequence = 0;

  constructor(file: string, size: number) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    for (let i = 0; i < size; i += 1) {
      const worker = new Worker(WORKER, { eval: true, workerData: { file, driver } });
      const waiting = new Map<number, Waiting>();
      worker.on('message', ({ id, rows, error }: { id: number; rows?: unknown[]; error?: string }) => {
        const entry = waiting.get(id);
        waiting.delete(id);
        // Only a busy worker may keep the process alive.
        if (waiting.size === 0) worker.unref();
        if (error !== undefined) entry?.reject(new Error(error));
        else entry?.resolve(rows ?? []);
      });
      worker.on('error', (error) => {
        for (const entry of waiting.values()) entry.reject(error);
        waiting.clear();
      });
      worker.unref();
      this.pool.push({ worker, waiting });
    }
  }

  all<R>(query: CompiledQuery): Promise<R[]> {
    let chosen = this.pool[0];
    for (const candidate of this.pool) if (candidate.waiting.size < chosen.waiting.size) chosen = candidate;
    const id = ++this.sequence;
    return new Promise<R[]>((resolve, reject) => {
      chosen.waiting.set(id, { resolve: resolve as (rows: unknown[]) => void, reject });
      chosen.worker.ref();
      chosen.worker.postMessage({ id, sql: query.sql, parameters: query.parameters });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.pool.map(({ worker }) => worker.terminate()));
  }
}

export function createReaders(db: Database): Readers {
  const sqlite = db.raw.sqlite;
  if (sqlite && !sqlite.memory) return new WorkerReaders(sqlite.name, Math.max(2, Math.min(4, cpus().length)));
  return {
    async all<R>(query: CompiledQuery) {
      return (await db.kysely.executeQuery(query)).rows as R[];
    },
    async close() {},
  };
}
