// Migration 008 rewrites the events of the row-per-event table (and its packed `extra` column) as blocks;
// an event stored before it must read back exactly as before, on both engines.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../../migrations/index.js';
import { testDatabaseUrl } from '../../config.js';
import { type Database, dropPostgresSchema, openDatabase } from '../../platform/db/index.js';
import { createMigrator } from '../../platform/db/migrate.js';
import { EventLog } from './log/index.js';
import { toDetails, toSummary } from './service.js';

const HOUR = 3_600_000;
const T = Date.parse('2026-03-01T10:30:00Z');
const url = testDatabaseUrl();
const schema = url ? `t_${randomBytes(6).toString('hex')}` : undefined;
let db: Database;

/** An event as the old table stored it. */
function oldRow(seq: number, over: Record<string, unknown> = {}) {
  const extra = [
    '126.0',
    'Chrome',
    '126.0',
    'Windows',
    'desktop',
    'amd64',
    'Blink',
    'browser',
    '73.12.0.0/16',
    'text/html',
    '12ms',
    { host: 'shop.example.com', accept: '*/*' },
    1,
    'i'.repeat(32),
    'page',
    '3',
    0,
    'q=1',
    [],
    [{ tag: 'sqli', display_name: 'SQLi', description: 'd' }],
    [],
  ];
  return {
    seq,
    client_id: 1,
    domain_id: 5,
    domain: 'shop.example.com',
    request_time: T + seq * 1000,
    id: `${seq.toString(16).padStart(32, '0')}-000001`,
    decision: 'blocked',
    optional_action: 'captcha',
    action: 'captcha',
    result: 'blocked',
    client_ip: '73.12.1.2',
    country: 'US',
    method: 'POST',
    path: '/api/v1/login',
    path_prefix: '/api/',
    status_code: 403,
    rule_id: 'S1',
    rule_name: 'SQL Injection',
    reference_id: 'f'.repeat(32),
    session_id: 'e'.repeat(32),
    user_agent: 'Mozilla/5.0 Chrome/126',
    user_agent_client: 'Chrome',
    user_agent_device: 'Other',
    organization: 'Comcast',
    traffic_types: 'api,ajax',
    tags: ',sqli,',
    scheme: 'https',
    http_version: '2.0',
    ja3: 'e7d705a3286e19ea42f587b344ee6865',
    ja4: '',
    extra: JSON.stringify(extra),
    ...over,
  };
}

beforeAll(async () => {
  db = await openDatabase({ memory: true, dataDir: '.', databaseUrl: url, databaseSchema: schema });
  // The schema-aware migrator: other test files create and drop their schemas meanwhile.
  const migrator = await createMigrator(db, migrations);
  expect((await migrator.migrateTo('007_waap_counters')).error).toBeUndefined();
  const rows = [
    oldRow(1),
    oldRow(2, {
      client_id: 2,
      domain_id: 9,
      domain: 'other.example.com',
      extra: JSON.stringify(['', '', '', '', '', '', '', '', '', '', '', { 'user-agent': 'x' }, 0, '', '', '', 'www.other.example.com', '', [], [], []]),
    }),
    oldRow(3, { request_time: T + HOUR }),
    oldRow(4, { request_time: T + 1000 }),
  ];
  for (const row of rows) await db.kysely.insertInto('waap_events').values(row).execute();
  expect((await migrator.migrateToLatest()).error).toBeUndefined();
});
afterAll(async () => {
  await db.close();
  if (url && schema) await dropPostgresSchema(url, schema);
});

describe('migration 008', () => {
  it('rewrites stored events as blocks that read back field for field', async () => {
    const queries = new EventLog(db, { threads: 0, cacheBytes: 1 << 20 });
    const ordering = { column: 'request_time', descending: true };
    const filter = { clientId: 1, from: T - HOUR, toExcl: T + 2 * HOUR, conditions: [] };
    const page = await queries.run('list', { filter, ordering, limit: 10, offset: 0 });
    expect(page.count).toBe(3);
    // Equal times keep their old order: the row stored later comes first.
    expect(page.rows.map((r) => r.id)).toEqual([oldRow(3).id, oldRow(4).id, oldRow(1).id]);
    expect(toSummary(page.rows[2])).toMatchObject({
      id: oldRow(1).id,
      path: '/api/v1/login',
      status_code: 403,
      domain_id: 5,
      request_time: T + 1000,
      traffic_types: 'api,ajax',
      ja3: oldRow(1).ja3,
    });
    const details = toDetails((await queries.run('details', 1, 5, oldRow(1).id, 0))!);
    expect(details).toMatchObject({
      user_agent: {
        full_string: 'Mozilla/5.0 Chrome/126',
        client: 'Chrome',
        client_version: '126.0',
        os: 'Windows',
        device: 'Other',
        device_type: 'desktop',
        cpu: 'amd64',
      },
      network: { client_ip: '73.12.1.2', country: 'US', organization: { name: 'Comcast', subnet: '73.12.0.0/16' } },
      request_headers: { host: 'shop.example.com', accept: '*/*', 'user-agent': 'Mozilla/5.0 Chrome/126' },
      requested_domain: 'shop.example.com',
      session_request_count: '3',
      incident_id: 'i'.repeat(32),
      common_tags: [{ tag: 'sqli', display_name: 'SQLi', description: 'd' }],
      traffic_types: ['api', 'ajax'],
    });
    const other = toDetails((await queries.run('details', 2, 9, oldRow(2).id, 0))!);
    expect(other.request_headers).toEqual({ 'user-agent': 'x' });
    expect(other.requested_domain).toBe('www.other.example.com');
    const tagged = await queries.run('list', {
      filter: { ...filter, conditions: [{ kind: 'tag', values: ['sqli'], negate: false }] },
      ordering,
      limit: 10,
      offset: 0,
    });
    expect(tagged.count).toBe(3);
  });

  it('keeps the ids and drops the old tables', async () => {
    const ids = await sql<{ n: number }>`select count(*) as n from waap_event_ids`.execute(db.kysely);
    expect(Number(ids.rows[0].n)).toBe(4);
    for (const table of ['waap_events', 'waap_rollup_total', 'waap_stat_counters', 'waap_traffic_counters']) {
      await expect(sql`select 1 from ${sql.table(table)}`.execute(db.kysely)).rejects.toThrow();
    }
  });
});
