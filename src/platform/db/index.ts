// One data layer over two engines: embedded SQLite (default) and PostgreSQL (EDGEPLANE_DATABASE_URL).
// Stores write Kysely queries once; the few engine differences (auto-increment ids, upserts) are asked
// of `engine` in migrations and stores.
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import {
  Kysely,
  type LimitNode,
  type OffsetNode,
  PostgresDialect,
  SqliteDialect,
  type SqliteDialectConfig,
  type SqliteDatabase,
  type Driver,
  SqliteQueryCompiler,
  type SqliteStatement,
  sql,
  CompiledQuery,
} from 'kysely';
import type pg from 'pg';
import { DEFAULT_DATABASE_LOCK_TIMEOUT, DEFAULT_DATABASE_PIPE, DEFAULT_DATABASE_POOL } from '../../config.js';
import { fixedShape } from '../fixed-shape.js';
import { type AsClient, ClientShares, unshared } from './client-shares.js';
import { pipelineTransactions, forgetHeldBegin } from './pipelined-transactions.js';
import { MAX_NAMED, nameStatements, StatementNames } from './named-statements.js';
import { HELD_UP_MS, Pipe, pipedKysely } from './pipelined.js';
import { PatientSqliteDriver } from './sqlite-busy.js';

// The PostgreSQL driver is loaded only when a database URL asks for it: SQLite starts faster without it.
const loadPg = async () => (await import('pg')).default;

export type Engine = 'sqlite' | 'postgres';

export interface Database {
  readonly kysely: Kysely<any>;
  readonly engine: Engine;
  /** Where the data lives, for logs and /_edgeplane/info (never includes a password). */
  readonly location: string;
  /** Raw driver handles for the few hot paths Kysely would slow down (bulk ingestion). Exactly one is set. */
  readonly raw: { sqlite?: SQLite.Database; pg?: pg.Pool };
  /** How another connection reaches the same data (threads open their own): a SQLite file, or PostgreSQL. */
  readonly connection: { sqliteFile: string | null } | { postgresUrl: string; schema: string | undefined };
  /**
   * Runs `work` (a transaction, or a `connection()` scope) as one of `clientId`'s: on PostgreSQL one
   * client's work holds at most all but one of the pool's connections at once (client-shares.ts), so a
   * client whose rows another session holds cannot take every connection from the others. Work started
   * inside it must not wait for another share of the same client's (it would wait for itself).
   */
  readonly asClient: AsClient;
  ping(): Promise<void>;
  /**
   * Gives back what the engine holds in this process only to read faster: SQLite's page cache (up to
   * 16 MiB a connection as better-sqlite3 builds it; the next reads fetch their pages from the file, and
   * an in-memory database keeps every page, its data). Nothing on PostgreSQL, whose cache is the server's.
   */
  releaseMemory(): void;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl?: string;
  databaseSchema?: string;
  dataDir: string;
  memory: boolean;
  /** PostgreSQL: connections open at most for transactions (DEFAULT_DATABASE_POOL). */
  databasePool?: number;
  /** PostgreSQL: shared connections for statements outside transactions (pipelined.ts); 0 sends those over the pool. */
  databasePipe?: number;
  /** PostgreSQL: how many distinct statement texts are prepared once per connection (named-statements.ts). */
  databaseStatements?: number;
  /**
   * PostgreSQL: how long a shared connection may answer nothing before statements go elsewhere (HELD_UP_MS).
   * Not a setting: tests that check which connection a statement ran on raise it above any pause of theirs.
   */
  databasePipeHeldUpMs?: number;
  /** PostgreSQL: how long (ms) a statement may wait for a lock (DEFAULT_DATABASE_LOCK_TIMEOUT; 0: no limit). */
  databaseLockTimeout?: number;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options.databaseSchema, {
        pool: options.databasePool ?? DEFAULT_DATABASE_POOL,
        pipe: options.databasePipe ?? DEFAULT_DATABASE_PIPE,
        statements: options.databaseStatements ?? MAX_NAMED,
        heldUpMs: options.databasePipeHeldUpMs ?? HELD_UP_MS,
        lockTimeoutMs: options.databaseLockTimeout ?? DEFAULT_DATABASE_LOCK_TIMEOUT,
      })
    : openSqlite(options);
}

