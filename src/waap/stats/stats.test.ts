// Statistics and traffic are aggregated from the stored blocks; these tests hold them to a count of the
// events themselves (a plain-JavaScript model over the ingested samples), for ranges starting and ending
// inside hours and minutes, with filters, and after retention on a moved clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { createDomain, event, ingest } from '../../../tests/support/waap.js';
import { samples, type Sample } from '../../../tests/support/waap-oracle.js';
import { TrafficSeries } from './schemas.js';
import { TRAFFIC_FIELDS } from '../request-events/log/index.js';

const NOW = Date.parse('2026-03-15T12:34:56.789Z');
const DAY = 86_400_000;
const TOP = 20;
let t: TestApp;
let a: TestAccount;
let b: TestAccount;
let mine: Sample[];
let domains: number[];
const names = ['shop.example.com', 'api.example.com'];

beforeAll(async () => {
  t = await createTestApp();
  t.clock.freeze();
  t.clock.set(NOW);
  a = await t.account();
  b = await t.account();
  domains = [(await createDomain(t, a.clientId, names[0])).id, (await createDomain(t, a.clientId, names[1])).id];
  const other = (await createDomain(t, b.clientId, 'other.example.com')).id;
  mine = samples(domains, 500, NOW, 1);
  const theirs = samples([other], 100, NOW, 100_000);
  expect(
    await ingest(
      t,
      [...mine, ...theirs].map((s) => s.record),
    ),
  ).toMatchObject({ accepted: 600, rejected: 0 });
});
afterAll(async () => t.close());

type Query = { start: number; end: number; domains?: number[]; ips?: string[]; security_rule_names?: string[]; order_by?: string };

function url(path: string, q: Query, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({ start: new Date(q.start).toISOString(), end: new Date(q.end).toISOString(), ...extra });
  for (const d of q.domains ?? []) params.append('domains', String(d));
  for (const ip of q.ips ?? []) params.append('ips', ip);
  for (const r of q.security_rule_names ?? []) params.append('security_rule_names', r);
  if (q.order_by) params.set('order_by', q.order_by);
  return `${path}?${params.toString()}`;
}

function selected(q: Query, now: number): Sample[] {
  const from = Math.max(q.start, now - 30 * DAY);
  return mine.filter(
    (s) =>
      s.time >= from &&
      s.time <= q.end &&
      (!q.domains || q.domains.includes(s.domain_id)) &&
      (!q.ips || q.ips.includes(s.client_ip)) &&
      (!q.security_rule_names || q.security_rule_names.includes(s.rule_name)),
  );
}

const KEY: Record<string, (s: Sample) => string> = {
  country: (s) => s.country,
  rule: (s) => s.rule_name,
  org: (s) => s.org,
  ip: (s) => s.client_ip,
  useragent: (s) => s.ua,
  target: (s) => names[domains.indexOf(s.domain_id)],
};

/** What a scan of the events gives for GET /stats/{dimension}. */
function expectedStats(dimension: string, q: Query, now: number) {
  const rows = selected(q, now);
  const totals = new Map<string, Record<string, number>>();
  for (const s of rows) {
    const key = KEY[dimension](s);
    if (key === '') continue;
    const e = totals.get(key) ?? { total: 0, blocked: 0, monitored: 0, allowed: 0, passed: 0 };
    e.total += 1;
    e[s.decision] += 1;
    totals.set(key, e);
  }
  const rank = (e: Record<string, number>) => (q.order_by === 'threats.desc' ? e.blocked + e.monitored : e.total);
  const keys = [...totals.keys()].sort((x, y) => rank(totals.get(y)!) - rank(totals.get(x)!) || (x < y ? -1 : 1)).slice(0, TOP);
  const series = (f: string) =>
    keys
      .map((k) => [k, totals.get(k)![f]] as [string, number])
      .filter(([, n]) => f === 'total' || n > 0)
      .sort((x, y) => y[1] - x[1]);
  let reference: unknown = null;
  if (dimension === 'target') reference = Object.fromEntries(keys.map((k) => [k, { domain_id: domains[names.indexOf(k)] }]));
  if (dimension === 'ip')
    reference = Object.fromEntries(keys.map((k) => rows.find((s) => s.client_ip === k)!).map((s) => [s.client_ip, { country: s.country, org: s.org }]));
  return { total: series('total'), blocked: series('blocked'), suppressed: series('monitored'), allowed: series('allowed'), reference };
}

/** What a scan of the events gives for GET /traffic. */
function expectedTraffic(q: Query, bucketSeconds: number, now: number) {
  const size = bucketSeconds * 1000;
  const buckets = new Map<number, Record<string, number>>();
  const fields = TRAFFIC_FIELDS;
  for (const s of selected(q, now)) {
    const bucket = Math.floor(s.time / size) * size;
    const b = buckets.get(bucket) ?? { timestamp: bucket / 1000, ...Object.fromEntries(fields.map((f) => [f, 0])) };
    buckets.set(bucket, b);
    b.total += 1;
    if (s.decision === 'blocked') b.policyBlocked += 1;
    else {
      b.passedToOrigin += 1;
      if (s.decision === 'passed') b.uncategorized += 1;
      if (s.decision === 'monitored') b.monitored += 1;
      if (s.decision === 'allowed') b.customAllowed += 1;
      const cls = ({ 2: 'origin2xx', 3: 'origin3xx', 4: 'originError4xx', 5: 'originError5xx' } as Record<number, string>)[Math.floor(s.status / 100)];
      if (cls) b[cls] += 1;
    }
    for (const type of ['api', 'ajax', 'static']) if (s.traffic_types.includes(type)) b[type] += 1;
  }
  return [...buckets.values()].sort((x, y) => x.timestamp - y.timestamp);
}

