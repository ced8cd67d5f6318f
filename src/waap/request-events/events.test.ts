import { once } from 'node:events';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { createDomain, event, ingest, rid } from '../../../tests/support/waap.js';
import { recordValidator } from './records.js';
import { TrafficGenerator } from './generator.js';
import { csvField } from './log/index.js';
import { EXPORT_CHUNK } from './service.js';

const NOW = Date.parse('2026-06-01T10:20:30.000Z');
const DAY = 86_400_000;
const DETAILS = '/waap/v1/domains/{domain_id}/requests/{request_id}/details';
let t: TestApp;
let a: TestAccount;
let b: TestAccount;
let shop: number;
let api: number;
let other: number;

beforeAll(async () => {
  t = await createTestApp();
  t.clock.freeze();
  t.clock.set(NOW);
  a = await t.account();
  b = await t.account();
  shop = (await createDomain(t, a.clientId, 'shop.example.com')).id;
  api = (await createDomain(t, a.clientId, 'api.example.com')).id;
  other = (await createDomain(t, b.clientId, 'other.example.com')).id;
});
afterAll(async () => t.close());

const start = () => new Date(t.clock.now() - 30 * DAY).toISOString();
const listOf = async (who: TestAccount, query = '') => {
  const res = await t.request('GET', `/waap/v1/analytics/requests?start=${start()}${query}`, { headers: who.headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { count: number; results: { id: string }[] };
};
/** Events kept in storage: in blocks, and their ids (which go with them). */
const storedCount = async () => {
  const events = Number(
    (
      await t.db.kysely
        .selectFrom('waap_event_blocks')
        .select((eb) => eb.fn.sum('n').as('n'))
        .executeTakeFirstOrThrow()
    ).n ?? 0,
  );
  const ids = Number(
    (
      await t.db.kysely
        .selectFrom('waap_event_ids')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
  expect(ids).toBe(events);
  return events;
};

describe('GET /waap/v1/domains/{domain_id}/requests/{request_id}/details', () => {
  it('returns every field of an ingested event, request_time in ISO 8601 UTC', async () => {
    const record = event(shop, 1, NOW - 3_600_000, {
      decision: 'blocked',
      optional_action: 'captcha',
      query_string: 'q=1%27',
      rule_id: 'S1',
      rule_name: 'SQL Injection',
      reference_id: 'f'.repeat(32),
      session_id: 'e'.repeat(32),
      user_agent: { full_string: 'curl/8', client: 'curl', client_version: '8', device: 'Other', os: 'Linux' },
      request_headers: { host: 'shop.example.com', accept: '*/*' },
      pattern_matched_tags: [
        {
          tag: 'sqli',
          display_name: 'SQL Injection',
          description: 'd',
          field: 'uri',
          field_name: 'q',
          pattern_name: 'p',
          pattern_value: "'",
          execution_phase: 'access',
        },
      ],
      common_tags: [{ tag: 'injectionattack', display_name: 'Injection Attack', description: 'c' }],
      traffic_types: ['api', 'ajax'],
      incident_id: 'd'.repeat(32),
      response_time: '12ms',
      content_type: 'text/html',
      ja3: 'E7D705A3286E19EA42F587B344EE6865',
    });
    expect(await ingest(t, [record])).toMatchObject({ accepted: 1, rejected: 0 });
    const res = await t.request('GET', `/waap/v1/domains/${shop}/requests/${rid(1)}/details`, { headers: a.headers });
    expect(res.statusCode).toBe(200);
    expectConforms('GET', DETAILS, res);
    expect(res.json()).toMatchObject({
      id: rid(1),
      request_time: new Date(NOW - 3_600_000).toISOString(),
      decision: 'blocked',
      optional_action: 'captcha',
      action: 'captcha',
      result: 'blocked',
      http_status_code: 200,
      domain: 'shop.example.com',
      requested_domain: 'shop.example.com',
      user_agent: { full_string: 'curl/8', client: 'curl', client_version: '8', device: 'Other', os: 'Linux', cpu: '' },
      network: { client_ip: '10.0.1.2', country: 'US', organization: { name: 'Example ISP', subnet: '10.0.0.0/8' } },
      request_headers: { host: 'shop.example.com', accept: '*/*' },
      pattern_matched_tags: [expect.objectContaining({ tag: 'sqli' })],
      common_tags: [expect.objectContaining({ tag: 'injectionattack' })],
      traffic_types: ['api', 'ajax'],
      incident_id: 'd'.repeat(32),
      ja3: 'e7d705a3286e19ea42f587b344ee6865',
      query_string: 'q=1%27',
    });
    const list = await listOf(a, `&request_ids=${rid(1)}`);
    expect(list.results[0]).toMatchObject({ request_time: NOW - 3_600_000, traffic_types: 'api,ajax', domain_id: shop });
  });

  it("answers 404 for an unknown id, another domain's id and another client's id", async () => {
    await ingest(t, [event(other, 2, NOW - 1000)]);
    for (const [who, domain, id] of [
      [a, shop, rid(999)],
      [a, api, rid(1)],
      [b, shop, rid(1)],
      [a, other, rid(2)],
    ] as const) {
      const res = await t.request('GET', `/waap/v1/domains/${domain}/requests/${id}/details`, { headers: who.headers });
      expect(res.statusCode).toBe(404);
      expectConforms('GET', DETAILS, res);
      expect(res.json()).toEqual({ type: 'http-not-found', title: 'Not Found', status: 404, detail: expect.any(String) });
    }
  });

  it('answers 422 for a non-integer domain id and 401 without a token', async () => {
    const res = await t.request('GET', `/waap/v1/domains/abc/requests/${rid(1)}/details`, { headers: a.headers });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].loc).toEqual(['path', 'domain_id']);
    expect((await t.request('GET', `/waap/v1/domains/${shop}/requests/${rid(1)}/details`)).statusCode).toBe(401);
  });
});

describe('POST /_edgeplane/waap/events (bulk ingestion)', () => {
  it('keeps every good line and reports each bad one with its number', async () => {
    const lines = [
      JSON.stringify(event(api, 10, NOW - 5000)),
      '{not json',
      JSON.stringify(event(api, 11, NOW - 5000, { decision: 'maybe' })),
      '',
      JSON.stringify(event(987654, 12, NOW - 5000)),
      JSON.stringify(event(api, 13, NOW - 31 * DAY)),
      JSON.stringify(event(api, 10, NOW - 5000)),
      JSON.stringify(event(api, 14, new Date(NOW - 7000).toISOString(), { extra_field: 1 })),
      JSON.stringify(event(api, 15, new Date(NOW - 7000).toISOString())),
    ];
    const report = await ingest(t, lines);
    expect(report.accepted).toBe(2);
    expect(report.rejected).toBe(6);
    expect(report.errors.map((e) => e.line)).toEqual([2, 3, 5, 6, 8, 7]);
    expect(report.errors.find((e) => e.line === 3)!.detail).toMatch(/decision/);
    expect(report.errors.find((e) => e.line === 5)!.detail).toMatch(/domain/);
    expect(report.errors.find((e) => e.line === 6)!.detail).toMatch(/retention/);
    expect(report.errors.find((e) => e.line === 7)!.detail).toMatch(/duplicate/);
    expect(report.errors.find((e) => e.line === 8)!.detail).toMatch(/extra_field/);
    expect((await listOf(a, `&request_ids=${rid(10)}&request_ids=${rid(15)}`)).count).toBe(2);
  });

  it('reports the first 100 bad lines of a body of bad lines, counts them all, and keeps answering other requests meanwhile', async () => {
    const bad = 300_000;
    const body = [...Array.from({ length: bad }, (_, i) => (i % 2 ? '{"domain_id":1}' : '{nope')), JSON.stringify(event(api, 900_001, NOW - 100))].join('\n');
    const ingestion = t.app
      .inject({ method: 'POST', url: '/_edgeplane/waap/events', headers: { ...t.operator, 'content-type': 'application/x-ndjson' }, payload: body })
      .then((res) => ({ res, at: performance.now() }));
    // Asked once the ingestion has begun: answered between its slices, not after it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const asked = performance.now();
    const health = await t.app.inject({ method: 'GET', url: '/_edgeplane/health' });
    const healthMs = performance.now() - asked;
    expect(health.statusCode).toBe(200);
    const { res, at } = await ingestion;
    expect(at - asked, 'the ingestion was still running when health was asked').toBeGreaterThan(300);
    expect(healthMs, 'health waited for the ingestion').toBeLessThan(150);
    const report = res.json();
    expect(report).toMatchObject({ accepted: 1, rejected: bad });
    expect(report.errors).toHaveLength(100);
    expect(report.errors[0]).toEqual({ line: 1, detail: expect.stringMatching(/^invalid JSON/) });
    expect(report.errors[1]).toEqual({ line: 2, detail: expect.stringMatching(/required/) });
  });

  it('accepts gzip bodies, by Content-Encoding or as application/gzip', async () => {
    const body = gzipSync([event(api, 20, NOW - 100), event(api, 21, NOW - 100)].map((r) => JSON.stringify(r)).join('\n'));
    for (const headers of [{ 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' }, { 'content-type': 'application/gzip' }]) {
      const res = await t.app.inject({ method: 'POST', url: '/_edgeplane/waap/events', headers: { ...t.operator, ...headers }, payload: body });
      expect(res.statusCode).toBe(200);
      expect(res.json().accepted + res.json().rejected).toBe(2);
    }
    const bad = await t.app.inject({
      method: 'POST',
      url: '/_edgeplane/waap/events',
      headers: { ...t.operator, 'content-type': 'application/gzip' },
      payload: Buffer.from('nope'),
    });
    expect(bad.statusCode).toBe(400);
  });

  it('refuses non-finite, unsafe and far-future times line by line, keeping the good lines of the body', async () => {
    const good = JSON.stringify(event(api, 30, NOW - 1000));
    const lines = [
      good,
      JSON.stringify(event(api, 31, 0)).replace('"request_time":0', '"request_time":1e309'),
      JSON.stringify(event(api, 32, 1e20)),
      JSON.stringify(event(api, 33, NOW + 2 * DAY)),
      JSON.stringify(event(api, 34, new Date(NOW + 2 * DAY).toISOString())),
      JSON.stringify(event(api, 35, NOW + 60_000)),
    ];
    const report = await ingest(t, lines);
    expect(report.accepted).toBe(2);
    expect(report.errors.map((e) => e.line)).toEqual([2, 3, 4, 5]);
    expect(report.errors[0].detail).toMatch(/request_time/);
    expect(report.errors[1].detail).toMatch(/request_time/);
    expect(report.errors[2].detail).toMatch(/after the server clock/);
  });

  it('stops a gzip body that inflates past the ingestion limit (a decompression bomb) with a 413', async () => {
    // Gzip members concatenated: 300 members of 1 MiB of zeros, about 300 KB sent, 300 MiB inflated.
    const member = gzipSync(Buffer.alloc(1 << 20));
    const bomb = Buffer.concat(Array.from({ length: 300 }, () => member));
    const res = await t.app.inject({
      method: 'POST',
      url: '/_edgeplane/waap/events',
      headers: { ...t.operator, 'content-type': 'application/gzip' },
      payload: bomb,
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().message).toMatch(/inflates to more than/);
    expect((await t.request('GET', '/_edgeplane/health')).statusCode).toBe(200);
  });

  it('is for the operator only, and leaves JSON parsing of other routes alone', async () => {
    const res = await t.request('POST', '/_edgeplane/waap/events', { headers: { ...a.headers, 'content-type': 'application/x-ndjson' }, body: '{}' });
    expect(res.statusCode).toBe(403);
    const json = await t.request('PATCH', `/waap/v1/domains/${shop}`, {
      headers: { ...a.headers, 'content-type': 'application/x-ndjson' },
      body: '{"status":"monitor"}',
    });
    expect(json.statusCode).toBe(415);
  });
});

describe('generator', () => {
  it('makes valid, deterministic, realistic events', async () => {
    const make = () => {
      const gen = new TrafficGenerator(42);
      let session = gen.newSession();
      const out = [];
      for (let i = 0; i < 5000; i += 1) {
        if (session.left <= 0) session = gen.newSession();
        out.push(gen.record(session, { id: 1, name: 'x.example.com' }, NOW - i));
      }
      return out;
    };
    const records = make();
    expect(make()).toEqual(records);
    const validateRecord = recordValidator()();
    for (const r of records) expect(validateRecord(r), JSON.stringify(validateRecord.errors)).toBe(true);
    const share = (d: string) => records.filter((r) => r.decision === d).length / records.length;
    expect(share('passed')).toBeGreaterThan(0.85);
    expect(share('passed')).toBeLessThan(0.95);
    for (const d of ['blocked', 'monitored', 'allowed']) expect(share(d)).toBeGreaterThan(0.003);
    expect(new Set(records.map((r) => r.optional_action))).toEqual(new Set(['', 'captcha', 'challenge']));
    expect(new Set(records.map((r) => r.network.country)).size).toBeGreaterThan(15);
    expect(new Set(records.map((r) => r.method)).size).toBeGreaterThan(5);
    const sessions = new Map<string, number>();
    for (const r of records) sessions.set(r.session_id!, (sessions.get(r.session_id!) ?? 0) + 1);
    expect(Math.max(...sessions.values())).toBeGreaterThan(3);
  });

  it('generates through the control API; every event reads back as conforming details', async () => {
    const c = await t.account();
    const res = await t.request('POST', '/_edgeplane/waap/generate', {
      headers: t.operator,
      body: { client_ids: [c.clientId], events: 800, days: 2, seed: 5 },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ generated: 800, accepted: 800 });
    const page = await listOf(c, '&limit=100&decision=blocked');
    expect(page.count).toBeGreaterThan(0);
    const domains = (await t.request('GET', '/waap/v1/domains', { headers: c.headers })).json();
    expect(domains.count).toBe(3);
    for (const r of page.results.slice(0, 20) as unknown as { id: string; domain_id: number }[]) {
      const d = await t.request('GET', `/waap/v1/domains/${r.domain_id}/requests/${r.id}/details`, { headers: c.headers });
      expectConforms('GET', DETAILS, d);
    }
  });
});

describe('retention', () => {
  it('hides events older than 30 days at once and removes them from storage', async () => {
    const c = await t.account();
    const d = (await createDomain(t, c.clientId, 'old.example.com')).id;
    await ingest(t, [event(d, 500, NOW - 30 * DAY + 60_000), event(d, 501, NOW - 30 * DAY + 3 * 3_600_000), event(d, 502, NOW - 1000)]);
    expect((await listOf(c)).count).toBe(3);
    const before = await storedCount();
    t.clock.advance(2 * 60_000);
    expect((await listOf(c)).count).toBe(2);
    expect((await t.request('GET', `/waap/v1/domains/${d}/requests/${rid(500)}/details`, { headers: c.headers })).statusCode).toBe(404);
    await t.request('POST', '/_edgeplane/waap/retention/run', { headers: t.operator });
    expect(await storedCount()).toBe(before - 1);
    t.clock.advance(3 * 3_600_000);
    const run = await t.request('POST', '/_edgeplane/waap/retention/run', { headers: t.operator });
    expect(run.statusCode).toBe(200);
    expect((await listOf(c)).count).toBe(1);
    expect(await storedCount()).toBe(before - 2);
    t.clock.set(NOW);
  });
});

describe('GET /_edgeplane/waap/requests.csv', () => {
  it("streams the filtered log with the list's filters, newest first", async () => {
    const c = await t.account();
    const d = (await createDomain(t, c.clientId, 'csv.example.com')).id;
    const records = Array.from({ length: 4500 }, (_, i) =>
      event(d, 10_000 + i, NOW - 1000 - i * 1000, { decision: i % 3 === 0 ? 'blocked' : 'passed', path: i % 2 ? '/api/x' : '/y,"z"' }),
    );
    expect((await ingest(t, records)).accepted).toBe(4500);
    const res = await t.request('GET', `/_edgeplane/waap/requests.csv?client_id=${c.clientId}&start=${start()}&decision=blocked`, { headers: t.operator });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const lines = res.body.trim().split('\n');
    expect(lines[0]).toMatch(/^id,path,client_ip,method,/);
    expect(lines).toHaveLength(1 + 1500);
    expect(lines[1].startsWith(rid(10_000))).toBe(true);
    expect(lines[1]).toContain('"/y,""z"""');
    const list = await listOf(c, '&decision=blocked');
    expect(list.count).toBe(1500);
    const bad = await t.request('GET', `/_edgeplane/waap/requests.csv?client_id=${c.clientId}&start=nope`, { headers: t.operator });
    expect(bad.statusCode).toBe(422);
    expect((await t.request('GET', `/_edgeplane/waap/requests.csv?client_id=${c.clientId}&start=${start()}`, { headers: c.headers })).statusCode).toBe(403);
  });

  it('formats fields exactly as csv-stringify does with its defaults (the format exports had before)', () => {
    const field = fc.oneof(fc.string({ unit: fc.constantFrom('a', 'é', ',', '"', '\n', '\r', ' ', "'", '=', '😀') }), fc.integer(), fc.constant(''));
    fc.assert(
      fc.property(fc.array(field, { minLength: 1, maxLength: 6 }), (record) => {
        const columns = record.map((_, i) => `c${i}`);
        const expected = stringify([Object.fromEntries(record.map((v, i) => [columns[i], v]))], { columns, cast: { number: String } });
        return `${record.map(csvField).join(',')}\n` === expected;
      }),
      { numRuns: 3000 },
    );
  });

  it('answers the header line alone when no event matches', async () => {
    const c = await t.account();
    const res = await t.request('GET', `/_edgeplane/waap/requests.csv?client_id=${c.clientId}&start=${start()}`, { headers: t.operator });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/^id,path,client_ip,method,[a-z0-9_,]+\n$/);
  });

  it('reads the next chunk only once the client has taken the one before: a paused download holds the export back', async () => {
    const c = await t.account();
    const gen = await t.request('POST', '/_edgeplane/waap/generate', {
      headers: t.operator,
      body: { client_ids: [c.clientId], events: 60_000, days: 3, seed: 4 },
    });
    expect(gen.statusCode).toBe(200);
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const reads = vi.spyOn(t.waap.log, 'run');
    const chunkReads = () => reads.mock.calls.filter(([name]) => name === 'csvChunk').length;
    try {
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        http.get(`${address}/_edgeplane/waap/requests.csv?client_id=${c.clientId}&start=${start()}`, { headers: t.operator }, resolve).on('error', reject);
      });
      res.pause();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      // 60,000 / EXPORT_CHUNK chunks (about 0.36 MB of CSV each); the paused socket's buffers take a few.
      const whilePaused = chunkReads();
      expect(whilePaused, 'chunks read while the client reads nothing').toBeLessThan(24);
      let lines = 0;
      res.on('data', (data: Buffer) => {
        for (let i = data.indexOf(10); i >= 0; i = data.indexOf(10, i + 1)) lines += 1;
      });
      res.resume();
      await once(res, 'end');
      expect(lines).toBe(1 + 60_000);
      // Every chunk, and the read that finds nothing after the last.
      expect(chunkReads()).toBe(60_000 / EXPORT_CHUNK + 1);
    } finally {
      reads.mockRestore();
    }
  });

  it('matches the deep pages of the list (offsets located through the hourly counters)', async () => {
    const c = await t.account();
    const gen = await t.request('POST', '/_edgeplane/waap/generate', {
      headers: t.operator,
      body: { client_ids: [c.clientId], events: 6000, days: 3, seed: 9 },
    });
    expect(gen.statusCode).toBe(200);
    const csv = await t.request('GET', `/_edgeplane/waap/requests.csv?client_id=${c.clientId}&start=${start()}`, { headers: t.operator });
    const ids = csv.body
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',')[0]);
    expect(ids).toHaveLength(6000);
    for (const offset of [1000, 2345, 5950]) {
      const page = await listOf(c, `&offset=${offset}&limit=100`);
      expect(page.results.map((r) => r.id)).toEqual(ids.slice(offset, offset + 100));
      const asc = await listOf(c, `&offset=${offset}&limit=100&ordering=request_time`);
      expect(asc.results.map((r) => r.id)).toEqual([...ids].reverse().slice(offset, offset + 100));
    }
  });
});

