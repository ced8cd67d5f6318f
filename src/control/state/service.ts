// State snapshots: the whole database (or one client's rows) as one versioned JSON document, imported
// all-or-nothing, and reset. The version is the name of the last migration the exporting server had,
// so an older document is brought forward by the same migrations that upgrade a database.
import { type Kysely, sql } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import { SLICE_MS, TimeSlicer } from '../../platform/cooperative.js';
import type { Database, Engine } from '../../platform/db/index.js';
import { openDatabase } from '../../platform/db/index.js';
import { createMigrator, type MigrationSet } from '../../platform/db/migrate.js';
import { AppError, bodyField, invalid, notFound } from '../../platform/errors.js';
import { listTables, OWNED_THROUGH, resetSequences, type TableInfo } from './tables.js';

export const STATE_FORMAT = 'edgeplane-state';
// The operator token is the server's own credential, not test data: never exported, never replaced.
const SERVER_SETTINGS = new Set(['operator_token_hash']);

export type Row = Record<string, unknown>;

export interface StateDocument {
  format: typeof STATE_FORMAT;
  version: string;
  exportedAt: string;
  clientId: number | null;
  tables: Record<string, Row[]>;
}

export class StateService {
  constructor(
    private readonly db: Database,
    private readonly migrations: MigrationSet,
    private readonly clock: Clock,
    /** Told which clients' rows changed under the products' feet, so per-node caches drop them. */
    private readonly invalidate: (clientIds: number[]) => void = () => {},
  ) {}

  /** The schema version this server writes and reads: its last migration's name. */
  latestVersion(): string {
    return Object.keys(this.migrations(this.db.engine)).sort().at(-1) ?? '000';
  }

  /**
   * The state document as JSON text, in pieces: tables are read a page of rows at a time (by primary key),
   * so an export of any size never holds the whole document, or a whole table, in memory.
   */
  async exportChunks(clientId?: number): Promise<AsyncIterable<string>> {
    const tables = await listTables(this.db.kysely, this.db.engine);
    if (clientId !== undefined && !(await this.clientExists(clientId))) throw notFound('Client');
    const header = { format: STATE_FORMAT, version: this.latestVersion(), exportedAt: this.clock.date().toISOString(), clientId: clientId ?? null };
    const db = this.db.kysely;
    // SQLite answers in process: without turns of the event loop between pages, the export of a large
    // database held the main thread from its first row to its last (0.2 s for the fuzzer's database).
    const slicer = new TimeSlicer(SLICE_MS, 1);
    return (async function* () {
      yield `${JSON.stringify(header).slice(0, -1)},"tables":{`;
      let firstTable = true;
      for (const table of tables) {
        const scope = scoped(table, clientId);
        if (scope === null) continue;
        yield `${firstTable ? '' : ','}${JSON.stringify(table.name)}:[`;
        firstTable = false;
        // Rows go out in pieces of about EXPORT_CHUNK characters: a page joined whole grew with its rows
        // (500 rows of a megabyte each would pass V8's longest string).
        let piece = '';
        let firstRow = true;
        for await (const rows of pagesOf(db, table, scope)) {
          for (const row of rows) {
            piece += (firstRow ? '' : ',') + JSON.stringify(encodeRow(row));
            firstRow = false;
            if (piece.length >= EXPORT_CHUNK) {
              yield piece;
              piece = '';
            }
            if (slicer.spent()) await slicer.nextSlice();
          }
        }
        yield `${piece}]`;
        if (slicer.spent()) await slicer.nextSlice();
      }
      yield '}}';
    })();
  }

  /** Replaces everything (or, for a one-client document, that client's rows) in one transaction. */
  async import(document: StateDocument): Promise<{ tables: number; rows: number }> {
    const current = await this.upgrade(document);
    const tables = await listTables(this.db.kysely, this.db.engine);
    checkShape(current.tables, tables);
    const clientId = current.clientId ?? undefined;
    let rows = 0;
    const before = await this.clientIds();
    try {
      await this.db.kysely.transaction().execute(async (trx) => {
        for (const table of [...tables].reverse()) await deleteRows(trx, table, clientId);
        for (const table of tables) rows += await insertRows(trx, table, current.tables[table.name] ?? [], this.db.engine);
        if (this.db.engine === 'postgres') await resetSequences(trx, tables);
      });
    } catch (error) {
      throw new AppError('conflict', `import failed, nothing was changed: ${(error as Error).message}`, { cause: error });
    }
    this.invalidate([...new Set([...before, ...(await this.clientIds())])]);
    return { tables: Object.keys(current.tables).length, rows };
  }

