import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { createDomain, ingest } from '../../../tests/support/waap.js';
import { oracle, samples, type Sample } from '../../../tests/support/waap-oracle.js';

const NOW = Date.parse('2026-03-15T12:34:56.789Z');
const DAY = 86_400_000;
let t: TestApp;
let a: TestAccount;
let b: TestAccount;
let mine: Sample[];
let theirs: Sample[];
let domains: number[];
const start = new Date(NOW - 30 * DAY + 60_000).toISOString();

beforeAll(async () => {
  t = await createTestApp();
  t.clock.freeze();
  t.clock.set(NOW);
  a = await t.account();
  b = await t.account();
  domains = [(await createDomain(t, a.clientId, 'shop.example.com')).id, (await createDomain(t, a.clientId, 'api.example.com')).id];
  const other = (await createDomain(t, b.clientId, 'other.example.com')).id;
  mine = samples(domains, 360, NOW, 1);
  theirs = samples([other], 120, NOW, 100_000);
  const report = await ingest(
    t,
    [...mine, ...theirs].map((s) => s.record),
  );
  expect(report).toEqual({ accepted: 480, rejected: 0, errors: [] });
});
afterAll(async () => t.close());

function url(query: Record<string, string | string[] | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [String(v)]) params.append(k, item);
  }
  return `/waap/v1/analytics/requests?${params.toString()}`;
}

async function list(query: Record<string, string | string[] | number | undefined>, who: TestAccount = a) {
  const res = await t.request('GET', url({ start, ...query }), { headers: who.headers });
  expect(res.statusCode, res.body).toBe(200);
  expectConforms('GET', '/waap/v1/analytics/requests', res);
  return res.json() as { count: number; limit: number; offset: number; results: { id: string; request_time: number }[] };
}

async function expectMatches(query: Record<string, string | string[]>) {
  const expected = oracle(mine, query, Date.parse(start), NOW);
  const body = await list({ ...query, limit: 100 });
  expect(body.count).toBe(expected.length);
  expect(body.results.map((r) => r.id)).toEqual(expected.slice(0, 100).map((s) => s.id));
  return expected.length;
}

const FILTERS: Record<string, string[]> = {
  decision: ['blocked', 'monitored'],
  optional_action: ['captcha'],
  ips: ['192.0.2.1', '2001:db8::1'],
  countries: ['de', 'FR'],
  http_methods: ['POST', 'DELETE'],
  status_codes: ['404', '403'],
  reference_ids: ['a'.repeat(31) + '3'],
  session_ids: ['a'.repeat(29) + '3ed'],
  security_rule_names: ['Rate Limit'],
  organizations: ['Cloud Co'],
  user_agent_clients: ['curl'],
  user_agent_devices: ['iPhone'],
  ja3: ['A0E9F5D64349FB13191BC781F81F42E1'],
  ja4: ['t13d1516h2_8daaf6152771_b186095e22b6'],
  user_agent: ['chrome'],
  tags: ['sqli'],
  path: ['/api/*'],
};

