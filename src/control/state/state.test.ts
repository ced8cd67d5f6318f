import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { Clock } from '../../platform/clock.js';
import { openDatabase } from '../../platform/db/index.js';
import { migrateToLatest, type MigrationSet } from '../../platform/db/migrate.js';
import { withSerialId } from '../../platform/db/columns.js';
import { createDomain, event, ingest } from '../../../tests/support/waap.js';
import { type StateDocument, StateService } from './service.js';

let t: TestApp;
let a: TestAccount;
let b: TestAccount;
const EVENTS = '/security/notifier/v1/event_logs';

async function addEvent(app: TestApp, clientId: number, id: string) {
  const res = await app.request('POST', '/_edgeplane/security/event-logs', {
    headers: app.operator,
    body: { id, client_id: clientId, alert_type: 'ddos_alert', attack_start_time: '2026-06-01T10:00:00Z', targeted_ip_addresses: '203.0.113.5' },
  });
  expect(res.statusCode).toBeLessThan(300);
}

const exportState = async (app: TestApp, query = '') => {
  const res = await app.request('GET', `/_edgeplane/state${query}`, { headers: app.operator });
  expect(res.statusCode).toBe(200);
  return res.json();
};
const importState = (app: TestApp, document: unknown) => app.request('PUT', '/_edgeplane/state', { headers: app.operator, body: document });

beforeAll(async () => {
  t = await createTestApp();
  t.clock.freeze();
  t.clock.set(Date.parse('2026-06-15T12:00:00Z'));
  a = await t.account();
  b = await t.account();
  await addEvent(t, a.clientId, '00000000-0000-4000-8000-000000000001');
  await addEvent(t, b.clientId, '00000000-0000-4000-8000-000000000002');
});
afterAll(async () => t.close());

describe('export then import into a fresh server', () => {
  it('gives identical API answers, with the same tokens working', async () => {
    const document = await exportState(t);
    expect(document).toMatchObject({ format: 'edgeplane-state', clientId: null });
    expect(document.version).toBe((await t.request('GET', '/_edgeplane/info', { headers: t.operator })).json().schemaVersion);
    expect(JSON.stringify(document)).not.toContain('operator_token_hash');

    const fresh = await createTestApp();
    try {
      fresh.clock.freeze();
      fresh.clock.set(t.clock.now());
      const res = await importState(fresh, document);
      expect(res.statusCode).toBe(200);
      expect(res.json().rows).toBeGreaterThan(0);
      for (const url of ['/iam/clients/me', EVENTS]) {
        const before = await t.request('GET', url, { headers: a.headers });
        const after = await fresh.request('GET', url, { headers: a.headers });
        expect(after.statusCode).toBe(200);
        expect(after.json()).toEqual(before.json());
      }
      // Token use times moved with the calls above; everything else is as exported.
      const withoutUse = (doc: { tables: Record<string, Record<string, unknown>[]> }) => ({
        ...doc,
        exportedAt: '',
        tables: { ...doc.tables, api_tokens: doc.tables.api_tokens.map((r) => ({ ...r, last_used_at: null })) },
      });
      expect(withoutUse(await exportState(fresh))).toEqual(withoutUse(document));
      // New rows get ids past the imported ones (PostgreSQL sequences moved).
      const extra = await fresh.account();
      expect(extra.clientId).toBeGreaterThan(b.clientId);
    } finally {
      await fresh.close();
    }
  });

  it('replaces what a running server had (everything, not a merge)', async () => {
    const document = await exportState(t);
    const other = await createTestApp();
    try {
      const stranger = await other.account();
      await other.account();
      await other.account();
      expect((await importState(other, document)).statusCode).toBe(200);
      const gone = await other.request('GET', '/iam/clients/me', { headers: stranger.headers });
      // The stranger's id may now belong to an imported client, but its token is gone.
      expect(gone.statusCode).toBe(401);
    } finally {
      await other.close();
    }
  });
});