async function expectStats(dimension: string, q: Query, now = NOW) {
  const res = await t.request('GET', url(`/waap/v1/analytics/stats/${dimension}`, q), { headers: a.headers });
  expect(res.statusCode, res.body).toBe(200);
  expectConforms('GET', '/waap/v1/analytics/stats/{dimension}', res);
  expect(res.json()).toEqual(expectedStats(dimension, q, now));
}

async function expectTraffic(q: Query, extra: Record<string, string>, seconds: number, now = NOW) {
  const res = await t.request('GET', url('/waap/v1/analytics/traffic', q, extra), { headers: a.headers });
  expect(res.statusCode, res.body).toBe(200);
  expectConforms('GET', '/waap/v1/analytics/traffic', res);
  expect(res.json()).toEqual(expectedTraffic(q, seconds, now));
}

// Ranges whose edges fall inside hours and minutes, whole hours, and one shorter than an hour.
const RANGES: [string, Query][] = [
  ['the whole 30 days', { start: NOW - 30 * DAY + 1, end: NOW }],
  ['edges inside hours and minutes', { start: NOW - 17 * DAY - 1_234_567, end: NOW - 2 * DAY - 2_345_678 }],
  ['whole hours', { start: NOW - 10 * DAY - (NOW % 3_600_000), end: NOW - 3 * DAY - (NOW % 3_600_000) - 1 }],
  ['less than an hour', { start: NOW - 5 * DAY - 1_800_000, end: NOW - 5 * DAY + 1_500_000 }],
];

describe('GET /waap/v1/analytics/stats/{dimension}', () => {
  for (const [name, range] of RANGES) {
    it(`equals a count of the events over ${name}, for every dimension`, async () => {
      for (const dimension of Object.keys(KEY)) await expectStats(dimension, range);
    });
  }

  it('applies domain, rule-name and IP filters and orders by threats', async () => {
    const range = RANGES[1][1];
    await expectStats('country', { ...range, domains: [domains[1]] });
    await expectStats('ip', { ...range, security_rule_names: ['Rate Limit'], order_by: 'threats.desc' });
    await expectStats('useragent', { ...range, ips: ['192.0.2.1', '2001:db8::1'] });
    await expectStats('target', { ...range, domains: [domains[0]], order_by: 'threats.desc' });
  });

  it("never counts another client's events", async () => {
    const res = await t.request('GET', url('/waap/v1/analytics/stats/target', RANGES[0][1]), { headers: b.headers });
    expect(Object.keys(res.json().reference)).toEqual(['other.example.com']);
  });
});

describe('GET /waap/v1/analytics/traffic', () => {
  for (const [name, range] of RANGES) {
    it(`equals a count of the events over ${name}`, async () => {
      await expectTraffic(range, { resolution: 'daily' }, 86400);
      await expectTraffic(range, { resolution: 'hourly' }, 3600);
      await expectTraffic(range, { resolution: 'minutely', bucket_size: '300' }, 300);
    });
  }

  it('filters by domain', async () => {
    await expectTraffic({ ...RANGES[1][1], domains: [domains[0]] }, { resolution: 'hourly' }, 3600);
  });

  it('writes the series as compact JSON with the keys in the order of its schema', async () => {
    const c = await t.account();
    const d = (await createDomain(t, c.clientId, 'minutes.example.com')).id;
    // One event a minute: a long series, written in time slices (their joints: platform/cooperative.test.ts).
    expect(
      (
        await ingest(
          t,
          Array.from({ length: 2500 }, (_, i) => event(d, 700_000 + i, NOW - 1000 - i * 60_000)),
        )
      ).accepted,
    ).toBe(2500);
    const res = await t.request('GET', url('/waap/v1/analytics/traffic', RANGES[0][1], { resolution: 'minutely' }), { headers: c.headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const series = res.json() as Record<string, number>[];
    expect(series.length).toBe(2500);
    expect(res.body).toBe(JSON.stringify(series));
    expect(Object.keys(series[0])).toEqual(Object.keys(TrafficSeries.items.properties));
    expect(series.map((b) => b.timestamp)).toEqual([...series.map((b) => b.timestamp)].sort((x, y) => x - y));
  });
});

describe('statistics across the 30-day retention boundary', () => {
  it('agree with the events left after the clock moves and retention runs', async () => {
    const later = NOW + 3 * DAY + 1_111_111;
    t.clock.set(later);
    const run = await t.request('POST', '/_edgeplane/waap/retention/run', { headers: t.operator });
    expect(run.statusCode).toBe(200);
    const q = { start: later - 30 * DAY + 1, end: later };
    for (const dimension of Object.keys(KEY)) await expectStats(dimension, q, later);
    await expectTraffic(q, { resolution: 'hourly' }, 3600, later);
    await expectTraffic(q, { resolution: 'minutely' }, 60, later);
  });
});
