// Purge and prefetch over HTTP: the three purge kinds, the reference's limits per request and per
// resource per minute (429 past them, on the server clock), the purge history with its filters and
// paging, the purge-only roles, tenancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { DURATIONS_MS, PURGE_LIMITS } from '../limits.js';
import { createResource } from '../../../tests/support/cdn.js';

const HISTORY = '/cdn/purge_statuses';

let t: TestApp;
let a: TestAccount;
let b: TestAccount;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
  b = await t.account();
});
afterAll(async () => t.close());

const call = (method: string, url: string, body?: unknown, account = a) => t.request(method, url, { headers: account.headers, body });
const purge = (id: number, body: unknown, account = a) => call('POST', `/cdn/resources/${id}/purge`, body, account);
const prefetch = (id: number, body: unknown, account = a) => call('POST', `/cdn/resources/${id}/prefetch`, body, account);
const minute = () => t.clock.advance(60_000);

describe('purge', () => {
  it('by URL, by pattern and everything, as the official client sends them (201, recorded)', async () => {
    const c = await t.account();
    const resource = await createResource(t, c);
    const byUrl = await t.request('POST', `/cdn/resources/${resource.id}/purge`, {
      headers: { ...c.headers, accept: '*/*' },
      body: { urls: ['/index.html', '/app.js?v=2'] },
    });
    expect(byUrl.statusCode, byUrl.body).toBe(201);
    expectConforms('POST', '/cdn/resources/{resource_id}/purge', byUrl);
    expect((await purge(resource.id, { paths: ['/images/*'] }, c)).statusCode).toBe(201);
    expect((await purge(resource.id, { paths: [] }, c)).statusCode).toBe(201);
    const history = await call('GET', HISTORY, undefined, c);
    expectConforms('GET', HISTORY, history);
    expect(history.json().map((p: { purge_type: string; payload: unknown }) => [p.purge_type, p.payload])).toEqual([
      ['purge_all', { paths: [] }],
      ['purge_by_pattern', { paths: ['/images/*'] }],
      ['purge_by_url', { urls: ['/index.html', '/app.js?v=2'] }],
    ]);
    expect(history.json()[0]).toMatchObject({ status: 'In progress', resource: { id: resource.id, cname: resource.cname } });
  });

  const refusals: [string, unknown, string, RegExp][] = [
    ['urls and paths together', { urls: ['/a'], paths: ['/b'] }, 'paths', /not both/],
    ['neither', {}, 'paths', /urls .* or paths/],
    ['an empty url list', { urls: [] }, 'urls', /at least one/],
    ['a url with a domain', { urls: ['https://cdn.example.com/a'] }, 'urls.0', /without scheme or domain/],
    ['a url without a leading slash', { urls: ['a.html'] }, 'urls.0', /starting with/],
    ['a star inside a pattern', { paths: ['/a*/b'] }, 'paths.0', /only at its end/],
    ['too many urls', { urls: Array.from({ length: PURGE_LIMITS.urlsPerRequest + 1 }, (_, i) => `/f${i}`) }, 'urls', /100/],
    ['too many patterns', { paths: Array.from({ length: PURGE_LIMITS.patternsPerRequest + 1 }, (_, i) => `/d${i}/*`) }, 'paths', /10/],
    ['a url that is not a string', { urls: [5] }, 'urls.0', /string/],
  ];
  it.each(refusals)('refuses %s with a 400 naming the field, recording nothing', async (_name, body, field, message) => {
    const resource = await createResource(t, a);
    const res = await purge(resource.id, body);
    expect(res.statusCode, res.body).toBe(400);
    expectConforms('POST', '/cdn/resources/{resource_id}/purge', res);
    expect(res.json().errors[field].join(' ')).toMatch(message);
    const rows = await t.db.kysely.selectFrom('cdn_purges').select('id').where('resource_id', '=', resource.id).execute();
    expect(rows).toEqual([]);
  });

  it('limits per resource per minute: 2 by URL, 1 by pattern, 1 everything; 429 past them, free again a minute later', async () => {
    const resource = await createResource(t, a);
    const other = await createResource(t, a);
    expect((await purge(resource.id, { urls: ['/1'] })).statusCode).toBe(201);
    expect((await purge(resource.id, { urls: ['/2'] })).statusCode).toBe(201);
    const third = await purge(resource.id, { urls: ['/3'] });
    expect(third.statusCode).toBe(429);
    expectConforms('POST', '/cdn/resources/{resource_id}/purge', third);
    expect(third.json().detail).toMatch(/2 purge-by-URL requests in the last minute/);
    expect(third.headers['retry-after']).toBe('60');
    expect(third.headers['x-should-retry']).toBe('false');
    expect((await purge(resource.id, { paths: ['/p/*'] })).statusCode).toBe(201);
    expect((await purge(resource.id, { paths: ['/q/*'] })).statusCode).toBe(429);
    expect((await purge(resource.id, { paths: [] })).statusCode).toBe(201);
    expect((await purge(resource.id, { paths: [] })).statusCode).toBe(429);
    // Another resource has limits of its own.
    expect((await purge(other.id, { urls: ['/1'] })).statusCode).toBe(201);
    await minute();
    expect((await purge(resource.id, { urls: ['/3'] })).statusCode).toBe(201);
    // Refused requests are not in the history.
    const history = (await call('GET', HISTORY, undefined, a)).json().filter((p: { resource: { id: number } }) => p.resource.id === resource.id);
    expect(history).toHaveLength(5);
  });
});