describe('one client', () => {
  it("exports only that client's rows and imports them back after a client reset", async () => {
    const document = await exportState(t, `?clientId=${a.clientId}`);
    expect(document.clientId).toBe(a.clientId);
    expect(document.tables.clients).toHaveLength(1);
    expect(document.tables.settings).toBeUndefined();
    // Rows that belong to the client through another row (an event's bulky details) come with it.
    const { ddos_event_log_details: details, ...owned } = document.tables as Record<string, Record<string, unknown>[]>;
    expect(details.map((row) => row.id)).toEqual(['00000000-0000-4000-8000-000000000001']);
    for (const rows of Object.values(owned)) {
      for (const row of rows) expect(row.client_id ?? row.id).toBe(a.clientId);
    }
    const before = (await t.request('GET', EVENTS, { headers: a.headers })).json();
    const eventBefore = (await t.request('GET', `${EVENTS}/00000000-0000-4000-8000-000000000001`, { headers: a.headers })).json();
    const reset = await t.request('POST', '/_edgeplane/state/reset', { headers: t.operator, body: { clientId: a.clientId } });
    expect(reset.json()).toEqual({ clientId: a.clientId, demo: null });
    expect((await t.request('GET', EVENTS, { headers: a.headers })).statusCode).toBe(401);
    expect((await t.request('GET', EVENTS, { headers: b.headers })).json().count).toBe(1);
    const left = await exportState(t);
    expect(left.tables.ddos_event_log_details.map((row: { id: string }) => row.id)).toEqual(['00000000-0000-4000-8000-000000000002']);
    expect((await importState(t, document)).statusCode).toBe(200);
    expect((await t.request('GET', EVENTS, { headers: a.headers })).json()).toEqual(before);
    const eventAfter = await t.request('GET', `${EVENTS}/00000000-0000-4000-8000-000000000001`, { headers: a.headers });
    expect(eventAfter.statusCode).toBe(200);
    expect(eventAfter.json()).toEqual(eventBefore);
    // The other client's event and its details were not touched.
    expect((await t.request('GET', `${EVENTS}/00000000-0000-4000-8000-000000000002`, { headers: b.headers })).statusCode).toBe(200);
  });

  it("carries a client's WAAP request log whole (blocks, their parts, their ids), and reset removes all of it", async () => {
    const app = await createTestApp();
    try {
      app.clock.freeze();
      app.clock.set(Date.parse('2026-06-15T12:00:00Z'));
      const now = app.clock.now();
      const [x, y] = [await app.account(), await app.account()];
      const log = async (account: TestAccount, domain: string, base: number) => {
        const id = (await createDomain(app, account.clientId, domain)).id;
        // One batch a call: several blocks, and more rows than one export page in the id table.
        for (let batch = 0; batch < 4; batch += 1) {
          await ingest(
            app,
            Array.from({ length: 150 }, (_, i) => event(id, base + batch * 1000 + i, now - 3_600_000 - i * 1000)),
          );
        }
        return id;
      };
      await log(x, 'x.example.com', 10_000);
      await log(y, 'y.example.com', 20_000);
      const list = (account: TestAccount) =>
        app.request('GET', `/waap/v1/analytics/requests?start=${new Date(now - 86_400_000).toISOString()}&limit=5`, { headers: account.headers });
      const xBefore = (await list(x)).json();
      expect(xBefore.count).toBe(600);
      const xDocument = await exportState(app, `?clientId=${x.clientId}`);
      expect(xDocument.tables.waap_event_ids).toHaveLength(600);
      expect(xDocument.tables.waap_event_parts.length).toBeGreaterThan(0);
      const blockIds = new Set(xDocument.tables.waap_event_blocks.map((row: { block_id: number }) => row.block_id));
      expect(xDocument.tables.waap_event_parts.every((row: { block_id: number }) => blockIds.has(row.block_id))).toBe(true);
      const yDocument = await exportState(app, `?clientId=${y.clientId}`);
      // Reset x: every row of its log goes, parts included; y's log is untouched.
      await app.request('POST', '/_edgeplane/state/reset', { headers: app.operator, body: { clientId: x.clientId } });
      const left = await exportState(app);
      expect(left.tables.waap_event_parts.every((row: { block_id: number }) => !blockIds.has(row.block_id))).toBe(true);
      expect((await list(y)).json().count).toBe(600);
      // Importing y's own snapshot back, after x's reset, shows y its own events only.
      expect((await importState(app, yDocument)).statusCode).toBe(200);
      const yAfter = (await list(y)).json();
      expect(yAfter.count).toBe(600);
      expect(yAfter.results.every((r: { domain: string }) => r.domain === 'y.example.com')).toBe(true);
      // x's snapshot imports back whole and answers as before.
      expect((await importState(app, xDocument)).statusCode).toBe(200);
      expect((await list(x)).json()).toEqual(xBefore);
    } finally {
      await app.close();
    }
  });

  it('404 for an unknown client', async () => {
    expect((await t.request('GET', '/_edgeplane/state?clientId=999999', { headers: t.operator })).statusCode).toBe(404);
    expect((await t.request('POST', '/_edgeplane/state/reset', { headers: t.operator, body: { clientId: 999999 } })).statusCode).toBe(404);
  });
});