function openSqlite({ dataDir, memory }: DatabaseOptions): Database {
  let file = ':memory:';
  if (!memory) {
    fs.mkdirSync(dataDir, { recursive: true });
    // Absolute, so the start banner and the generators name the file wherever they were started from.
    file = path.join(path.resolve(dataDir), 'edgeplane.sqlite');
  }
  const connection = new SQLite(file);
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = NORMAL');
  connection.pragma('foreign_keys = ON');
  // Never wait for another process's write lock inside a call, which stops the event loop: statements
  // refused as busy are tried again between turns of it (sqlite-busy.ts).
  connection.pragma('busy_timeout = 0');
  const kysely = new Kysely<any>({ dialect: new StableSqliteDialect({ database: preparedOnce(connection) }, connection) });
  return {
    kysely,
    engine: 'sqlite',
    location: memory ? 'sqlite (in memory)' : `sqlite ${file}`,
    raw: { sqlite: connection },
    connection: { sqliteFile: memory ? null : file },
    asClient: unshared,
    async ping() {
      await sql`select 1`.execute(kysely);
    },
    releaseMemory() {
      if (connection.open) connection.pragma('shrink_memory');
    },
    async close() {
      await kysely.destroy();
    },
  };
}

/**
 * SQLite reads a bound LIMIT or OFFSET when it plans a query (since 3.46), and marks the statement to
 * be prepared again whenever that parameter is bound: every run of a list query was re-planned (a
 * one-row project list took 13 us instead of 4, and 74 us of the request's 222 us under load). Written
 * `limit +?`, the value is an expression SQLite does not read at plan time, so the statement stays
 * prepared; the unary plus changes nothing else.
 */
class StableLimitCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    this.append('limit +');
    this.visitNode(node.limit);
  }

  protected override visitOffset(node: OffsetNode): void {
    this.append('offset +');
    this.visitNode(node.offset);
  }
}

class StableSqliteDialect extends SqliteDialect {
  constructor(
    private readonly settings: SqliteDialectConfig,
    private readonly connection: SQLite.Database,
  ) {
    super(settings);
  }

  override createQueryCompiler(): SqliteQueryCompiler {
    return new StableLimitCompiler();
  }

  override createDriver(): Driver {
    return new PatientSqliteDriver(this.settings, this.connection);
  }
}

/** How many prepared statements a SQLite connection keeps (queries with lists of other lengths are other texts). */
const STATEMENT_CACHE = 1_000;

/**
 * The connection as Kysely's SQLite dialect sees it, with each statement prepared once: the dialect
 * prepares the SQL text of every query it runs, and preparing was the largest share of a request's CPU
 * time (12 of 141 s in a fuzzing run). Kysely runs one query at a time on the connection, so a statement
 * is never reused while another run of it is still being read. Least recently used statements go first.
 */
export function preparedOnce(connection: SQLite.Database): SqliteDatabase & { prepare(sql: string): SqliteStatement } {
  const statements = new Map<string, SqliteStatement>();
  return {
    prepare(text: string) {
      let statement = statements.get(text);
      if (statement) {
        statements.delete(text);
      } else {
        statement = rowsBuiltInScript(connection.prepare(text));
        if (statements.size >= STATEMENT_CACHE) statements.delete(statements.keys().next().value!);
      }
      statements.set(text, statement);
      return statement;
    },
    close() {
      statements.clear();
      connection.close();
    },
  };
}

/**
 * A reading statement whose rows are read as arrays of cells (better-sqlite3's raw mode) and made into
 * objects by a maker written for its columns (fixedShape). better-sqlite3 sets a row object's properties
 * one by one from C++: 100 rows of 23 columns took 1.2 ms that way, 0.5 ms this way, for the same
 * objects (same keys in the same order; a repeated name keeps its last value, as there). Statements that
 * write keep their own form, as do those with a `__proto__` column (better-sqlite3 sets the prototype).
 */
function rowsBuiltInScript(statement: SQLite.Statement): SqliteStatement {
  if (!statement.reader) return statement;
  const columns = () => statement.columns().map((column) => column.name);
  let names = columns();
  if (names.includes('__proto__')) return statement;
  let row = fixedShape(names);
  statement.raw(true);
  // SQLite prepares a statement again when the schema changed since (migrations): `select *` may then
  // give other columns, which the cells' count shows.
  const rowOf = (cells: unknown[]) => {
    if (cells.length !== names.length) row = fixedShape((names = columns()));
    return row(cells);
  };
  return {
    reader: true,
    all: (parameters) => (statement.all(parameters) as unknown[][]).map(rowOf),
    run: (parameters) => statement.run(parameters),
    *iterate(parameters) {
      for (const cells of statement.iterate(parameters) as IterableIterator<unknown[]>) yield rowOf(cells);
    },
  };
}

// BIGINT and NUMERIC arrive as strings by default; our values fit in a double (epoch ms, counters).
const PG_NUMERIC_TYPES = new Set([20, 1700]);

