import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { createDomain } from '../../../tests/support/waap.js';

let t: TestApp;
let a: TestAccount;
let b: TestAccount;
const ids: Record<string, number> = {};

beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
  b = await t.account();
  await t.request('PUT', `/_edgeplane/waap/clients/${a.clientId}`, { headers: t.operator, body: { domain_quota: 4 } });
  for (const [name, status] of [
    ['beta.example.com', 'active'],
    ['alpha.example.com', 'monitor'],
    ['shop.example.org', 'bypass'],
    ['gamma.example.com', 'locked'],
  ]) {
    ids[name] = (await createDomain(t, a.clientId, name, status)).id;
    t.clock.advance(1000);
  }
  ids.other = (await createDomain(t, b.clientId, 'other.example.com')).id;
});
afterAll(async () => t.close());

const list = async (query = '', who = a) => {
  const res = await t.request('GET', `/waap/v1/domains${query}`, { headers: who.headers });
  expect(res.statusCode, res.body).toBe(200);
  expectConforms('GET', '/waap/v1/domains', res);
  return res.json() as { count: number; limit: number; offset: number; results: { id: number; name: string; status: string }[] };
};

describe('POST /_edgeplane/waap/domains', () => {
  it('creates domains within the quota only', async () => {
    const res = await t.request('POST', '/_edgeplane/waap/domains', { headers: t.operator, body: { client_id: a.clientId, name: 'five.example.com' } });
    expect(res.statusCode).toBe(409);
    const dup = await t.request('POST', '/_edgeplane/waap/domains', { headers: t.operator, body: { client_id: b.clientId, name: 'other.example.com' } });
    expect(dup.statusCode).toBe(409);
    const bad = await t.request('POST', '/_edgeplane/waap/domains', { headers: t.operator, body: { client_id: b.clientId, name: 'bad name' } });
    expect(bad.statusCode).toBe(422);
    expect(
      (await t.request('POST', '/_edgeplane/waap/domains', { headers: a.headers, body: { client_id: a.clientId, name: 'x.example.com' } })).statusCode,
    ).toBe(403);
  });
});

describe('GET /waap/v1/domains', () => {
  it("lists the client's domains by id with count, limit and offset", async () => {
    const body = await list();
    expect(body).toMatchObject({ count: 4, limit: 100, offset: 0 });
    expect(body.results.map((d) => d.name)).toEqual(['beta.example.com', 'alpha.example.com', 'shop.example.org', 'gamma.example.com']);
    expect(body.results[0]).toEqual({
      id: ids['beta.example.com'],
      name: 'beta.example.com',
      status: 'active',
      custom_page_set: null,
      created_at: expect.stringMatching(/Z$/),
      aliases: [],
    });
  });

  it('filters by name glob, status and ids', async () => {
    expect((await list('?name=*.example.com')).count).toBe(3);
    expect((await list('?name=ALPHA*')).results.map((d) => d.name)).toEqual(['alpha.example.com']);
    expect((await list('?status=locked')).results.map((d) => d.name)).toEqual(['gamma.example.com']);
    expect((await list(`?ids=${ids['alpha.example.com']}&ids=${ids['gamma.example.com']}`)).count).toBe(2);
    expect((await list(`?ids=${ids['alpha.example.com']},${ids.other}`)).count).toBe(1);
  });

  it('orders by every allowed field in both directions', async () => {
    expect((await list('?ordering=name')).results.map((d) => d.name)).toEqual([
      'alpha.example.com',
      'beta.example.com',
      'gamma.example.com',
      'shop.example.org',
    ]);
    expect((await list('?ordering=-name')).results[0].name).toBe('shop.example.org');
    expect((await list('?ordering=-created_at')).results[0].name).toBe('gamma.example.com');
    expect((await list('?ordering=status')).results.map((d) => d.status)).toEqual(['active', 'bypass', 'locked', 'monitor']);
    expect((await list('?ordering=-id')).results[0].id).toBe(ids['gamma.example.com']);
  });

  it('pages: limit 0, offsets at and past the end', async () => {
    expect(await list('?limit=0')).toEqual({ count: 4, limit: 0, offset: 0, results: [] });
    expect((await list('?limit=2&offset=2')).results.map((d) => d.name)).toEqual(['shop.example.org', 'gamma.example.com']);
    expect((await list('?offset=4')).results).toEqual([]);
  });

  it('answers 422 for bad query values', async () => {
    for (const q of ['?ordering=color', '?status=gone', '?limit=101', '?ids=x']) {
      const res = await t.request('GET', `/waap/v1/domains${q}`, { headers: a.headers });
      expect(res.statusCode).toBe(422);
      expectConforms('GET', '/waap/v1/domains', res);
      expect(res.json()).toMatchObject({ type: 'request-validation-failed', status: 422 });
    }
  });

  it("never lists another client's domains", async () => {
    expect((await list('', b)).results.map((d) => d.name)).toEqual(['other.example.com']);
  });
});

