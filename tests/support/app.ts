// Builds an isolated Edgeplane for one test file: in-memory SQLite by default, or a fresh PostgreSQL
// schema when EDGEPLANE_TEST_DATABASE_URL is set (the same suite runs on both engines).
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { build, type Edgeplane } from '../../src/app.js';
import { loadConfig, testDatabaseUrl, type SettingName } from '../../src/config.js';
import { Clock } from '../../src/platform/clock.js';
import { dropPostgresSchema, type Database } from '../../src/platform/db/index.js';
import type { GroupName } from '../../src/platform/auth/principal.js';
import { openAndMigrate } from '../../src/server.js';

export const OPERATOR_TOKEN = 'operator-token-for-tests-0123456789';

export interface TestAccount {
  clientId: number;
  userId: number;
  token: string;
  headers: { authorization: string };
}

export interface TestApp extends Edgeplane {
  db: Database;
  clock: Clock;
  operator: { authorization: string };
  /** A new account with an administrator; `role` adds a second user with that role and returns its token. */
  account(options?: { role?: GroupName; reseller?: boolean; resellerId?: number }): Promise<TestAccount>;
  /** A reseller admin-portal token for an account (the account must be a reseller). */
  resellerToken(clientId: number, userId: number): Promise<string>;
  request(
    method: string,
    url: string,
    options?: { headers?: Record<string, string>; body?: unknown; query?: Record<string, string | string[]> },
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export const engineName = testDatabaseUrl() ? 'postgres' : 'sqlite';

export async function createTestApp(
  overrides: Partial<Record<SettingName, unknown>> = {},
  options: { consoleDir?: string; monotonicNow?: () => number } = {},
): Promise<TestApp> {
  const databaseUrl = testDatabaseUrl();
  const schema = databaseUrl ? `t_${randomBytes(6).toString('hex')}` : undefined;
  const config = loadConfig({}, { memory: true, databaseUrl, databaseSchema: schema, adminToken: OPERATOR_TOKEN, logLevel: 'error', ...overrides });
  const clock = new Clock();
  const db = await openAndMigrate(config);
  const edgeplane = await build({ config, db, clock, consoleDir: options.consoleDir, monotonicNow: options.monotonicNow });
  let counter = 0;

  const account: TestApp['account'] = async (options = {}) => {
    counter += 1;
    const email = `user${counter}-${randomBytes(3).toString('hex')}@example.test`;
    const { clientId, adminUserId } = await edgeplane.iam.accounts.createAccount({
      email,
      companyName: `Company ${counter}`,
      isReseller: options.reseller,
      resellerId: options.resellerId,
    });
    let userId = adminUserId;
    const role = options.role ?? 'Administrators';
    if (role !== 'Administrators') {
      const group = { Users: 2, Engineers: 5, 'Purge and Prefetch only (API+Web)': 3009, 'Purge and Prefetch only (API)': 3022 }[role] as 2;
      userId = await edgeplane.iam.accounts.addUser(clientId, { email: `${role.replace(/\W/g, '')}-${email}`, name: role, groupId: group });
    }
    const { token } = await edgeplane.iam.tokens.issue({ clientId, userId, role, name: 'test' });
    return { clientId, userId, token, headers: { authorization: `APIKey ${token}` } };
  };

  return {
    ...edgeplane,
    db,
    clock,
    operator: { authorization: `APIKey ${OPERATOR_TOKEN}` },
    account,
    async resellerToken(clientId, userId) {
      const { token } = await edgeplane.iam.tokens.issue({ clientId, userId, role: 'Administrators', name: 'admin portal', kind: 'reseller' });
      return token;
    },
    async request(method, url, options = {}) {
      const headers: Record<string, string> = { ...(options.headers ?? {}) };
      let payload: string | undefined;
      if (options.body !== undefined) {
        payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      return edgeplane.app.inject({ method: method as 'GET', url, headers, payload, query: options.query });
    },
    async close() {
      await edgeplane.app.close();
      // A test may have closed the database on purpose (database-down tests).
      await db.close().catch(() => {});
      if (databaseUrl && schema) await dropPostgresSchema(databaseUrl, schema);
    },
  };
}
