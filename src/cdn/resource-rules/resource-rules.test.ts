// A CDN resource's rules over HTTP: the six operations, names and patterns unique in the resource, the
// option rules shared with templates plus the conflicts with inherited options, deletion of active
// rules refused, the quota per resource, tenancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { QUOTAS } from '../limits.js';
import { RULE_OPTION_NAMES } from '../options/catalogue.js';
import { createGroup, createResource, createRule } from '../../../tests/support/cdn.js';

const LIST = '/cdn/resources/{resource_id}/rules';
const ITEM = `${LIST}/{rule_id}`;

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
const rulesOf = (resourceId: number) => `/cdn/resources/${resourceId}/rules`;

describe('create, read, list, change, delete', () => {
  it('creates a rule as the official client sends it, with the template fields and defaults', async () => {
    const resource = await createResource(t, a, { originProtocol: 'HTTPS' });
    const res = await call('POST', rulesOf(resource.id), {
      name: 'images',
      rule: '/images/.*',
      ruleType: 0,
      options: { edge_cache_settings: { enabled: true, value: '7d' } },
    });
    expect(res.statusCode, res.body).toBe(201);
    expectConforms('POST', LIST, res);
    expect(res.json()).toMatchObject({
      name: 'images',
      rule: '/images/.*',
      ruleType: 0,
      active: true,
      deleted: false,
      weight: 1,
      originGroup: null,
      originProtocol: 'HTTPS',
      overrideOriginProtocol: null,
      preset_applied: false,
      primary_rule: null,
    });
    expect(Object.keys(res.json().options).sort()).toEqual([...RULE_OPTION_NAMES].sort());
    expect(res.json().options.edge_cache_settings).toEqual({ enabled: true, value: '7d' });
    const got = await call('GET', `${rulesOf(resource.id)}/${res.json().id}`);
    expectConforms('GET', ITEM, got);
    expect(got.json()).toEqual(res.json());
    // The resource answers its rules.
    expect((await call('GET', `/cdn/resources/${resource.id}`)).json().rules).toEqual([res.json()]);
  });

  it('lists as an array or a page, per resource', async () => {
    const resource = await createResource(t, a);
    const other = await createResource(t, a);
    for (const n of [1, 2, 3]) await createRule(t, a, resource.id, { name: `r${n}`, rule: `/r${n}` });
    await createRule(t, a, other.id, { name: 'elsewhere', rule: '/e' });
    const plain = await call('GET', rulesOf(resource.id));
    expectConforms('GET', LIST, plain);
    expect(plain.json().map((r: { name: string }) => r.name)).toEqual(['r1', 'r2', 'r3']);
    const page = await t.request('GET', rulesOf(resource.id), { headers: a.headers, query: { limit: '2', offset: '2' } });
    expectConforms('GET', LIST, page);
    expect(page.json()).toMatchObject({ count: 3, next: null, results: [{ name: 'r3' }] });
  });

  it('PUT resets omitted fields (keeping the name); PATCH changes only what is sent', async () => {
    const resource = await createResource(t, a);
    const rule = await createRule(t, a, resource.id, {
      name: 'keep',
      rule: '/k',
      weight: 7,
      overrideOriginProtocol: 'HTTP',
      options: { gzipOn: { enabled: true, value: true } },
    });
    const put = await call('PUT', `${rulesOf(resource.id)}/${rule.id}`, { rule: '/k2', ruleType: 0 });
    expect(put.statusCode, put.body).toBe(200);
    expectConforms('PUT', ITEM, put);
    expect(put.json()).toMatchObject({ name: 'keep', rule: '/k2', weight: 1, overrideOriginProtocol: null, active: true });
    expect(put.json().options.gzipOn).toBeNull();
    const patch = await call('PATCH', `${rulesOf(resource.id)}/${rule.id}`, { weight: 3, options: { waap: { enabled: true, value: true } } });
    expectConforms('PATCH', ITEM, patch);
    expect(patch.json()).toMatchObject({ name: 'keep', rule: '/k2', weight: 3, options: { waap: { enabled: true, value: true } } });
  });

  it('an active rule cannot be deleted (400, errors list); once inactive: 204', async () => {
    const resource = await createResource(t, a);
    const rule = await createRule(t, a, resource.id, { rule: '/d' });
    const url = `${rulesOf(resource.id)}/${rule.id}`;
    const refused = await call('DELETE', url);
    expect(refused.statusCode).toBe(400);
    expectConforms('DELETE', ITEM, refused);
    expect(refused.json()).toEqual({ errors: ['The rule is active: deactivate it (active: false) before deleting it'] });
    await call('PATCH', url, { active: false });
    expect((await call('DELETE', url)).statusCode).toBe(204);
    expect((await call('GET', url)).statusCode).toBe(404);
  });
});

