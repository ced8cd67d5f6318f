import { Migrator, sql, type Migration } from 'kysely';
import type { Database, Engine } from './index.js';

/** Migrations are written once and told which engine they run on (for the few DDL differences). */
export type MigrationSet = (engine: Engine) => Record<string, Migration>;

export async function migrateToLatest(db: Database, migrations: MigrationSet): Promise<void> {
  // Kysely looks for its migration tables in every schema unless told which one: another schema of the
  // same PostgreSQL database (another node's, a test's) would make it skip creating its own.
  const schema = db.engine === 'postgres' ? (await sql<{ name: string }>`select current_schema() as name`.execute(db.kysely)).rows[0]?.name : undefined;
  const migrator = new Migrator({
    db: db.kysely,
    provider: { getMigrations: async () => migrations(db.engine) },
    migrationTableSchema: schema,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`database migration ${failed ?? ''} failed: ${(error as Error).message ?? String(error)}`, { cause: error });
  }
}
