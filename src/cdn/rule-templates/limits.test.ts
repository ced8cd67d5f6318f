// What a rule template body may hold: unknown fields are ignored (the reference leaves the objects open),
// every string is bounded, the collection has a quota, and a client's pattern cannot stall the server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { QUOTAS } from '../limits.js';
import { RULE_OPTION_SCHEMAS } from '../options/catalogue.js';

const BASE = '/cdn/resources/rule_templates';
const MATCH = '/_edgeplane/cdn/rule-templates/match';

let t: TestApp;
let a: TestAccount;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
});
afterAll(async () => t.close());

const post = (body: unknown, account = a) => t.request('POST', BASE, { headers: account.headers, body });

describe('unknown fields', () => {
  it('are accepted and dropped: at the top, in options, and inside an option', async () => {
    const res = await post({
      rule: '/u',
      ruleType: 0,
      newer_field: 1,
      options: { gzipOn: { enabled: true, value: true, since: 'v2' }, brand_new_option: { enabled: true } },
    });
    expect(res.statusCode, res.body).toBe(201);
    expectConforms('POST', BASE, res);
    expect(res.json()).not.toHaveProperty('newer_field');
    expect(res.json().options.gzipOn).toEqual({ enabled: true, value: true });
    expect(res.json().options).not.toHaveProperty('brand_new_option');
    const row = await t.db.kysely.selectFrom('cdn_rule_templates').select('options').where('id', '=', res.json().id).executeTakeFirstOrThrow();
    expect(JSON.parse(row.options)).toEqual({ gzipOn: { enabled: true, value: true } });
  });

  it('the same on PUT and PATCH', async () => {
    const { id } = (await post({ rule: '/u2', ruleType: 0 })).json();
    expect((await t.request('PUT', `${BASE}/${id}`, { headers: a.headers, body: { rule: '/u3', ruleType: 0, extra: [1] } })).statusCode).toBe(200);
    const patched = await t.request('PATCH', `${BASE}/${id}`, {
      headers: a.headers,
      body: { extra: true, options: { slice: { enabled: false, value: false, note: 'x' } } },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().options.slice).toEqual({ enabled: false, value: false });
  });
});

describe('string limits', () => {
  it('a name of 255 characters is kept; 256 are refused with a 400 naming the field', async () => {
    expect((await post({ rule: '/n', ruleType: 0, name: 'n'.repeat(255) })).statusCode).toBe(201);
    const res = await post({ rule: '/n', ruleType: 0, name: 'n'.repeat(256) });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.name[0]).toMatch(/255/);
  });

  it('a megabyte name is refused, and the list still answers', async () => {
    const res = await post({ rule: '/big', ruleType: 0, name: 'x'.repeat(1_000_000) });
    expect([400, 413]).toContain(res.statusCode);
    expect((await t.request('GET', BASE, { headers: a.headers, query: { limit: '1000' } })).statusCode).toBe(200);
  });

  it('every string and list in the option schemas has a maximum', () => {
    const unbounded: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (!node || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      const types = ([] as unknown[]).concat(schema.type ?? []);
      if (types.includes('string') && schema.enum === undefined && schema.maxLength === undefined) unbounded.push(path);
      if (types.includes('array') && schema.maxItems === undefined) unbounded.push(path);
      if (types.includes('object') && schema.patternProperties && schema.maxProperties === undefined) unbounded.push(path);
      for (const [key, child] of Object.entries(schema)) {
        if (key === 'properties' || key === 'patternProperties') for (const [name, sub] of Object.entries(child as object)) walk(sub, `${path}.${name}`);
        else if (key === 'items' || key === 'propertyNames') walk(child, `${path}[]`);
        else if (key === 'anyOf') (child as unknown[]).forEach((branch) => walk(branch, path));
      }
    };
    for (const [name, schema] of Object.entries(RULE_OPTION_SCHEMAS)) walk(schema, name);
    expect(unbounded).toEqual([]);
  });
});

describe('quota', () => {
  it(`a client has at most ${QUOTAS.ruleTemplates} templates; the next is refused and nothing is stored`, async () => {
    const c = await t.account();
    const now = Date.now();
    const rows = Array.from({ length: QUOTAS.ruleTemplates - 1 }, (_, i) => ({
      client_id: c.clientId,
      name: `q${i}`,
      rule: `/q${i}`,
      rule_type: 0,
      weight: 1,
      override_origin_protocol: null,
      options: '{}',
      is_default: 0,
      system_key: null,
      deleted: 0,
      created_at: now,
      updated_at: now,
    }));
    for (let i = 0; i < rows.length; i += 100)
      await t.db.kysely
        .insertInto('cdn_rule_templates')
        .values(rows.slice(i, i + 100))
        .execute();
    expect((await post({ rule: '/last', ruleType: 0 }, c)).statusCode).toBe(201);
    const over = await post({ rule: '/over', ruleType: 0 }, c);
    expect(over.statusCode).toBe(400);
    expect(over.json().message).toMatch(new RegExp(`${QUOTAS.ruleTemplates} rule templates`));
    const page = (await t.request('GET', BASE, { headers: c.headers, query: { limit: '1' } })).json();
    expect(page.count).toBe(QUOTAS.ruleTemplates + 3);
    // Another client is not affected.
    expect((await post({ rule: '/fine', ruleType: 0 })).statusCode).toBe(201);
  });
});

describe('client patterns run in linear time', () => {
  it('a pattern exponential for a backtracking engine is stored and matched at once', async () => {
    const c = await t.account();
    expect((await post({ rule: '^/(a+)+$', ruleType: 0, name: 'evil' }, c)).statusCode).toBe(201);
    // A first call compiles the route's validators; the second is the one timed.
    await t.request('POST', MATCH, { headers: t.operator, body: { client_id: c.clientId, uri: '/warm-up' } });
    const started = performance.now();
    const res = await t.request('POST', MATCH, { headers: t.operator, body: { client_id: c.clientId, uri: `/${'a'.repeat(30)}!` } });
    expect(performance.now() - started).toBeLessThan(100);
    expect(res.json().template).toBeNull();
  });

  it('backreferences and lookarounds are refused with a 400 saying why', async () => {
    for (const rule of ['/(a)\\1', '/(?=x)y', '/(?<!x)y']) {
      const res = await post({ rule, ruleType: 0 });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors.rule[0]).toMatch(/linear-time matcher/);
    }
  });
});
