import { type DatabaseIntrospector, type Kysely, Migrator, sql, type Migration, type TableMetadata } from 'kysely';
import type { Database, Engine } from './index.js';

/** Migrations are written once and told which engine they run on (for the few DDL differences). */
export type MigrationSet = (engine: Engine) => Record<string, Migration>;

export async function migrateToLatest(db: Database, migrations: MigrationSet): Promise<void> {
  const schema = await currentSchema(db);
  if (await upToDate(db, Object.keys(migrations(db.engine)), schema)) return;
  const { error, results } = await migratorOf(db, migrations, schema).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`database migration ${failed ?? ''} failed: ${(error as Error).message ?? String(error)}`, { cause: error });
  }
}

/**
 * Kysely's migrator on this database: on PostgreSQL told its schema and introspecting that schema only.
 * Kysely looks for its migration tables in every schema unless told which one: another schema of the same
 * PostgreSQL database (another node's, a test's) would make it skip creating its own.
 */
export async function createMigrator(db: Database, migrations: MigrationSet): Promise<Migrator> {
  return migratorOf(db, migrations, await currentSchema(db));
}

function migratorOf(db: Database, migrations: MigrationSet, schema: string | undefined): Migrator {
  return new Migrator({
    db: schema === undefined ? db.kysely : withOneSchemaIntrospection(db.kysely, schema),
    provider: { getMigrations: async () => migrations(db.engine) },
    migrationTableSchema: schema,
  });
}

async function currentSchema(db: Database): Promise<string | undefined> {
  if (db.engine !== 'postgres') return undefined;
  return (await sql<{ name: string }>`select current_schema() as name`.execute(db.kysely)).rows[0]?.name;
}

/**
 * Whether every migration has run already, in one query: most starts are restarts, and Kysely's migrator
 * would first introspect every table and take its lock (tens of milliseconds) to find nothing to do.
 * Anything else (a fresh database, new migrations, unknown ones) goes through the migrator.
 */
async function upToDate(db: Database, names: string[], schema: string | undefined): Promise<boolean> {
  const table = schema ? sql.id(schema, 'kysely_migration') : sql.id('kysely_migration');
  try {
    const { rows } = await sql<{ name: string }>`select name from ${table}`.execute(db.kysely);
    const done = new Set(rows.map((row) => row.name));
    return done.size === names.length && names.every((name) => done.has(name));
  } catch {
    return false; // no migration table yet
  }
}

/**
 * The database as Kysely's migrator sees it, introspecting only our schema. The migrator asks for the
 * tables of every schema to find its own two; PostgreSQL's answer checks each schema by name, and a schema
 * dropped meanwhile (another node's, a test's) failed the whole start with "schema ... does not exist".
 */
function withOneSchemaIntrospection(kysely: Kysely<any>, schema: string): Kysely<any> {
  const introspection: DatabaseIntrospector = {
    getSchemas: () => kysely.introspection.getSchemas(),
    async getTables() {
      const { rows } = await sql<{ name: string; kind: string }>`
        select c.relname as name, c.relkind as kind from pg_catalog.pg_class c
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where n.nspname = ${schema} and c.relkind in ('r', 'p', 'v')`.execute(kysely);
      return rows.map((row): TableMetadata => ({ name: row.name, schema, isView: row.kind === 'v', columns: [] }));
    },
    async getMetadata() {
      return { tables: await this.getTables() };
    },
  };
  // Kysely keeps its state in private fields: its methods run on the instance itself, not on the proxy.
  return new Proxy(kysely, {
    get(target, property) {
      if (property === 'introspection') return introspection;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
