// Isolation matrix, generated from /openapi.json: every operation with an object id in its path, called
// by a second client on the first client's objects, answers 404 (never 2xx, never 403: existence does not
// leak) and changes nothing; reseller tokens reach their sub-clients only; every role of the token table
// against every write route; expired and deleted tokens get 401 everywhere.
import fs from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP_NAMES, ROLE_ACCESS, type GroupName } from '../../src/platform/auth/principal.js';
import { createTestApp, engineName, type TestAccount, type TestApp } from '../support/app.js';
import { ownEverything, type Owned } from './support/fixture.js';
import { type Operation, operationsOf } from './support/operations.js';
import { validValue } from './support/schema-arb.js';

// These walk every route (with every role, or every kind of token): 4 to 16 s alone, 20 to 30 s on a
// loaded machine with PostgreSQL. Vitest's default budget of 30 s is too tight for them.
const WHOLE_API_MS = 120_000;

let t: TestApp;
let a: Owned;
let b: Owned;
let operations: Operation[];
const publicOps = new Set<string>();
const figures: Record<string, unknown> = {};

// The role table as docs/iam.md documents it: GET needs read, other methods write, purge and prefetch
// need purge; these operations differ (the account overview and its users are for every role of the
// account; the GraphQL analytics query reads; the reseller's network list is for admin-portal tokens).
const ACCESS: Record<string, string> = {
  'cdn.advancedAnalytics.query': 'read',
  'iam.account.get': 'account',
  'iam.users.list': 'account',
  'iam.users.get': 'account',
  'edge.networks.adminList': 'reseller',
};
const documentedAccess = (op: Operation) =>
  ACCESS[op.operationId] ?? (op.method === 'GET' ? 'read' : /\/(purge|prefetch)(\/|$)/.test(op.path) ? 'purge' : 'write');
// Operations whose service adds a check of its own past the route's access (administering tokens and
// users needs the account's administrator): a role may pass the route and still get 403 there.
const SERVICE_CHECKED = /^iam\.(tokens|users)\./;
// Path parameters that are not an object of the client (shared catalogue values).
const SHARED_PARAMS = new Set(['region_id', 'dimension']);

const madeUpValue = (schema: Operation['pathParams'][number]['schema']) => fc.sample(validValue(schema), { numRuns: 1, seed: 3 })[0];
/**
 * The path with the given ids, and the required query parameters (a tag's `key`); a parameter without an
 * id gets a schema-valid made-up value (a uuid, a name).
 */
const fill = (op: Operation, ids: Record<string, unknown[]>) => {
  const path = op.path.replace(/\{(\w+)\}/g, (_m, name) => {
    const schema = op.pathParams.find((p) => p.name === name)?.schema ?? {};
    return encodeURIComponent(String(ids[name]?.[0] ?? madeUpValue(schema)));
  });
  const query = new URLSearchParams(op.query.filter((q) => q.required).map((q) => [q.name, String(ids[q.name]?.[0] ?? madeUpValue(q.schema))]));
  return query.size ? `${path}?${query}` : path;
};
const clientOps = () => operations.filter((op) => !op.path.startsWith('/_edgeplane') && !publicOps.has(op.operationId));

/** Valid bodies for an operation (a few samples), so a refusal cannot come from validation alone. */
function bodies(op: Operation): unknown[] {
  if (!op.body) return [undefined];
  return fc.sample(validValue(op.body), { numRuns: 12, seed: 7 });
}

async function call(op: Operation, url: string, headers: Record<string, string>, body?: unknown) {
  return t.request(op.method, url, { headers, body });
}

beforeAll(async () => {
  t = await createTestApp();
  const problems: string[] = [];
  a = await ownEverything(t, await t.account(), problems);
  b = await ownEverything(t, await t.account(), problems);
  expect(problems).toEqual([]);
  operations = operationsOf((await t.request('GET', '/openapi.json')).json());
  for (const op of operations) {
    if ((await t.app.inject({ method: op.method as 'GET', url: fill(op, a.ids) })).statusCode !== 401) publicOps.add(op.operationId);
  }
}, 60_000);
afterAll(async () => {
  fs.mkdirSync('.ci/out/reliability', { recursive: true });
  fs.writeFileSync(`.ci/out/reliability/isolation-${engineName}.json`, JSON.stringify({ engine: engineName, ...figures }, null, 2));
  await t?.close();
});