describe('GET /waap/v1/analytics/requests filters', () => {
  it('returns every event of the client in the range, newest first, with the exact count', async () => {
    expect(await expectMatches({})).toBe(mine.length);
  });

  for (const [name, values] of Object.entries(FILTERS)) {
    it(`filters by ${name} and by exclude_${name}`, async () => {
      const kept = await expectMatches({ [name]: values });
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThan(mine.length);
      const left = await expectMatches({ [`exclude_${name}`]: values });
      expect(kept + left).toBe(mine.length);
    });
  }

  it('filters by domains and exclude_domains, and request_ids', async () => {
    expect(await expectMatches({ domains: [String(domains[1])] })).toBe(mine.length / 2);
    expect(await expectMatches({ exclude_domains: [String(domains[1])] })).toBe(mine.length / 2);
    expect(await expectMatches({ request_ids: [mine[3].id, mine[40].id] })).toBe(2);
    expect(await expectMatches({ exclude_request_ids: [mine[3].id] })).toBe(mine.length - 1);
  });

  it('accepts arrays as comma lists as well as repeated keys', async () => {
    const repeated = await list({ decision: ['blocked', 'allowed'] });
    const comma = await list({ decision: 'blocked,allowed' });
    expect(comma).toEqual(repeated);
  });

  it('matches path globs anywhere in the pattern, with literal % and _', async () => {
    expect(await expectMatches({ path: ['*search'] })).toBeGreaterThan(0);
    expect(await expectMatches({ path: ['/a_b%c'] })).toBeGreaterThan(0);
    expect(await expectMatches({ path: ['/a?b*'] })).toBe(0);
    expect(await expectMatches({ path: ['/api'] })).toBeGreaterThan(0);
    expect(await expectMatches({ path: ['/api/v1/*', '/login'] })).toBeGreaterThan(0);
  });

  it('combines filters (AND across parameters, OR within one)', async () => {
    const combos: Record<string, string[]>[] = [
      { decision: ['passed'], countries: ['US'], http_methods: ['GET'] },
      { countries: ['US', 'DE'], http_methods: ['GET'] },
      { decision: ['blocked'], path: ['/api/*'] },
      { domains: [String(domains[0])], decision: ['blocked', 'monitored'], status_codes: ['403'] },
      { ips: ['192.0.2.1'], decision: ['passed'], exclude_countries: ['US'] },
      { exclude_decision: ['passed'], tags: ['xss'], user_agent: ['Mozilla'] },
      { session_ids: ['a'.repeat(29) + '3ed'], exclude_path: ['/static/*'] },
      {
        decision: ['blocked'],
        optional_action: ['captcha', 'challenge'],
        countries: ['BR'],
        http_methods: ['GET', 'PUT'],
        status_codes: ['403'],
        domains: [String(domains[1])],
      },
    ];
    for (const combo of combos) await expectMatches(combo);
  });

  it('counts exactly over ranges that start and end inside an hour', async () => {
    for (const [from, to] of [
      [NOW - 10 * DAY + 1234, NOW - 3 * DAY - 999],
      [NOW - 5 * 3_600_000 + 17, NOW - 4 * 3_600_000 - 5],
      [NOW - 20 * DAY, NOW - 20 * DAY + 3_600_000],
    ]) {
      for (const query of [{}, { decision: ['passed'] }, { countries: ['US'], http_methods: ['GET'] }, { path: ['/api/*'] }]) {
        const expected = oracle(mine, query, from, to);
        const body = await list({ ...query, start: new Date(from).toISOString(), end: new Date(to).toISOString() });
        expect(body.count).toBe(expected.length);
        expect(body.results.map((r) => r.id)).toEqual(expected.slice(0, 100).map((s) => s.id));
      }
    }
  });

  it('defaults end to now on the server clock', async () => {
    const before = (await list({})).count;
    t.clock.set(NOW - DAY);
    const earlier = (await list({}, a)).count;
    t.clock.set(NOW);
    expect(earlier).toBe(oracle(mine, {}, Date.parse(start), NOW - DAY).length);
    expect(earlier).toBeLessThan(before);
  });
});

describe('GET /waap/v1/analytics/requests ordering and pagination', () => {
  it('orders by request_time ascending or descending and by other fields', async () => {
    const asc = await list({ ordering: 'request_time', limit: 100 });
    const expected = oracle(mine, {}, Date.parse(start), NOW).reverse();
    expect(asc.results.map((r) => r.id)).toEqual(expected.slice(0, 100).map((s) => s.id));
    const byStatus = await list({ ordering: '-status_code', limit: 100 });
    const codes = byStatus.results.map((r) => (r as unknown as { status_code: number }).status_code);
    expect(codes).toEqual([...codes].sort((x, y) => y - x));
    const byPath = await list({ ordering: 'path', limit: 100 });
    const paths = byPath.results.map((r) => (r as unknown as { path: string }).path);
    expect(paths).toEqual([...paths].sort());
  });

  it('pages with limit and offset up to the count', async () => {
    const all = oracle(mine, {}, Date.parse(start), NOW);
    const seen: string[] = [];
    for (let offset = 0; offset < all.length; offset += 100) {
      const page = await list({ limit: 100, offset });
      expect(page).toMatchObject({ count: all.length, limit: 100, offset });
      seen.push(...page.results.map((r) => r.id));
    }
    expect(seen).toEqual(all.map((s) => s.id));
    expect((await list({ offset: all.length })).results).toEqual([]);
    expect((await list({ offset: all.length - 1 })).results.map((r) => r.id)).toEqual([all[all.length - 1].id]);
    const empty = await list({ limit: 0 });
    expect(empty).toEqual({ count: all.length, limit: 0, offset: 0, results: [] });
    expect((await list({})).limit).toBe(100);
  });

  it('request_time is epoch milliseconds in the list', async () => {
    const page = await list({ limit: 1 });
    expect(page.results[0].request_time).toBe(oracle(mine, {}, Date.parse(start), NOW)[0].time);
  });
});

