// The analytics answers, checked against a plain-JavaScript aggregation of the very records stored:
// every grouping, every filter, time buckets, paging, tenancy and the 90-day retention.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { generateRecords } from '../records/generator.js';
import { directoryOf, type AccessRecord } from '../records/model.js';
import { aggregate, DAY, type Dim, gql, HOUR, ingest, rowsToMap, totalsOf } from '../../../tests/support/cdn-analytics.js';

let t: TestApp;
let a: TestAccount;
let b: TestAccount;
let recordsA: AccessRecord[];
let recordsB: AccessRecord[];
let now: number;
let window: { from: string; to: string };

const STATS = `query Stats($from: DateTime!, $to: DateTime!, $filter: TrafficFilter, $groupBy: [Dimension!], $granularity: Granularity, $orderBy: RowOrder, $limit: Int, $offset: Int) {
  statistics(from: $from, to: $to, filter: $filter, groupBy: $groupBy, granularity: $granularity, orderBy: $orderBy, limit: $limit, offset: $offset) {
    from to granularity groupBy
    totals { requests traffic uniqueVisitors }
    rows { time country directory browser device os requests traffic uniqueVisitors }
    rowCount
  }
}`;

async function stats(account: TestAccount, variables: Record<string, unknown>) {
  const res = await gql(t, account, STATS, { ...window, limit: 10_000, ...variables });
  expect(res.statusCode).toBe(200);
  expectConforms('POST', '/cdn/advanced/v2/query', res);
  const body = res.json();
  expect(body.errors).toBeUndefined();
  return body.data.statistics;
}

beforeAll(async () => {
  t = await createTestApp();
  t.clock.freeze();
  // A whole hour, so bucket boundaries in the test data do not depend on when the suite runs.
  now = t.clock.now() - (t.clock.now() % HOUR);
  t.clock.set(now);
  a = await t.account();
  b = await t.account();
  recordsA = [...generateRecords({ clientId: a.clientId, records: 3_000, days: 7, end: now, seed: 11, resourceIds: [101, 102] })];
  recordsB = [...generateRecords({ clientId: b.clientId, records: 500, days: 7, end: now, seed: 12, resourceIds: [201] })];
  await ingest(t, recordsA);
  await ingest(t, recordsB);
  window = { from: new Date(now - 7 * DAY).toISOString(), to: new Date(now).toISOString() };
});
afterAll(async () => t.close());

describe('groupings: sums match the stored records', () => {
  const single: Dim[] = ['country', 'directory', 'browser', 'device', 'os'];
  for (const dim of single) {
    it(`groupBy ${dim.toUpperCase()}`, async () => {
      const result = await stats(a, { groupBy: [dim.toUpperCase()] });
      const expected = aggregate(recordsA, [dim]);
      expect(result.groupBy).toEqual([dim.toUpperCase()]);
      expect(result.rowCount).toBe(expected.size);
      expect(rowsToMap(result.rows, [dim], false)).toEqual(expected);
      // Dimensions not grouped by are null, and so is time without a granularity.
      const other = single.find((d) => d !== dim)!;
      expect(result.rows.every((r: Record<string, unknown>) => r[other] === null && r.time === null)).toBe(true);
      expect(result.totals).toEqual(totalsOf(recordsA));
    });
  }

  for (const [granularity, ms] of [
    ['HOUR', HOUR],
    ['SIX_HOURS', 6 * HOUR],
    ['DAY', DAY],
  ] as const) {
    it(`granularity ${granularity}: one row per bucket, ordered by time`, async () => {
      const result = await stats(a, { granularity });
      const expected = aggregate(recordsA, [], ms);
      expect(result.granularity).toBe(granularity);
      expect(rowsToMap(result.rows, [], true)).toEqual(expected);
      const times = result.rows.map((r: { time: string }) => r.time);
      expect(times).toEqual([...times].sort());
    });
  }

  it('several dimensions and a time bucket at once', async () => {
    const dims: Dim[] = ['country', 'device', 'os'];
    const result = await stats(a, { groupBy: ['COUNTRY', 'DEVICE', 'OS'], granularity: 'DAY' });
    expect(rowsToMap(result.rows, dims, true)).toEqual(aggregate(recordsA, dims, DAY));
  });

  it('unique visitors of the window are distinct visitors, not the sum over buckets or groups', async () => {
    const byDay = await stats(a, { granularity: 'DAY' });
    const byCountry = await stats(a, { groupBy: ['COUNTRY'] });
    const distinct = new Set(recordsA.map((r) => r.visitorId ?? r.clientIp)).size;
    const summedDays = byDay.rows.reduce((sum: number, r: { uniqueVisitors: number }) => sum + r.uniqueVisitors, 0);
    expect(byDay.totals.uniqueVisitors).toBe(distinct);
    expect(byCountry.totals.uniqueVisitors).toBe(distinct);
    expect(summedDays).toBeGreaterThan(distinct);
    // Requests and traffic, on the other hand, are additive.
    expect(byDay.rows.reduce((s: number, r: { requests: number }) => s + r.requests, 0)).toBe(recordsA.length);
    expect(byCountry.rows.reduce((s: number, r: { traffic: number }) => s + r.traffic, 0)).toBe(byCountry.totals.traffic);
  });

  it('without grouping, one row holds the totals', async () => {
    const result = await stats(a, {});
    expect(result.rows).toEqual([{ time: null, country: null, directory: null, browser: null, device: null, os: null, ...totalsOf(recordsA) }]);
    expect(result.rowCount).toBe(1);
  });

  it('a narrower window counts only the records inside [from, to)', async () => {
    const from = now - 2 * DAY - 30 * 60_000;
    const to = now - DAY + 17 * 60_000;
    const result = await stats(a, { from: new Date(from).toISOString(), to: new Date(to).toISOString(), groupBy: ['BROWSER'] });
    const inside = recordsA.filter((r) => r.timestamp >= from && r.timestamp < to);
    expect(result.totals).toEqual(totalsOf(inside));
    expect(rowsToMap(result.rows, ['browser'], false)).toEqual(aggregate(inside, ['browser']));
  });
});

