// A restart on a migrated database is one query (no migrator), yet new migrations still run and a
// database that ran migrations this code does not know still fails loudly.
import { sql, type Migration } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from './index.js';
import { migrateToLatest, type MigrationSet } from './migrate.js';

const ran: string[] = [];
const table = (name: string): Migration => ({
  async up(db) {
    ran.push(name);
    await sql`create table ${sql.id(name)} (id integer)`.execute(db);
  },
});
const setOf = (...names: string[]): MigrationSet => () => Object.fromEntries(names.map((name) => [name, table(name)]));

let db: Database;
afterEach(async () => {
  ran.length = 0;
  await db.close();
});

describe('migrateToLatest', () => {
  it('runs each migration once, and only the new ones on a later start', async () => {
    db = await openDatabase({ memory: true, dataDir: '.' });
    await migrateToLatest(db, setOf('001_a', '002_b'));
    await migrateToLatest(db, setOf('001_a', '002_b'));
    expect(ran).toEqual(['001_a', '002_b']);
    await migrateToLatest(db, setOf('001_a', '002_b', '003_c'));
    expect(ran).toEqual(['001_a', '002_b', '003_c']);
  });

  it('refuses a database that ran a migration this code does not have', async () => {
    db = await openDatabase({ memory: true, dataDir: '.' });
    await migrateToLatest(db, setOf('001_a', '002_b'));
    await expect(migrateToLatest(db, setOf('001_a'))).rejects.toThrow(/002_b/);
  });
});