/**
 * A pool with the project's settings: the schema on the search path, BIGINT and NUMERIC as numbers.
 * Also used by threads that open their own connections.
 */
export function createPostgresPool(
  pg: typeof import('pg').default,
  url: string,
  schema: string | undefined,
  max: number,
  statements: number,
  lockTimeoutMs = DEFAULT_DATABASE_LOCK_TIMEOUT,
): pg.Pool {
  // In pipeline mode, so that a transaction's statements can share a write (pipelined-transactions.ts).
  const pool = new pg.Pool({ ...postgresClientConfig(pg, url, schema, lockTimeoutMs), pipeline: true, max } as pg.PoolConfig);
  // The statement texts the pool's connections prepare once each (named-statements.ts).
  const names = new StatementNames(statements);
  pool.on('connect', (client) => {
    // A client whose connection dies emits the error: the pool listens while the client is idle (the
    // 'error' listener below), not while a transaction holds it, and an error nobody listens to ends the
    // process. The query in flight or the next one fails on its own; the pool drops the client on release.
    client.on('error', () => {});
    nameStatements(client, names);
    pipelineTransactions(client);
  });
  pool.on('release', (_error: unknown, client: pg.PoolClient) => forgetHeldBegin(client));
  // An idle client losing its server must not crash the process either; the next query reports the failure.
  pool.on('error', () => {});
  return pool;
}

/**
 * How long PostgreSQL lets a session of ours stay idle in a transaction before it ends the session: a
 * process paused in the middle of one (stopped, its machine frozen) gives the rows it holds back. Our
 * transactions are never idle longer than a pause of the event loop (a query of the WAAP log has a budget
 * of 10 s).
 */
const IDLE_IN_TRANSACTION_MS = 30_000;

/**
 * How every connection of the project connects: the schema on the search path, the session's time limits
 * on waiting, BIGINT and NUMERIC as numbers.
 */
function postgresClientConfig(pg: typeof import('pg').default, url: string, schema: string | undefined, lockTimeoutMs: number): pg.ClientConfig {
  const settings = [
    ...(schema ? [`-c search_path="${schema}"`] : []),
    `-c lock_timeout=${lockTimeoutMs}`,
    `-c idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_MS}`,
  ];
  return {
    connectionString: url,
    options: settings.join(' '),
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        PG_NUMERIC_TYPES.has(oid) ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  };
}

interface PostgresConnections {
  pool: number;
  pipe: number;
  statements: number;
  heldUpMs: number;
  lockTimeoutMs: number;
}

async function openPostgres(url: string, schema: string | undefined, connections: PostgresConnections): Promise<Database> {
  const pg = await loadPg();
  if (schema) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`create schema if not exists "${schema}"`);
    } finally {
      await admin.end();
    }
  }
  const pool = createPostgresPool(pg, url, schema, connections.pool, connections.statements, connections.lockTimeoutMs);
  const shares = ClientShares.ofPool(connections.pool);
  const pooled = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
  const kysely = connections.pipe > 0 ? pipedKysely(pooled, openPipe(pg, url, schema, connections, pool)) : pooled;
  const safeUrl = new URL(url);
  safeUrl.password = '';
  return {
    kysely,
    engine: 'postgres',
    location: `postgres ${safeUrl.host}${safeUrl.pathname}${schema ? ` schema ${schema}` : ''}`,
    raw: { pg: pool },
    connection: { postgresUrl: url, schema },
    asClient: shares.run,
    async ping() {
      await kysely.executeQuery(CompiledQuery.raw('select 1'));
    },
    releaseMemory() {},
    async close() {
      if (kysely !== pooled) await kysely.destroy();
      await pooled.destroy();
    },
  };
}

/** The shared connections statements outside transactions are pipelined on (pipelined.ts), `pool` beside them. */
function openPipe(pg: typeof import('pg').default, url: string, schema: string | undefined, connections: PostgresConnections, pool: pg.Pool): Pipe {
  const names = new StatementNames(connections.statements);
  const config = { ...postgresClientConfig(pg, url, schema, connections.lockTimeoutMs), pipeline: true } as pg.ClientConfig;
  const overflow = (text: string, values?: unknown[]) => pool.query(text, values);
  const open = () => {
    const client = new pg.Client(config);
    nameStatements(client, names);
    return client;
  };
  return new Pipe(open, connections.pipe, overflow, connections.heldUpMs);
}

/** Drops a PostgreSQL schema and everything in it (test clean-up). */
export async function dropPostgresSchema(url: string, schema: string): Promise<void> {
  const pg = await loadPg();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await admin.end();
  }
}