describe('GET, PATCH and DELETE /waap/v1/domains/{domain_id}', () => {
  it('reads one domain', async () => {
    const res = await t.request('GET', `/waap/v1/domains/${ids['alpha.example.com']}`, { headers: a.headers });
    expect(res.statusCode).toBe(200);
    expectConforms('GET', '/waap/v1/domains/{domain_id}', res);
    expect(res.json()).toMatchObject({ name: 'alpha.example.com', status: 'monitor', quotas: null });
  });

  it('switches status between active and monitor, refusing other values', async () => {
    const url = `/waap/v1/domains/${ids['alpha.example.com']}`;
    const res = await t.request('PATCH', url, { headers: a.headers, body: { status: 'active' } });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await t.request('GET', url, { headers: a.headers })).json().status).toBe('active');
    const bad = await t.request('PATCH', url, { headers: a.headers, body: { status: 'bypass' } });
    expect(bad.statusCode).toBe(422);
    expectConforms('PATCH', '/waap/v1/domains/{domain_id}', bad);
    expect(bad.json().errors[0].loc).toEqual(['body', 'status']);
    expect((await t.request('PATCH', url, { headers: a.headers, body: { status: 'active', extra: 1 } })).statusCode).toBe(422);
    const locked = await t.request('PATCH', `/waap/v1/domains/${ids['gamma.example.com']}`, { headers: a.headers, body: { status: 'active' } });
    expect(locked.statusCode).toBe(400);
    expect(locked.json()).toEqual({ type: 'http-bad-request', title: 'Bad Request', status: 400, detail: expect.any(String) });
    expectConforms('PATCH', '/waap/v1/domains/{domain_id}', locked);
    const bad2 = await t.request('PATCH', url, { headers: { ...a.headers, 'content-type': 'application/json' }, body: '{"status":' });
    expect(bad2.statusCode).toBe(400);
  });

  it('deletes only bypassed domains and frees the quota', async () => {
    const active = await t.request('DELETE', `/waap/v1/domains/${ids['beta.example.com']}`, { headers: a.headers });
    expect(active.statusCode).toBe(400);
    const res = await t.request('DELETE', `/waap/v1/domains/${ids['shop.example.org']}`, { headers: a.headers });
    expect(res.statusCode).toBe(204);
    expect((await t.request('GET', `/waap/v1/domains/${ids['shop.example.org']}`, { headers: a.headers })).statusCode).toBe(404);
    const me = await t.request('GET', '/waap/v1/clients/me', { headers: a.headers });
    expect(me.json().quotas['number-of-domains']).toEqual({ allowed: 4, current: 3 });
  });

  it("answers 404 for another client's or an unknown domain, on every method", async () => {
    for (const id of [ids.other, 999999]) {
      for (const [method, body] of [
        ['GET', undefined],
        ['PATCH', { status: 'active' }],
        ['DELETE', undefined],
      ] as const) {
        const res = await t.request(method, `/waap/v1/domains/${id}`, { headers: a.headers, body });
        expect(res.statusCode).toBe(404);
        expectConforms(method, '/waap/v1/domains/{domain_id}', res);
        expect(res.json()).toEqual({ type: 'http-not-found', title: 'Not Found', status: 404, detail: expect.any(String) });
      }
    }
  });

  it('answers 401 without a token and 403 for a read-only user writing', async () => {
    expect((await t.request('GET', `/waap/v1/domains/${ids['alpha.example.com']}`)).statusCode).toBe(401);
    const reader = await t.account({ role: 'Users' });
    const res = await t.request('PATCH', `/waap/v1/domains/${ids['alpha.example.com']}`, { headers: reader.headers, body: { status: 'active' } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ detail: expect.any(String) });
  });
});
