// The engine's operations are answered through one wildcard route and the engine's own router: each must
// still be reached with its own facts (operation id, access, declared errors), no modelled route may be
// reached in its place, and a request no operation matches must answer as if the wildcard were not there.
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trackRoutes } from '../platform/http.js';
import { createTestApp, type TestAccount, type TestApp } from '../../tests/support/app.js';
import type { RouteEntry } from '../platform/catalogue/routes.js';
import { engineOperationId, engineRoutes, splitByOverlap } from './routes.js';

let t: TestApp;
let a: TestAccount;

beforeAll(async () => {
  t = await createTestApp({ journalSize: 5000 });
  a = await t.account();
}, 60_000);
afterAll(async () => t?.close());

/** A concrete URL for an operation's path: every parameter a value of its own. */
const sampleUrl = (path: string) => path.replace(/\{([^}]+)\}/g, (_, name: string) => `p-${name}`);

async function journalOf(requestIds: Set<string>) {
  const entries: { requestId: string; operationId: string | null; method: string; path: string }[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = (await t.request('GET', `/_edgeplane/journal?limit=1000&offset=${offset}`, { headers: t.operator })).json();
    entries.push(...page.results);
    if (page.results.length < 1000) break;
  }
  return entries.filter((entry) => requestIds.has(entry.requestId));
}

const entry = (method: string, path: string): RouteEntry => ({ method, path, operationId: path, product: 'cloud', public: false, errorStatuses: [] });

describe('which operations keep a Fastify route of their own', () => {
  it('moves an operation a registered route overlaps, then every operation overlapping a moved one', () => {
    const shadowed = entry('GET', '/a/{p}/names');
    const behind = entry('GET', '/a/names/{q}');
    const apart = entry('GET', '/b/{p}');
    const otherMethod = entry('POST', '/a/{p}/names');
    const { routed, dispatched } = splitByOverlap([apart, shadowed, behind, otherMethod], [{ method: 'GET', url: '/a/:id/:sub' }]);
    // shadowed overlaps the registered route; behind overlaps shadowed (/a/names/names matches both).
    expect(routed).toEqual([shadowed, behind]);
    expect(dispatched).toEqual([apart, otherMethod]);
  });
});

describe('an engine whose every operation keeps a route of its own', () => {
  it('registers no wildcard, and its routes answer', async () => {
    const app = Fastify();
    const routes = trackRoutes(app);
    app.get('/a/:id', async () => ({ modelled: true }));
    await engineRoutes(app, routes, [entry('GET', '/a/b')], async (served) => ({ status: 200, body: { engine: served.path } }));
    await app.ready();
    expect((await app.inject({ method: 'GET', url: '/a/b' })).json()).toEqual({ engine: '/a/b' });
    expect((await app.inject({ method: 'GET', url: '/a/c' })).json()).toEqual({ modelled: true });
    expect((await app.inject({ method: 'GET', url: '/elsewhere' })).statusCode).toBe(404);
    await app.close();
  });
});

describe('the catalogue engine routes', () => {
  it('reaches every served operation, by its own operation id, and none through a modelled route', async () => {
    const served = t.catalogue.served();
    expect(served.length).toBeGreaterThan(600);
    await t.request('DELETE', '/_edgeplane/journal', { headers: t.operator });
    const expected = new Map<string, string>();
    const statuses = new Map<number, number>();
    for (const [i, entry] of served.entries()) {
      const requestId = `engine-${i}`;
      expected.set(requestId, engineOperationId(entry));
      const response = await t.request(entry.method, sampleUrl(entry.path), { headers: { ...a.headers, 'x-request-id': requestId } });
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      expect(response.statusCode, `${entry.method} ${entry.path}`).toBeLessThan(500);
    }
    const journal = await journalOf(new Set(expected.keys()));
    expect(journal).toHaveLength(served.length);
    const wrong = journal.filter((entry) => entry.operationId !== expected.get(entry.requestId));
    expect(wrong.map((e) => `${e.method} ${e.path}: ${e.operationId} (expected ${expected.get(e.requestId)})`)).toEqual([]);
    // Neither a 404 nor a 405: the router found each operation (its answers are the engine's own).
    expect(statuses.get(405)).toBeUndefined();
  }, 120_000);

  it('answers a path no operation has 404 without asking for credentials, and applies no fault to it', async () => {
    const fault = await t.request('POST', '/_edgeplane/faults', {
      headers: t.operator,
      body: { path: '/cdn/**', status: 503 },
    });
    expect(fault.statusCode).toBeLessThan(300);
    try {
      for (const method of ['GET', 'POST', 'DELETE']) {
        const response = await t.request(method, '/cdn/no/such/operation');
        expect(response.statusCode, method).toBe(404);
        expect(response.body).toContain(`No route for ${method} /cdn/no/such/operation`);
      }
      // An engine operation is faulted like any other.
      const faulted = await t.request('GET', '/cdn/activity_log/requests', { headers: a.headers });
      expect(faulted.statusCode).toBe(503);
    } finally {
      await t.request('DELETE', '/_edgeplane/faults', { headers: t.operator });
    }
  });

  it('answers 405 with Allow for a method an engine path does not have, and matches a trailing slash', async () => {
    const wrongMethod = await t.request('DELETE', '/cdn/activity_log/requests', { headers: a.headers });
    expect(wrongMethod.statusCode).toBe(405);
    expect(wrongMethod.headers.allow).toBe('GET');
    const slash = await t.request('GET', '/cdn/activity_log/requests/', { headers: a.headers });
    expect(slash.statusCode).toBe(200);
    // Authentication is asked as for any operation of the engine.
    expect((await t.request('GET', '/cdn/activity_log/requests')).statusCode).toBe(401);
  });

  it('decodes path parameters as the server router does, and refuses a bad or over-long one in the envelope', async () => {
    expect(t.catalogue.served().some((e) => e.method === 'PATCH' && e.path === '/cloud/v1/ports/{project_id}/{region_id}/{port_id}')).toBe(true);
    // A uuid with one letter percent-encoded is a uuid once decoded: not the 400 of a parameter that is not.
    const encoded = await t.request('PATCH', '/cloud/v1/ports/1/76/0000000%61-0000-4000-8000-000000000000', { headers: a.headers, body: {} });
    expect(encoded.statusCode).toBeLessThan(300);
    const plain = await t.request('PATCH', '/cloud/v1/ports/1/76/0000000%25-0000-4000-8000-000000000000', { headers: a.headers, body: {} });
    expect(plain.statusCode).toBe(400);
    expect(plain.json()).toMatchObject({ errors: [{ loc: ['path', 'port_id'] }] });
    for (const url of ['/cloud/v1/ports/1/76/%ZZ', `/cloud/v1/ports/1/76/${'x'.repeat(501)}`]) {
      const refused = await t.request('PATCH', url, { headers: a.headers, body: {} });
      expect(refused.statusCode, url).toBe(400);
      expect(refused.json(), url).toMatchObject({ code: 400, exception_class: 'BadRequestError' });
    }
  });
});
