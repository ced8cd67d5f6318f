// Databases of one test file in a PostgreSQL schema of its own (when the suite runs on PostgreSQL):
// opened through the project's own openDatabase, closed and the schema dropped after the file's tests.
import { randomBytes } from 'node:crypto';
import { afterAll } from 'vitest';
import { testDatabaseUrl } from '../../src/config.js';
import { type Database, type DatabaseOptions, dropPostgresSchema, openDatabase } from '../../src/platform/db/index.js';

export interface ScratchPostgres {
  /** The suite's PostgreSQL URL, or undefined on the SQLite leg (tests using `open` skip then). */
  url: string | undefined;
  /** A database in the file's schema: one pooled connection (besides the pipe's) unless asked otherwise. */
  open(
    options?: Pick<DatabaseOptions, 'databasePool' | 'databasePipe' | 'databaseStatements' | 'databasePipeHeldUpMs' | 'databaseLockTimeout'>,
  ): Promise<Database>;
}

export function scratchPostgres(): ScratchPostgres {
  const url = testDatabaseUrl();
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const opened: Database[] = [];
  afterAll(async () => {
    for (const db of opened) await db.close();
    if (url) await dropPostgresSchema(url, schema);
  });
  return {
    url,
    async open(options = {}) {
      if (!url) throw new Error('scratchPostgres: the suite runs without PostgreSQL');
      const db = await openDatabase({ databaseUrl: url, databaseSchema: schema, dataDir: '', memory: false, databasePool: 1, ...options });
      opened.push(db);
      return db;
    },
  };
}