  /** Deletes every row (the operator token stays), or one client's rows. */
  async reset(clientId?: number): Promise<void> {
    if (clientId !== undefined && !(await this.clientExists(clientId))) throw notFound('Client');
    const tables = await listTables(this.db.kysely, this.db.engine);
    const before = clientId === undefined ? await this.clientIds() : [clientId];
    await this.db.kysely.transaction().execute(async (trx) => {
      for (const table of [...tables].reverse()) await deleteRows(trx, table, clientId);
    });
    this.invalidate(before);
  }

  /** Rows per table, for /_edgeplane/info. */
  async counts(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const table of await listTables(this.db.kysely, this.db.engine)) {
      const row = await this.db.kysely
        .selectFrom(table.name)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst();
      out[table.name] = Number(row?.n ?? 0);
    }
    return out;
  }

  private async clientIds(): Promise<number[]> {
    return (await this.db.kysely.selectFrom('clients').select('id').execute()).map((r) => Number(r.id));
  }

  private async clientExists(clientId: number): Promise<boolean> {
    return (await this.db.kysely.selectFrom('clients').select('id').where('id', '=', clientId).executeTakeFirst()) !== undefined;
  }

  /**
   * A document from an older schema is loaded into a scratch in-memory database at its own version,
   * migrated to this server's latest, and read back; a newer or unknown version is refused.
   */
  private async upgrade(document: StateDocument): Promise<StateDocument> {
    checkEnvelope(document);
    const names = Object.keys(this.migrations('sqlite')).sort();
    const latest = this.latestVersion();
    if (document.version === latest) return document;
    if (document.version > latest) {
      throw invalid([
        bodyField(
          ['version'],
          `the document comes from a newer Edgeplane (schema ${document.version}); this server reads schema ${latest} and older: upgrade this server`,
          'version',
        ),
      ]);
    }
    if (!names.includes(document.version)) throw invalid([bodyField(['version'], `unknown schema version ${document.version}`, 'version')]);
    const scratch = await openDatabase({ memory: true, dataDir: '.' });
    try {
      const migrator = await createMigrator(scratch, this.migrations);
      await must(migrator.migrateTo(document.version));
      const old = await listTables(scratch.kysely, 'sqlite');
      checkShape(document.tables, old);
      await scratch.kysely.transaction().execute(async (trx) => {
        for (const table of old) await insertRows(trx, table, document.tables[table.name] ?? [], 'sqlite');
      });
      await must(migrator.migrateToLatest());
      const tables: Record<string, Row[]> = {};
      for (const table of await listTables(scratch.kysely, 'sqlite')) {
        const rows = await readRows(scratch.kysely, table, document.clientId ?? undefined);
        if (rows) tables[table.name] = rows;
      }
      return { ...document, version: latest, tables };
    } finally {
      await scratch.close();
    }
  }
}

async function must(result: Promise<{ error?: unknown }>): Promise<void> {
  const { error } = await result;
  if (error) throw new AppError('validation_failed', `the document could not be migrated: ${(error as Error).message ?? String(error)}`, { cause: error });
}

function checkEnvelope(document: StateDocument): void {
  if (document.format !== STATE_FORMAT) throw invalid([bodyField(['format'], `expected "${STATE_FORMAT}"`, 'value_error')]);
}

/** Every table and column of the document must exist here: nothing is silently dropped. */
function checkShape(documentTables: Record<string, Row[]>, tables: TableInfo[]): void {
  const byName = new Map(tables.map((t) => [t.name, new Set(t.columns)]));
  const problems = [];
  for (const [name, rows] of Object.entries(documentTables)) {
    const columns = byName.get(name);
    if (!columns) {
      problems.push(bodyField(['tables', name], 'no such table in this schema version', 'value_error'));
      continue;
    }
    const unknown = new Set(rows.flatMap((row) => Object.keys(row).filter((c) => !columns.has(c))));
    if (unknown.size > 0) problems.push(bodyField(['tables', name], `unknown columns: ${[...unknown].join(', ')}`, 'value_error'));
  }
  if (problems.length > 0) throw invalid(problems);
}

type Scope =
  'all' | { column: string; equals: unknown } | { column: string; notIn: Set<string> } | { column: string; inParentOf: { table: string; clientId: number } };

/** Which rows of a table belong to the scope: all, or one client's (null: the table is not per client). */
function scoped(table: TableInfo, clientId: number | undefined): Scope | null {
  if (clientId === undefined) return table.name === 'settings' ? { column: 'key', notIn: SERVER_SETTINGS } : 'all';
  if (table.name === 'clients') return { column: 'id', equals: clientId };
  if (table.columns.includes('client_id')) return { column: 'client_id', equals: clientId };
  const owner = OWNED_THROUGH[table.name];
  if (owner) return { column: owner.key, inParentOf: { table: owner.parent, clientId } };
  return null;
}