describe('filters', () => {
  const pick = <T>(values: T[], n: number) => [...new Set(values)].sort().slice(0, n);
  const cases: [string, () => Record<string, unknown>, (r: AccessRecord) => boolean][] = [
    [
      'countries (case-insensitive)',
      () => ({
        countries: pick(
          recordsA.map((r) => r.country),
          2,
        ).map((c) => c.toLowerCase()),
      }),
      (r) =>
        pick(
          recordsA.map((x) => x.country),
          2,
        ).includes(r.country),
    ],
    ['directories', () => ({ directories: ['/images/', '/api/'] }), (r) => ['/images/', '/api/'].includes(directoryOf(r.path))],
    [
      'directories as deeper path prefixes',
      () => ({ directories: ['/images/products/', '/static/js/'] }),
      (r) => r.path.startsWith('/images/products/') || r.path.startsWith('/static/js/'),
    ],
    ['browsers', () => ({ browsers: ['Safari', 'Firefox'] }), (r) => ['Safari', 'Firefox'].includes(r.browser)],
    ['devices', () => ({ devices: ['MOBILE', 'TABLET'] }), (r) => ['mobile', 'tablet'].includes(r.device)],
    ['operatingSystems', () => ({ operatingSystems: ['Android', 'iOS'] }), (r) => ['Android', 'iOS'].includes(r.os)],
    ['resourceIds', () => ({ resourceIds: [102] }), (r) => r.resourceId === 102],
    ['hosts', () => ({ hosts: ['CDN101.example.com'] }), (r) => r.host === 'cdn101.example.com'],
    [
      'several fields combine with AND',
      () => ({ countries: ['US', 'DE'], devices: ['DESKTOP'], directories: ['/static/'] }),
      (r) => ['US', 'DE'].includes(r.country) && r.device === 'desktop' && r.path.startsWith('/static/'),
    ],
  ];
  for (const [name, filter, keep] of cases) {
    it(name, async () => {
      const kept = recordsA.filter(keep);
      expect(kept.length).toBeGreaterThan(0);
      expect(kept.length).toBeLessThan(recordsA.length);
      const result = await stats(a, { filter: filter(), groupBy: ['COUNTRY', 'DIRECTORY'] });
      expect(result.totals).toEqual(totalsOf(kept));
      expect(rowsToMap(result.rows, ['country', 'directory'], false)).toEqual(aggregate(kept, ['country', 'directory']));
    });
  }

  it('a filter nothing matches gives zero totals and no rows', async () => {
    const result = await stats(a, { filter: { countries: ['AQ'] }, groupBy: ['COUNTRY'] });
    expect(result.totals).toEqual({ requests: 0, traffic: 0, uniqueVisitors: 0 });
    expect(result.rows).toEqual([]);
    expect(result.rowCount).toBe(0);
  });

  it('a null filter field does not filter', async () => {
    const result = await stats(a, { filter: { countries: null, browsers: null } });
    expect(result.totals).toEqual(totalsOf(recordsA));
  });
});