describe('concurrent requests', () => {
  it('agree on the limit: of five purges by URL at once, exactly two are accepted', async () => {
    const resource = await createResource(t, a);
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => purge(resource.id, { urls: [`/c${i}`] })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 201, 429, 429, 429]);
    const rows = await t.db.kysely.selectFrom('cdn_purges').select('id').where('resource_id', '=', resource.id).execute();
    expect(rows).toHaveLength(2);
  });
});

describe('prefetch', () => {
  it('takes paths (leading "/" optional), one request per resource per minute', async () => {
    const resource = await createResource(t, a);
    const res = await prefetch(resource.id, { paths: ['/video/big.mp4', 'test1.jpg'] });
    expect(res.statusCode, res.body).toBe(201);
    expectConforms('POST', '/cdn/resources/{resource_id}/prefetch', res);
    expect((await prefetch(resource.id, { paths: ['/again.mp4'] })).statusCode).toBe(429);
    await minute();
    expect((await prefetch(resource.id, { paths: ['/again.mp4'] })).statusCode).toBe(201);
  });

  it('refuses no paths, too many, and URLs with a domain', async () => {
    const resource = await createResource(t, a);
    expect((await prefetch(resource.id, { paths: [] })).json().errors).toHaveProperty('paths');
    expect((await prefetch(resource.id, {})).json().errors).toHaveProperty('paths');
    expect((await prefetch(resource.id, { paths: Array.from({ length: PURGE_LIMITS.prefetchPathsPerRequest + 1 }, (_, i) => `/f${i}`) })).statusCode).toBe(400);
    expect((await prefetch(resource.id, { paths: ['http://cdn.example.com/a.mp4'] })).json().errors).toHaveProperty(['paths.0']);
  });
});

describe('purge history', () => {
  it('filters by cname, type, status and time; pages with true counts; In progress then Successful', async () => {
    const c = await t.account();
    const one = await createResource(t, c);
    const two = await createResource(t, c);
    const start = t.clock.now();
    await purge(one.id, { urls: ['/a'] }, c);
    await purge(two.id, { paths: ['/b/*'] }, c);
    const list = async (query: Record<string, string>) => (await t.request('GET', HISTORY, { headers: c.headers, query })).json();
    expect((await list({ cname: one.cname })).map((p: { resource: { id: number } }) => p.resource.id)).toEqual([one.id]);
    expect((await list({ purge_type: 'purge_by_pattern' })).map((p: { resource: { id: number } }) => p.resource.id)).toEqual([two.id]);
    expect(await list({ status: 'Successful' })).toEqual([]);
    await t.clock.advance(DURATIONS_MS.purge);
    expect(await list({ status: 'In progress' })).toEqual([]);
    expect((await list({ status: 'Successful' })).length).toBe(2);
    expect(await list({ to_created: new Date(start - 1000).toISOString() })).toEqual([]);
    expect((await list({ from_created: new Date(start).toISOString() })).length).toBe(2);
    const page = await list({ limit: '1', offset: '1' });
    expect(page).toMatchObject({ count: 2, next: null, results: [{ resource: { id: one.id }, status: 'Successful' }] });
    // The official client asks for 1000 at a time: the page is lowered to 100, not refused.
    const official = await t.request('GET', HISTORY, { headers: c.headers, query: { limit: '1000' } });
    expect(official.statusCode).toBe(200);
    expectConforms('GET', HISTORY, official);
    expect(official.json().count).toBe(2);
  });

  it('refuses a malformed date (400)', async () => {
    const res = await t.request('GET', HISTORY, { headers: a.headers, query: { from_created: 'yesterday' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toHaveProperty(['query.from_created']);
  });
});

describe('access and tenancy', () => {
  it('the purge-only roles may purge and prefetch; read-only users may not', async () => {
    const resource = await createResource(t, a);
    const purger = await t.account({ role: 'Purge and Prefetch only (API)' });
    // The role's own account: the resource of another account is a 404 past the role check.
    expect((await purge(resource.id, { urls: ['/x'] }, purger)).statusCode).toBe(404);
    const reader = await t.account({ role: 'Users' });
    expect((await purge(resource.id, { urls: ['/x'] }, reader)).statusCode).toBe(403);
  });

  it("another client's resource is a 404, and its purges are not in the history", async () => {
    const resource = await createResource(t, a);
    await minute();
    await purge(resource.id, { paths: [] });
    expect((await purge(resource.id, { paths: [] }, b)).statusCode).toBe(404);
    expect((await prefetch(resource.id, { paths: ['/a'] }, b)).statusCode).toBe(404);
    expect((await call('GET', HISTORY, undefined, b)).json()).toEqual([]);
  });
});