/** The WHERE clause of a scope, on a select or a delete. */
function within<Q extends { where: (...args: any[]) => Q }>(db: Kysely<any>, query: Q, scope: Scope): Q {
  if (scope === 'all') return query;
  if ('equals' in scope) return query.where(scope.column, '=', scope.equals);
  if ('notIn' in scope) return query.where(scope.column, 'not in', [...scope.notIn]);
  const parentKeys = db.selectFrom(scope.inParentOf.table).select(scope.column).where('client_id', '=', scope.inParentOf.clientId);
  return query.where(scope.column, 'in', parentKeys);
}

async function readRows(db: Kysely<any>, table: TableInfo, clientId: number | undefined): Promise<Row[] | null> {
  const scope = scoped(table, clientId);
  if (scope === null) return null;
  const rows: Row[] = [];
  for await (const page of pagesOf(db, table, scope)) rows.push(...page.map(encodeRow));
  return rows;
}

/** Rows a page holds at most; pages start smaller and are sized by the bytes of the page before. */
const EXPORT_PAGE = 500;
const FIRST_PAGE = 16;
/** Bytes of rows a page aims at: WAAP event parts and old rows can be large, and a page is held whole. */
const EXPORT_PAGE_BYTES = 4 * 1024 * 1024;
/** Characters of the document handed to the response at a time. */
const EXPORT_CHUNK = 256 * 1024;

/** Roughly what a row weighs in memory and in the document. */
function rowBytes(row: Row): number {
  let bytes = 0;
  for (const value of Object.values(row)) {
    if (typeof value === 'string') bytes += value.length;
    else if (Buffer.isBuffer(value)) bytes += value.length * 1.4;
    else bytes += 8;
  }
  return bytes;
}

/**
 * A table's rows in scope, a page at a time, in primary-key order (keyset paging: each page is one indexed
 * read). The page size follows the rows' size, so a page holds about EXPORT_PAGE_BYTES however big they are.
 */
async function* pagesOf(db: Kysely<any>, table: TableInfo, scope: Scope): AsyncIterable<Row[]> {
  const key = table.primaryKey.length > 0 ? table.primaryKey : table.columns;
  let after: unknown[] | undefined;
  let limit = FIRST_PAGE;
  for (;;) {
    let query = within(db, db.selectFrom(table.name).selectAll(), scope);
    if (after) query = query.where(sql<boolean>`(${sql.join(key.map((c) => sql.ref(c)))}) > (${sql.join(after)})`);
    for (const column of key) query = query.orderBy(column);
    const rows = (await query.limit(limit).execute()) as Row[];
    if (rows.length > 0) yield rows;
    if (rows.length < limit) return;
    const last = rows[rows.length - 1];
    after = key.map((column) => last[column]);
    const perRow = rows.reduce((n, row) => n + rowBytes(row), 0) / rows.length;
    limit = Math.max(1, Math.min(EXPORT_PAGE, limit * 4, Math.floor(EXPORT_PAGE_BYTES / Math.max(1, perRow))));
  }
}

async function deleteRows(db: Kysely<any>, table: TableInfo, clientId: number | undefined): Promise<void> {
  const scope = scoped(table, clientId);
  if (scope === null) return;
  await within(db, db.deleteFrom(table.name), scope).execute();
}

async function insertRows(db: Kysely<any>, table: TableInfo, rows: Row[], engine: Engine): Promise<number> {
  const kept = table.name === 'settings' ? rows.filter((r) => !SERVER_SETTINGS.has(String(r.key))) : rows;
  if (kept.length === 0) return 0;
  // Both engines cap bound parameters per statement; stay well under the smaller cap.
  const chunk = Math.max(1, Math.floor(8000 / Math.max(1, table.columns.length)));
  for (let i = 0; i < kept.length; i += chunk) {
    await db
      .insertInto(table.name)
      .values(kept.slice(i, i + chunk).map((r) => decodeRow(r, engine)))
      .execute();
  }
  return kept.length;
}

/** JSON-safe row: binary columns become {"$base64": ...}, dates ISO text. */
function encodeRow(row: Row): Row {
  const out: Row = {};
  for (const [key, value] of Object.entries(row)) {
    if (Buffer.isBuffer(value)) out[key] = { $base64: value.toString('base64') };
    else if (typeof value === 'bigint') out[key] = Number(value);
    else out[key] = value;
  }
  return out;
}

function decodeRow(row: Row, engine: Engine): Row {
  const out: Row = {};
  for (const [key, value] of Object.entries(row)) {
    if (value && typeof value === 'object' && '$base64' in value) out[key] = Buffer.from(String((value as { $base64: string }).$base64), 'base64');
    else if (engine === 'sqlite' && typeof value === 'boolean') out[key] = value ? 1 : 0;
    else if (value && typeof value === 'object') out[key] = JSON.stringify(value);
    else out[key] = value;
  }
  return out;
}