describe(`isolation matrix (${engineName})`, () => {
  it(
    "a second client gets 404 on every operation that names the first client's object",
    async () => {
      let checked = 0;
      const leaks: string[] = [];
      const indistinguishable: string[] = [];
      // Reads and writes first, deletes last, so every call finds A's objects in place.
      const ordered = clientOps().sort((x, y) => Number(x.method === 'DELETE') - Number(y.method === 'DELETE'));
      for (const op of ordered) {
        const own = op.pathParams.filter((p) => !SHARED_PARAMS.has(p.name) && a.ids[p.name]?.length);
        if (own.length === 0) continue;
        const url = fill(op, a.ids);
        // The same call on ids nobody owns: an answer identical to it reveals nothing either.
        const madeUp = fill(
          op,
          Object.fromEntries(own.map((p) => [p.name, [typeof a.ids[p.name][0] === 'number' ? 987_654 : '00000000-0000-4000-8000-00000000abcd']])),
        );
        let reached = false;
        for (const body of bodies(op)) {
          const res = await call(op, url, b.account.headers, body);
          if (res.statusCode === 422 || res.statusCode === 400) continue;
          reached = true;
          if (res.statusCode === 404) break;
          const missing = await call(op, madeUp, b.account.headers, body);
          const same =
            missing.statusCode === res.statusCode && missing.body.replace(/"request_id":"[^"]*"/, '') === res.body.replace(/"request_id":"[^"]*"/, '');
          if (!same) leaks.push(`${op.method} ${url} (${op.operationId}) -> ${res.statusCode} ${res.body.slice(0, 160)}`);
          else indistinguishable.push(`${op.operationId} answers ${res.statusCode} for another client's id as for a missing one`);
          break;
        }
        if (reached) checked += 1;
        else leaks.push(`${op.operationId}: no generated body got past validation, isolation not checked`);
      }
      expect(leaks).toEqual([]);
      expect(checked).toBeGreaterThan(30);
      // Not a leak, but not the 404 the design asks for either: listed in docs/reliability.md.
      expect(indistinguishable.length).toBeLessThanOrEqual(2);
      Object.assign(figures, { crossClientOperations: checked, indistinguishable });
      // Nothing B tried changed A's objects: each is still there for A.
      const still = await Promise.all([
        t.request('GET', `/cdn/resources/rule_templates/${a.ids.rule_template_id[0]}`, { headers: a.account.headers }),
        t.request('GET', `/cloud/v1/tasks/${a.ids.task_id[0]}`, { headers: a.account.headers }),
        t.request('GET', `/security/notifier/v1/event_logs/${a.ids.event_log_id[0]}`, { headers: a.account.headers }),
        t.request('GET', `/waap/v1/domains/${a.ids.domain_id[0]}`, { headers: a.account.headers }),
        t.request('GET', `/cloud/v1/projects/${a.ids.project_id[0]}`, { headers: a.account.headers }),
        t.request('GET', `/iam/clients/${a.account.clientId}/tokens/${a.ids.tokenId[0]}`, { headers: a.account.headers }),
      ]);
      expect(still.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    },
    WHOLE_API_MS,
  );

  it("ids of another client's objects in bodies and filters find nothing", async () => {
    const [project, region] = [b.ids.project_id[0], b.ids.region_id[0]];
    const subnet = await t.request('POST', `/cloud/v1/subnets/${project}/${region}`, {
      headers: b.account.headers,
      body: { name: 'steal', network_id: a.ids.network_id[0], cidr: '10.9.0.0/24' },
    });
    // 400 here says the network does not exist in B's project: the same answer as for a missing network.
    expect([400, 404, 422]).toContain(subnet.statusCode);
    const tasks = await t.request('GET', `/cloud/v1/tasks?project_id=${a.ids.project_id[0]}`, { headers: b.account.headers });
    expect(tasks.json().count).toBe(0);
    const events = await t.request(
      'GET',
      `/waap/v1/analytics/requests?domains=${a.ids.domain_id[0]}&start=${new Date(t.clock.now() - 86_400_000).toISOString()}`,
      { headers: b.account.headers },
    );
    expect(events.statusCode === 404 || events.json().count === 0).toBe(true);
  });

  it('reseller tokens reach their sub-clients only', async () => {
    const reseller = await t.account({ reseller: true });
    const sub = await t.account({ resellerId: reseller.clientId });
    const token = { authorization: `APIKey ${await t.resellerToken(reseller.clientId, reseller.userId)}` };
    expect((await t.request('GET', `/iam/clients/${sub.clientId}/tokens`, { headers: token })).statusCode).toBe(200);
    expect((await t.request('GET', `/iam/clients/${a.account.clientId}/tokens`, { headers: token })).statusCode).toBe(404);
    expect((await t.request('GET', `/iam/clients/${a.account.clientId}/tokens/${a.ids.tokenId[0]}`, { headers: token })).statusCode).toBe(404);
    // Client routes are not reachable with an admin-portal token at all.
    for (const op of clientOps().filter((o) => !ACCESS[o.operationId] && !SERVICE_CHECKED.test(o.operationId))) {
      const res = await call(op, fill(op, a.ids), token, bodies(op)[0]);
      expect([403, 404], `${op.operationId} with a reseller token`).toContain(res.statusCode);
      expect(res.statusCode === 403 || op.pathParams.length > 0).toBe(true);
    }
    const mine = await t.request('GET', `/edge-functions/v1/admin/networks?client_id=${sub.clientId}`, { headers: token });
    expect(mine.statusCode).toBe(200);
    const other = await t.request('GET', `/edge-functions/v1/admin/networks?client_id=${a.account.clientId}`, { headers: token });
    expect(other.statusCode).toBe(404);
  });

  it(
    'every role of the token table against every route, reads, writes, deletes and purges alike',
    async () => {
      const tokens = new Map<GroupName, TestAccount>();
      for (const role of GROUP_NAMES) tokens.set(role, await t.account({ role }));
      const wrong: string[] = [];
      let pairs = 0;
      for (const op of clientOps()) {
        const access = documentedAccess(op);
        for (const [role, account] of tokens) {
          pairs += 1;
          const allowed = access === 'reseller' ? false : ROLE_ACCESS[role].has(access as never);
          const res = await call(op, fill(op, { ...owned(account) }), account.headers, bodies(op)[0]);
          if (!allowed && res.statusCode !== 403) wrong.push(`${role} ${op.operationId}: expected 403, got ${res.statusCode}`);
          if (allowed && (res.statusCode === 401 || (res.statusCode === 403 && !SERVICE_CHECKED.test(op.operationId))))
            wrong.push(`${role} ${op.operationId}: allowed, got ${res.statusCode} ${res.body.slice(0, 120)}`);
        }
      }
      expect(wrong).toEqual([]);
      expect(pairs).toBeGreaterThan(100);
      figures.rolePairs = pairs;
    },
    WHOLE_API_MS,
  );

  it(
    'expired and deleted tokens get 401 on every operation',
    async () => {
      const { clientId, userId } = a.account;
      const expired = await t.iam.tokens.issue({ clientId, userId, role: 'Administrators', name: 'expiring', expiresAt: t.clock.now() + 60_000 });
      const deleted = await t.iam.tokens.issue({ clientId, userId, role: 'Administrators', name: 'deleted' });
      expect((await t.request('GET', '/iam/clients/me', { headers: { authorization: `APIKey ${expired.token}` } })).statusCode).toBe(200);
      await t.clock.advance(120_000);
      const del = await t.request('DELETE', `/iam/clients/${clientId}/tokens/${deleted.id}`, { headers: a.account.headers });
      expect(del.statusCode).toBe(204);
      const wrong: string[] = [];
      for (const op of clientOps()) {
        for (const token of [expired.token, deleted.token]) {
          const res = await call(op, fill(op, a.ids), { authorization: `APIKey ${token}` }, bodies(op)[0]);
          if (res.statusCode !== 401) wrong.push(`${op.operationId}: ${res.statusCode}`);
          figures.deadTokenChecks = ((figures.deadTokenChecks as number) ?? 0) + 1;
        }
      }
      expect(wrong).toEqual([]);
    },
    WHOLE_API_MS,
  );
});

/** Path ids for a role's own account: its client id; other ids are placeholders (404 or 403 only matter). */
function owned(account: TestAccount): Record<string, unknown[]> {
  return { clientId: [account.clientId], client_id: [account.clientId], userId: [account.userId] };
}