describe('statistics', () => {
  it('ranks a dimension split by decision, and gives traffic per bucket', async () => {
    const c = await t.account();
    const d = (await createDomain(t, c.clientId, 'stats.example.com')).id;
    const records = [
      ...Array.from({ length: 5 }, (_, i) =>
        event(d, 20_000 + i, NOW - 1000 - i, {
          decision: 'blocked',
          network: { client_ip: '192.0.2.9', country: 'DE', organization: { name: 'Evil', subnet: '192.0.2.0/24' } },
          http_status_code: 403,
        }),
      ),
      ...Array.from({ length: 3 }, (_, i) =>
        event(d, 20_100 + i, NOW - 2 * DAY - i, { decision: 'passed', network: { client_ip: '198.51.100.1', country: 'US' }, traffic_types: ['api'] }),
      ),
      event(d, 20_200, NOW - 3000, { decision: 'monitored', network: { client_ip: '198.51.100.1', country: 'US' }, http_status_code: 500 }),
    ];
    await ingest(t, records);
    const country = await t.request('GET', `/waap/v1/analytics/stats/country?start=${start()}`, { headers: c.headers });
    expect(country.statusCode).toBe(200);
    expectConforms('GET', '/waap/v1/analytics/stats/{dimension}', country);
    expect(country.json()).toEqual({
      total: [
        ['DE', 5],
        ['US', 4],
      ],
      blocked: [['DE', 5]],
      suppressed: [['US', 1]],
      allowed: [],
      reference: null,
    });
    const ip = await t.request('GET', `/waap/v1/analytics/stats/ip?start=${start()}&order_by=threats.desc`, { headers: c.headers });
    expectConforms('GET', '/waap/v1/analytics/stats/{dimension}', ip);
    expect(ip.json().reference['192.0.2.9']).toEqual({ country: 'DE', org: 'Evil' });
    const target = await t.request('GET', `/waap/v1/analytics/stats/target?start=${start()}`, { headers: c.headers });
    expect(target.json().reference).toEqual({ 'stats.example.com': { domain_id: d } });
    const traffic = await t.request('GET', `/waap/v1/analytics/traffic?start=${start()}&resolution=daily`, { headers: c.headers });
    expect(traffic.statusCode).toBe(200);
    expectConforms('GET', '/waap/v1/analytics/traffic', traffic);
    const series = traffic.json();
    expect(series.reduce((s: number, x: { total: number }) => s + x.total, 0)).toBe(9);
    expect(series.every((x: { timestamp: number }) => x.timestamp % 86400 === 0)).toBe(true);
    const last = series[series.length - 1];
    expect(last).toMatchObject({ total: 6, policyBlocked: 5, monitored: 1, originError5xx: 1, passedToOrigin: 1 });
    const bad = await t.request('GET', `/waap/v1/analytics/stats/planet?start=${start()}`, { headers: c.headers });
    expect(bad.statusCode).toBe(422);
    const other = await t.request('GET', `/waap/v1/analytics/stats/country?start=${start()}`, { headers: b.headers });
    expect(other.json().total.find((p: [string, number]) => p[0] === 'DE')).toBeUndefined();
  });
});