describe('order and paging', () => {
  it('orders by requests (default), traffic or unique visitors, ties broken by the dimension', async () => {
    for (const [orderBy, field] of [
      ['REQUESTS_DESC', 'requests'],
      ['TRAFFIC_ASC', 'traffic'],
      ['UNIQUE_VISITORS_DESC', 'uniqueVisitors'],
    ] as const) {
      const rows = (await stats(a, { groupBy: ['OS'], ...(orderBy === 'REQUESTS_DESC' ? {} : { orderBy }) })).rows as Record<string, number>[];
      const sorted = [...rows].sort(
        (x, y) => (orderBy.endsWith('DESC') ? y[field] - x[field] : x[field] - y[field]) || String(x.os).localeCompare(String(y.os)),
      );
      expect(rows).toEqual(sorted);
    }
  });

  it('limit and offset page through the rows; rowCount stays the total', async () => {
    const all = (await stats(a, { groupBy: ['COUNTRY', 'BROWSER'] })).rows;
    const page1 = await stats(a, { groupBy: ['COUNTRY', 'BROWSER'], limit: 5, offset: 0 });
    const page2 = await stats(a, { groupBy: ['COUNTRY', 'BROWSER'], limit: 5, offset: 5 });
    const beyond = await stats(a, { groupBy: ['COUNTRY', 'BROWSER'], limit: 5, offset: all.length });
    expect(page1.rows).toEqual(all.slice(0, 5));
    expect(page2.rows).toEqual(all.slice(5, 10));
    expect(beyond.rows).toEqual([]);
    expect(page1.rowCount).toBe(all.length);
  });

  it('TIME_DESC returns the newest bucket first', async () => {
    const rows = (await stats(a, { granularity: 'HOUR', orderBy: 'TIME_DESC', limit: 3 })).rows;
    expect(rows[0].time).toBe(new Date(Math.max(...recordsA.map((r) => r.timestamp - (r.timestamp % HOUR)))).toISOString());
  });
});

describe('tenancy', () => {
  it('a client sees only its own records, whatever it filters on', async () => {
    expect((await stats(a, {})).totals).toEqual(totalsOf(recordsA));
    expect((await stats(b, {})).totals).toEqual(totalsOf(recordsB));
    // Client A filtering on client B's resource finds nothing.
    expect((await stats(a, { filter: { resourceIds: [201] } })).totals.requests).toBe(0);
    const c = await t.account();
    expect((await stats(c, { groupBy: ['COUNTRY'] })).rows).toEqual([]);
  });

  it('a read-only (Users role) token may query; its new account has no records', async () => {
    const reader = await t.account({ role: 'Users' });
    expect((await stats(reader, {})).totals.requests).toBe(0);
  });
});

describe('retention: 90 days', () => {
  it('hides and deletes records older than 90 days as the clock moves', async () => {
    const c = await t.account();
    const base = {
      clientId: c.clientId,
      resourceId: 1,
      host: 'old.example.com',
      country: 'FR',
      browser: 'Chrome',
      device: 'desktop' as const,
      os: 'Linux',
      bytes: 100,
      status: 200,
      visitorId: null,
    };
    await ingest(t, [
      { ...base, timestamp: now - 89 * DAY, path: '/old/a', clientIp: '192.0.2.1' },
      { ...base, timestamp: now - 10 * DAY, path: '/new/a', clientIp: '192.0.2.2' },
    ]);
    const count = async () => (await t.request('GET', `/_edgeplane/cdn/access-records/count?clientId=${c.clientId}`, { headers: t.operator })).json().count;
    expect(await count()).toBe(2);
    const from = () => new Date(t.clock.now() - 90 * DAY).toISOString();
    expect((await stats(c, { from: from(), to: new Date(t.clock.now()).toISOString() })).totals.requests).toBe(2);

    t.clock.advance(2 * DAY);
    try {
      expect((await stats(c, { from: from(), to: new Date(t.clock.now()).toISOString() })).totals.requests).toBe(1);
      // The clock change started the retention job; the purge route waits for it and runs once more.
      expect((await t.request('POST', '/_edgeplane/cdn/access-records/purge', { headers: t.operator })).statusCode).toBe(200);
      expect(await count()).toBe(1);
    } finally {
      t.clock.set(now);
    }
  });
});