describe('refusals', () => {
  it('names and patterns are unique in the resource, not across resources', async () => {
    const resource = await createResource(t, a);
    await createRule(t, a, resource.id, { name: 'same', rule: '/same' });
    const res = await call('POST', rulesOf(resource.id), { name: 'same', rule: '/same', ruleType: 0 });
    expect(res.statusCode).toBe(400);
    expectConforms('POST', LIST, res);
    expect(Object.keys(res.json().errors).sort()).toEqual(['name', 'rule']);
    const other = await createResource(t, a);
    expect((await call('POST', rulesOf(other.id), { name: 'same', rule: '/same', ruleType: 0 })).statusCode).toBe(201);
  });

  it('reports schema, pattern and option problems together, and stores nothing', async () => {
    const resource = await createResource(t, a);
    const res = await call('POST', rulesOf(resource.id), {
      rule: 'img',
      ruleType: 0,
      weight: 0,
      options: { slice: { enabled: true, value: true }, gzipOn: { enabled: true, value: true } },
    });
    expect(res.statusCode).toBe(400);
    expect(Object.keys(res.json().errors).sort()).toEqual(['name', 'options.gzipOn', 'rule', 'weight']);
    expect((await call('GET', rulesOf(resource.id))).json()).toEqual([]);
  });

  it('refuses patterns that need backtracking, and an origin group of another account', async () => {
    const resource = await createResource(t, a);
    const lookahead = await call('POST', rulesOf(resource.id), { name: 'x', rule: '/(?=a)', ruleType: 0 });
    expect(lookahead.json().errors.rule[0]).toMatch(/linear-time/);
    const theirs = await createGroup(t, b);
    const group = await call('POST', rulesOf(resource.id), { name: 'x', rule: '/x', ruleType: 0, originGroup: theirs.id });
    expect(group.json().errors.originGroup[0]).toMatch(/No origin group/);
  });

  it('ignores unknown fields and the read-only ones of the answer', async () => {
    const resource = await createResource(t, a);
    const res = await call('POST', rulesOf(resource.id), { name: 'ro', rule: '/ro', ruleType: 0, id: 5, preset_applied: true, someday: 1 });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().id).not.toBe(5);
    expect(res.json().preset_applied).toBe(false);
  });

  it(`a resource has at most ${QUOTAS.rulesPerResource} rules`, async () => {
    const resource = await createResource(t, a);
    const now = Date.now();
    const rows = Array.from({ length: QUOTAS.rulesPerResource }, (_, i) => ({
      client_id: a.clientId,
      resource_id: resource.id,
      name: `q${i}`,
      rule: `/q${i}`,
      rule_type: 0,
      weight: 1,
      active: 1,
      override_origin_protocol: null,
      origin_group_id: null,
      options: '{}',
      created_at: now,
      updated_at: now,
    }));
    await t.db.kysely.insertInto('cdn_resource_rules').values(rows).execute();
    const res = await call('POST', rulesOf(resource.id), { name: 'over', rule: '/over', ruleType: 0 });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/100 rules/);
  });
});

describe('options inherited from the resource', () => {
  it('fetch_compressed on the resource: gzipOn in a rule needs fetch_compressed OFF in that rule (the seed)', async () => {
    const resource = await createResource(t, a, { options: { fetch_compressed: { enabled: true, value: true } } });
    const alone = await call('POST', rulesOf(resource.id), { name: 'gz', rule: '/gz', ruleType: 0, options: { gzipOn: { enabled: true, value: true } } });
    expect(alone.statusCode).toBe(400);
    expect(alone.json().errors['options.gzipOn'][0]).toMatch(/fetch_compressed, which the resource enables/);
    const withOff = await call('POST', rulesOf(resource.id), {
      name: 'gz',
      rule: '/gz',
      ruleType: 0,
      options: { gzipOn: { enabled: true, value: true }, fetch_compressed: { enabled: true, value: false } },
    });
    expect(withOff.statusCode, withOff.body).toBe(201);
  });
});

describe('tenancy and access', () => {
  it("another client's rule, or a rule under another resource, is a 404", async () => {
    const resource = await createResource(t, a);
    const rule = await createRule(t, a, resource.id, { rule: '/t' });
    const url = `${rulesOf(resource.id)}/${rule.id}`;
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { rule: '/x', ruleType: 0 }],
      ['PATCH', { name: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      expect((await call(method, url, body, b)).statusCode, method).toBe(404);
    }
    const mine = await createResource(t, a);
    const misplaced = await call('GET', `${rulesOf(mine.id)}/${rule.id}`);
    expect(misplaced.statusCode).toBe(404);
    expect(misplaced.json()).toEqual({ detail: 'Rule not found' });
  });

  it('a read-only token is refused writes (403) before anything else', async () => {
    const resource = await createResource(t, a);
    const reader = await t.account({ role: 'Users' });
    expect((await call('POST', rulesOf(resource.id), { name: 'x', rule: '/x', ruleType: 0 }, reader)).statusCode).toBe(403);
  });
});
