// What the state document is made of: every table of the database (except the migrator's own and those
// triggers derive from other tables), its columns, and the order foreign keys impose. Read from the catalogue, so new products' tables are
// exported, imported and reset without this code knowing them.
import { type Kysely, sql } from 'kysely';
import type { Engine } from '../../platform/db/index.js';

export interface TableInfo {
  name: string;
  columns: string[];
  /** Tables this one references (they must be filled before it and emptied after it). */
  references: string[];
  /** Columns filled by a PostgreSQL sequence (reset after an import). */
  serialColumns: string[];
  /** The primary key's columns, in key order (empty when the table has none). */
  primaryKey: string[];
}

const INTERNAL = /^(kysely_migration|sqlite_)/;

/**
 * Tables without a client_id whose rows belong to a client through a row of another table with the same
 * key (a record's bulky part kept apart from its list columns). They count as referencing that table,
 * so they are filled after it and emptied before it.
 */
export const OWNED_THROUGH: Readonly<Record<string, { parent: string; key: string }>> = {
  ddos_event_log_details: { parent: 'ddos_event_logs', key: 'id' },
  waap_event_parts: { parent: 'waap_event_blocks', key: 'block_id' },
};

/**
 * Tables whose rows belong to no client: server settings and shared reference data. A table that is
 * neither here, nor has a client_id, nor is OWNED_THROUGH would be left out of one-client export, import
 * and reset: a test fails for it (src/control/state/ownership.test.ts).
 */
export const SHARED_TABLES: Readonly<Record<string, string>> = {
  settings: 'server settings (the operator token hash is never exported)',
};

/**
 * Tables the database keeps from other tables' rows by triggers: never exported, imported or reset on
 * their own (writing the rows they derive from keeps them), or an import would count those rows twice.
 */
export const DERIVED_TABLES: Readonly<Record<string, string>> = {
  cloud_usage: 'what each client uses of each kind of cloud resource per region, kept by triggers on cloud_resources',
};

export async function listTables(db: Kysely<any>, engine: Engine): Promise<TableInfo[]> {
  const tables = (engine === 'sqlite' ? await sqliteTables(db) : await postgresTables(db)).filter((t) => !(t.name in DERIVED_TABLES));
  for (const table of tables) {
    const owner = OWNED_THROUGH[table.name];
    if (owner && !table.references.includes(owner.parent)) table.references.push(owner.parent);
  }
  return dependencyOrder(tables.filter((t) => !INTERNAL.test(t.name)));
}

async function sqliteTables(db: Kysely<any>): Promise<TableInfo[]> {
  const names = await sql<{ name: string }>`select name from sqlite_master where type = 'table' order by name`.execute(db);
  const out: TableInfo[] = [];
  for (const { name } of names.rows) {
    if (INTERNAL.test(name)) continue;
    const columns = await sql<{ name: string; pk: number }>`select name, pk from pragma_table_info(${name}) order by cid`.execute(db);
    const keys = await sql<{ table: string }>`select "table" from pragma_foreign_key_list(${name})`.execute(db);
    const primaryKey = columns.rows
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    out.push({ name, columns: columns.rows.map((c) => c.name), references: [...new Set(keys.rows.map((k) => k.table))], serialColumns: [], primaryKey });
  }
  return out;
}

async function postgresTables(db: Kysely<any>): Promise<TableInfo[]> {
  const columns = await sql<{ table_name: string; column_name: string; column_default: string | null }>`
    select c.table_name, c.column_name, c.column_default
    from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
    order by c.table_name, c.ordinal_position`.execute(db);
  const keys = await sql<{ child: string; parent: string }>`
    select distinct tc.table_name as child, ccu.table_name as parent
    from information_schema.table_constraints tc
    join information_schema.constraint_column_usage ccu
      on ccu.constraint_name = tc.constraint_name and ccu.constraint_schema = tc.constraint_schema
    where tc.constraint_type = 'FOREIGN KEY' and tc.table_schema = current_schema()`.execute(db);
  const primaryKeys = await sql<{ table_name: string; column_name: string }>`
    select kcu.table_name, kcu.column_name
    from information_schema.table_constraints tc
    join information_schema.key_column_usage kcu
      on kcu.constraint_name = tc.constraint_name and kcu.constraint_schema = tc.constraint_schema
    where tc.constraint_type = 'PRIMARY KEY' and tc.table_schema = current_schema()
    order by kcu.table_name, kcu.ordinal_position`.execute(db);
  const tables = new Map<string, TableInfo>();
  for (const row of columns.rows) {
    let table = tables.get(row.table_name);
    if (!table) tables.set(row.table_name, (table = { name: row.table_name, columns: [], references: [], serialColumns: [], primaryKey: [] }));
    table.columns.push(row.column_name);
    if (row.column_default?.startsWith('nextval(')) table.serialColumns.push(row.column_name);
  }
  for (const key of keys.rows) {
    const table = tables.get(key.child);
    if (table && key.parent !== key.child) table.references.push(key.parent);
  }
  for (const key of primaryKeys.rows) tables.get(key.table_name)?.primaryKey.push(key.column_name);
  return [...tables.values()];
}

/** Parents before children (alphabetical otherwise, so documents are stable). */
export function dependencyOrder(tables: TableInfo[]): TableInfo[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const done = new Set<string>();
  const out: TableInfo[] = [];
  const visit = (table: TableInfo, path: Set<string>) => {
    if (done.has(table.name) || path.has(table.name)) return;
    path.add(table.name);
    for (const parent of [...table.references].sort()) {
      const info = byName.get(parent);
      if (info) visit(info, path);
    }
    done.add(table.name);
    out.push(table);
  };
  for (const table of [...tables].sort((a, b) => a.name.localeCompare(b.name))) visit(table, new Set());
  return out;
}

/** After rows arrive with explicit ids, PostgreSQL sequences must move past them or the next insert collides. */
export async function resetSequences(db: Kysely<any>, tables: TableInfo[]): Promise<void> {
  for (const table of tables) {
    for (const column of table.serialColumns) {
      await sql`select setval(pg_get_serial_sequence(${table.name}, ${column}), coalesce((select max(${sql.ref(column)}) from ${sql.table(table.name)}), 0) + 1, false)`.execute(
        db,
      );
    }
  }
}
