// Every migration, in order. Names sort: a new one gets the next number.
import type { MigrationSet } from '../src/platform/db/migrate.js';
import { accounts } from './001_accounts.js';

export const migrations: MigrationSet = (engine) => ({
  '001_accounts': accounts(engine),
});