describe('GET /waap/v1/analytics/requests errors', () => {
  async function expect422(query: Record<string, string | string[] | undefined>, loc: (string | number)[]) {
    const res = await t.request('GET', url(query), { headers: a.headers });
    expect(res.statusCode, res.body).toBe(422);
    expectConforms('GET', '/waap/v1/analytics/requests', res);
    const body = res.json();
    expect(body).toMatchObject({ type: 'request-validation-failed', title: 'Request validation error.', status: 422, detail: expect.any(String) });
    expect(body.errors.map((e: { loc: unknown }) => e.loc)).toContainEqual(loc);
  }

  it('requires start', () => expect422({}, ['query', 'start']));
  it('rejects a bad date', () => expect422({ start: 'yesterday' }, ['query', 'start']));
  it('rejects an impossible date', () => expect422({ start: '2026-02-30T00:00:00Z' }, ['query', 'start']));
  it('rejects a bad end', () => expect422({ start, end: '2026-13-01' }, ['query', 'end']));
  it('rejects an end before start', () => expect422({ start, end: new Date(NOW - 40 * DAY).toISOString() }, ['query', 'end']));
  it('rejects a start older than the 30-day retention', () => expect422({ start: new Date(NOW - 31 * DAY).toISOString() }, ['query', 'start']));
  it('rejects an unknown decision', () => expect422({ start, decision: ['evil'] }, ['query', 'decision', '0']));
  it('rejects an unknown method', () => expect422({ start, http_methods: ['FETCH'] }, ['query', 'http_methods', '0']));
  it('rejects a non-integer domain id', () => expect422({ start, domains: ['abc'] }, ['query', 'domains', '0']));
  it('rejects a bad IP', () => expect422({ start, ips: ['300.1.1.1'] }, ['query', 'ips', '0']));
  it('rejects a limit over 100', () => expect422({ start, limit: '101' }, ['query', 'limit']));
  it('rejects an offset over 100000', () => expect422({ start, offset: '100001' }, ['query', 'offset']));
  it('rejects an unknown ordering', () => expect422({ start, ordering: 'color' }, ['query', 'ordering']));

  it('accepts a start exactly 30 days back', async () => {
    const res = await t.request('GET', url({ start: new Date(NOW - 30 * DAY).toISOString() }), { headers: a.headers });
    expect(res.statusCode).toBe(200);
  });

  it('answers 401 and 403 in the WAAP envelope', async () => {
    expect((await t.request('GET', url({ start }))).json()).toEqual({ detail: expect.any(String) });
    const purge = await t.account({ role: 'Purge and Prefetch only (API)' });
    const res = await t.request('GET', url({ start }), { headers: purge.headers });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ detail: expect.any(String) });
  });
});

describe('tenancy', () => {
  it("never shows another client's events, even when asked for its domain", async () => {
    const body = await list({ limit: 100 }, b);
    expect(body.count).toBe(theirs.length);
    expect(body.results.every((r) => theirs.some((s) => s.id === r.id))).toBe(true);
    expect((await list({ domains: [String(domains[0])] }, b)).count).toBe(0);
    expect((await list({ request_ids: [mine[0].id] }, b)).count).toBe(0);
  });
});
