// A reader thread of the request-event log: its own connection (read-only SQLite, or a small PostgreSQL
// pool) and its own cache of decoded blocks; runs whole queries so the main thread only gets results.
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { createPostgresPool } from '../../../platform/db/index.js';
import { lowerThreadPriority, serveWorkerCalls } from '../../../platform/workers.js';
import { BlockCache, runAsync, runSync } from './reader.js';
import { type QueryName, startQuery } from './queries.js';
import { PostgresBlockReads, SqliteBlockReads } from './reads.js';

export interface QueryWorkerData {
  sqliteFile?: string;
  postgresUrl?: string;
  schema?: string;
  cacheBytes: number;
}

// When the CPU is short, the main thread's short requests come first.
lowerThreadPriority();
const data = workerData as QueryWorkerData;
const cache = new BlockCache(data.cacheBytes);
type Run = (name: QueryName, args: unknown[], deadline: number | undefined) => Promise<unknown>;

function sqliteRunner(file: string): Run {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  // Parts are read as whole blobs; memory-mapped reads spare a copy through SQLite's page cache.
  db.pragma('mmap_size = 1073741824');
  db.pragma('cache_size = -65536');
  const reads = new SqliteBlockReads(db);
  return async (name, args, deadline) => reads.snapshot(() => runSync(startQuery(name, args as never), reads, cache, deadline));
}

function postgresRunner(url: string, schema: string | undefined): Run {
  // The driver loads with the first query (a bundle turns this import into a require).
  // Its reads are few and long, sent through the pool's own query (never named): nothing to prepare.
  const pool = import('pg').then(({ default: pg }) => createPostgresPool(pg, url, schema, 2, 0));
  return async (name, args, deadline) =>
    PostgresBlockReads.snapshot(await pool, (reads) => runAsync(startQuery(name, args as never), reads, cache, deadline), deadline);
}

const run = data.sqliteFile ? sqliteRunner(data.sqliteFile) : postgresRunner(data.postgresUrl!, data.schema);

serveWorkerCalls(parentPort!, (message) => run(message.name as QueryName, message.args as unknown[], message.deadline as number | undefined));