describe('refusals are all-or-nothing', () => {
  it('a document from a newer version is refused with a clear error', async () => {
    const document = await exportState(t);
    const res = await importState(t, { ...document, version: '999_future' });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ loc: ['body', 'version'], msg: expect.stringMatching(/newer Edgeplane.*upgrade this server/) });
  });

  it('unknown tables, unknown columns, a wrong format are refused and nothing changes', async () => {
    const document = await exportState(t);
    const cases = [
      { ...document, tables: { ...document.tables, nonsense: [{ a: 1 }] } },
      { ...document, tables: { ...document.tables, clients: [{ ...document.tables.clients[0], colour: 'red' }] } },
      { ...document, format: 'something-else' },
    ];
    for (const bad of cases) expect((await importState(t, bad)).statusCode).toBe(422);
    expect(await exportState(t)).toEqual({ ...document, exportedAt: expect.any(String) });
  });

  it('a row the database refuses (duplicate key) rolls everything back: 409', async () => {
    const document = await exportState(t);
    const broken = { ...document, tables: { ...document.tables, clients: [document.tables.clients[0], document.tables.clients[0]] } };
    const res = await importState(t, broken);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toMatch(/nothing was changed/);
    expect(await exportState(t)).toEqual({ ...document, exportedAt: expect.any(String) });
    expect((await t.request('GET', '/iam/clients/me', { headers: a.headers })).statusCode).toBe(200);
  });

  it('is operator-only', async () => {
    expect((await t.request('GET', '/_edgeplane/state', { headers: a.headers })).statusCode).toBe(403);
    expect((await t.request('PUT', '/_edgeplane/state', { headers: a.headers, body: {} })).statusCode).toBe(403);
  });
});

describe('full reset', () => {
  it('empties everything, then re-creates the demo client with the configured API key', async () => {
    const app = await createTestApp({ apiKey: 'demo-key-0123456789' });
    try {
      const someone = await app.account();
      await app.request('POST', '/_edgeplane/faults', { headers: app.operator, body: { path: '/x', status: 500 } });
      const res = await app.request('POST', '/_edgeplane/state/reset', { headers: app.operator });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ clientId: null, demo: { apiKey: 'demo-key-0123456789' } });
      expect((await app.request('GET', '/iam/clients/me', { headers: someone.headers })).statusCode).toBe(401);
      const demo = await app.request('GET', '/iam/clients/me', { headers: { authorization: 'APIKey demo-key-0123456789' } });
      expect(demo.json().companyName).toBe('Edgeplane Demo');
      expect((await app.request('GET', '/_edgeplane/faults', { headers: app.operator })).json()).toEqual([]);
      // The operator token survives a reset.
      expect((await app.request('GET', '/_edgeplane/info', { headers: app.operator })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('documents from an older schema', () => {
  // Two versions of a tiny schema: v2 adds a column with a default, so a v1 document must be migrated.
  const v1 = {
    async up(db: Kysely<any>) {
      await withSerialId(db.schema.createTable('clients'), 'sqlite')
        .addColumn('name', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('widgets')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('client_id', 'integer', (c) => c.notNull())
        .execute();
    },
  };
  const v2 = {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('widgets')
        .addColumn('colour', 'text', (c) => c.notNull().defaultTo('blue'))
        .execute();
    },
  };
  const older: MigrationSet = () => ({ '001_a': v1 });
  const newer: MigrationSet = () => ({ '001_a': v1, '002_b': v2 });

  /** The streamed document, read whole (the tests' documents are small). */
  const exported = async (service: StateService): Promise<StateDocument> => {
    let text = '';
    for await (const chunk of await service.exportChunks()) text += chunk;
    return JSON.parse(text) as StateDocument;
  };

  it('are migrated on import; newer ones are refused', async () => {
    const oldDb = await openDatabase({ memory: true, dataDir: '.' });
    const newDb = await openDatabase({ memory: true, dataDir: '.' });
    try {
      await migrateToLatest(oldDb, older);
      await migrateToLatest(newDb, newer);
      await oldDb.kysely.insertInto('clients').values({ id: 1, name: 'acme' }).execute();
      await oldDb.kysely.insertInto('widgets').values({ id: 7, client_id: 1 }).execute();
      const document = await exported(new StateService(oldDb, older, new Clock()));
      expect(document.version).toBe('001_a');
      const target = new StateService(newDb, newer, new Clock());
      await target.import(document);
      expect(await newDb.kysely.selectFrom('widgets').selectAll().execute()).toEqual([{ id: 7, client_id: 1, colour: 'blue' }]);
      const current = await exported(target);
      await expect(new StateService(oldDb, older, new Clock()).import(current)).rejects.toThrow(/newer Edgeplane/);
    } finally {
      await oldDb.close();
      await newDb.close();
    }
  });
});
