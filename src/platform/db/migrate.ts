import { Migrator, type Migration } from 'kysely';
import type { Database, Engine } from './index.js';

/** Migrations are written once and told which engine they run on (for the few DDL differences). */
export type MigrationSet = (engine: Engine) => Record<string, Migration>;

export async function migrateToLatest(db: Database, migrations: MigrationSet): Promise<void> {
  const migrator = new Migrator({
    db: db.kysely,
    provider: { getMigrations: async () => migrations(db.engine) },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`database migration ${failed ?? ''} failed: ${(error as Error).message ?? String(error)}`, { cause: error });
  }
}
