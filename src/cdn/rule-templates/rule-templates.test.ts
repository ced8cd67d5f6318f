// The six operations, tenancy, system templates, read-only fields, pagination and deprecations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { RULE_OPTION_NAMES as OPTION_NAMES } from '../options/catalogue.js';

const BASE = '/cdn/resources/rule_templates';
const ITEM = `${BASE}/{rule_template_id}`;
const SYSTEM_COUNT = 3;

let t: TestApp;
let a: TestAccount;
let b: TestAccount;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
  b = await t.account();
});
afterAll(async () => t.close());

async function create(body: Record<string, unknown>, account = a) {
  const res = await t.request('POST', BASE, { headers: account.headers, body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function systemTemplate(account = a) {
  const list = await t.request('GET', BASE, { headers: account.headers });
  return list.json().find((r: { default: boolean }) => r.default);
}

describe('POST', () => {
  it('creates with defaults for the omitted fields, every option key present', async () => {
    const res = await t.request('POST', BASE, { headers: a.headers, body: { rule: '/a/', ruleType: 0 } });
    expect(res.statusCode).toBe(201);
    expectConforms('POST', BASE, res);
    const body = res.json();
    expect(body).toMatchObject({
      name: '',
      client: a.clientId,
      deleted: false,
      rule: '/a/',
      ruleType: 0,
      weight: 1,
      template: true,
      default: false,
      overrideOriginProtocol: null,
    });
    expect(Object.keys(body)).toEqual([
      'id',
      'name',
      'client',
      'deleted',
      'rule',
      'ruleType',
      'weight',
      'template',
      'default',
      'overrideOriginProtocol',
      'options',
    ]);
    expect(Object.keys(body.options).sort()).toEqual([...OPTION_NAMES].sort());
    expect(Object.values(body.options).every((v) => v === null)).toBe(true);
    expect(res.headers.deprecation).toBeUndefined();
  });

  it('stores every given field, as the official client sends them', async () => {
    const body = await create({
      rule: '/img/*',
      ruleType: 0,
      name: 't',
      options: {
        gzipOn: { enabled: true, value: true },
        staticRequestHeaders: { enabled: true, value: { 'X-A': 'b' } },
        secure_key: { enabled: true, key: null, type: 2 },
        hostHeader: null,
      },
      overrideOriginProtocol: 'HTTPS',
      weight: 1,
    });
    expect(body).toMatchObject({ name: 't', rule: '/img/*', overrideOriginProtocol: 'HTTPS', weight: 1 });
    expect(body.options.secure_key).toEqual({ enabled: true, key: null, type: 2 });
    expect(body.options.hostHeader).toBeNull();
  });

  it.each(['HTTPS', 'HTTP', 'MATCH', null])('accepts overrideOriginProtocol %s', async (protocol) => {
    expect((await create({ rule: '/p', ruleType: 0, overrideOriginProtocol: protocol })).overrideOriginProtocol).toBe(protocol);
  });

  it('refuses another overrideOriginProtocol', async () => {
    const res = await t.request('POST', BASE, { headers: a.headers, body: { rule: '/p', ruleType: 0, overrideOriginProtocol: 'FTP' } });
    expect(res.statusCode).toBe(400);
    expect(Object.keys(res.json().errors)).toEqual(['overrideOriginProtocol']);
  });

  it('requires rule and ruleType', async () => {
    const res = await t.request('POST', BASE, { headers: a.headers, body: { name: 'x' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual({ rule: ['Field required'], ruleType: ['Field required'] });
  });
});

describe('rule, ruleType and weight', () => {
  const refused: [string, Record<string, unknown>, string, RegExp][] = [
    ['a rule of 301 characters', { rule: `/${'a'.repeat(300)}`, ruleType: 0 }, 'rule', /300/],
    ['ruleType 0 without a leading slash', { rule: 'img/.*', ruleType: 0 }, 'rule', /start with/],
    ['an invalid regular expression', { rule: '/img/(.*', ruleType: 0 }, 'rule', /regular expression/],
    ['ruleType 2', { rule: '/a', ruleType: 2 }, 'ruleType', /<= 1/],
    ['a string ruleType', { rule: '/a', ruleType: '0' }, 'ruleType', /integer/],
    ['weight 0', { rule: '/a', ruleType: 0, weight: 0 }, 'weight', />= 1/],
    ['weight 2147483648', { rule: '/a', ruleType: 0, weight: 2147483648 }, 'weight', /<= 2147483647/],
  ];
  it.each(refused)('refuses %s', async (_name, body, field, message) => {
    const res = await t.request('POST', BASE, { headers: a.headers, body });
    expect(res.statusCode).toBe(400);
    expect(Object.keys(res.json().errors)).toEqual([field]);
    expect(res.json().errors[field][0]).toMatch(message);
  });

  it('accepts the limits: 300 characters, ^/, weights 1 and 2147483647', async () => {
    expect((await create({ rule: `/${'a'.repeat(299)}`, ruleType: 0 })).rule).toHaveLength(300);
    expect((await create({ rule: '^/x', ruleType: 0, weight: 2147483647 })).weight).toBe(2147483647);
  });
});

describe('several problems at once', () => {
  it('reports schema and rule problems together, and stores nothing', async () => {
    const before = (await t.request('GET', BASE, { headers: a.headers })).json().count;
    const res = await t.request('POST', BASE, {
      headers: a.headers,
      body: {
        id: 7,
        rule: 'img',
        ruleType: 0,
        weight: 0,
        options: {
          gzipOn: { enabled: true, value: true },
          slice: { enabled: true, value: true },
          browser_cache_settings: { enabled: true, value: '2y' },
          force_return: { enabled: true, code: 99, body: 'x' },
        },
      },
    });
    expect(res.statusCode).toBe(400);
    expect(Object.keys(res.json().errors).sort()).toEqual([
      'id',
      'options.browser_cache_settings.value',
      'options.force_return.code',
      'options.gzipOn',
      'rule',
      'weight',
    ]);
    expect((await t.request('GET', BASE, { headers: a.headers })).json().count).toBe(before);
  });
});

describe('GET one', () => {
  it('reads a template, conforming', async () => {
    const { id } = await create({ rule: '/g', ruleType: 0, name: 'g' });
    const res = await t.request('GET', `${BASE}/${id}`, { headers: a.headers });
    expect(res.statusCode).toBe(200);
    expectConforms('GET', ITEM, res);
    expect(res.json()).toMatchObject({ id, name: 'g' });
  });

  it('404 for a missing id; 400 for a non-integer id', async () => {
    const missing = await t.request('GET', `${BASE}/999999`, { headers: a.headers });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ detail: 'Rule template not found' });
    const bad = await t.request('GET', `${BASE}/abc`, { headers: a.headers });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toHaveProperty(['path.rule_template_id']);
  });
});

describe('PUT', () => {
  it('replaces the whole template: omitted optional fields go back to their defaults', async () => {
    const { id } = await create({
      rule: '/r',
      ruleType: 0,
      name: 'full',
      weight: 5,
      overrideOriginProtocol: 'HTTPS',
      options: { gzipOn: { enabled: true, value: true } },
    });
    const res = await t.request('PUT', `${BASE}/${id}`, { headers: a.headers, body: { rule: '/s', ruleType: 0 } });
    expect(res.statusCode).toBe(200);
    expectConforms('PUT', ITEM, res);
    expect(res.json()).toMatchObject({ id, name: '', rule: '/s', weight: 1, overrideOriginProtocol: null });
    expect(res.json().options.gzipOn).toBeNull();
  });

  it('requires rule and ruleType, and changes nothing when refused', async () => {
    const { id } = await create({ rule: '/r', ruleType: 0, name: 'keep' });
    const res = await t.request('PUT', `${BASE}/${id}`, { headers: a.headers, body: { name: 'new' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual({ rule: ['Field required'], ruleType: ['Field required'] });
    expect((await t.request('GET', `${BASE}/${id}`, { headers: a.headers })).json().name).toBe('keep');
  });
});

describe('PATCH', () => {
  it('changes only the fields sent', async () => {
    const { id } = await create({
      rule: '/r',
      ruleType: 0,
      name: 'n1',
      weight: 9,
      overrideOriginProtocol: 'HTTP',
      options: { waap: { enabled: true, value: true } },
    });
    const res = await t.request('PATCH', `${BASE}/${id}`, { headers: a.headers, body: { name: 'n2', overrideOriginProtocol: null } });
    expect(res.statusCode).toBe(200);
    expectConforms('PATCH', ITEM, res);
    expect(res.json()).toMatchObject({ name: 'n2', overrideOriginProtocol: null, weight: 9, rule: '/r' });
    expect(res.json().options.waap).toEqual({ enabled: true, value: true });
  });

  it('checks the result against the stored template: a new option conflicting with a stored one is refused', async () => {
    const { id } = await create({ rule: '/r', ruleType: 0, options: { gzipOn: { enabled: true, value: true } } });
    const res = await t.request('PATCH', `${BASE}/${id}`, { headers: a.headers, body: { options: { slice: { enabled: true, value: true } } } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors['options.gzipOn'][0]).toMatch(/slice/);
    expect((await t.request('GET', `${BASE}/${id}`, { headers: a.headers })).json().options.slice).toBeNull();
  });

  it('checks a new ruleType against the stored rule', async () => {
    const { id } = await create({ rule: 'img/.*', ruleType: 1 });
    const res = await t.request('PATCH', `${BASE}/${id}`, { headers: a.headers, body: { ruleType: 0 } });
    expect(res.statusCode).toBe(400);
    expect(Object.keys(res.json().errors)).toEqual(['rule']);
  });

  it('a list shows a change made after an earlier list, as the item reads it', async () => {
    const { id } = await create({ rule: '/kept', ruleType: 0, name: 'before', options: { gzipOn: { enabled: true, value: true } } });
    const listed = async () => (await t.request('GET', BASE, { headers: a.headers })).json().find((r: { id: number }) => r.id === id);
    expect((await listed()).name).toBe('before');
    await t.request('PATCH', `${BASE}/${id}`, { headers: a.headers, body: { name: 'after', options: { gzipOn: { enabled: false, value: true } } } });
    const after = await listed();
    expect(after.name).toBe('after');
    expect(after.options.gzipOn).toEqual({ enabled: false, value: true });
    expect(after).toEqual((await t.request('GET', `${BASE}/${id}`, { headers: a.headers })).json());
  });

  it('accepts an empty body and changes nothing', async () => {
    const created = await create({ rule: '/r', ruleType: 0, name: 'same' });
    const res = await t.request('PATCH', `${BASE}/${created.id}`, { headers: a.headers, body: {} });
    expect(res.json()).toEqual(created);
  });
});

describe('DELETE', () => {
  it('deletes: 204, then 404 and gone from the list', async () => {
    const { id } = await create({ rule: '/d', ruleType: 0 });
    // As the official client sends it: Accept */*, a JSON content type and no body.
    const res = await t.request('DELETE', `${BASE}/${id}`, { headers: { ...a.headers, accept: '*/*', 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(204);
    expectConforms('DELETE', ITEM, res);
    expect(res.body).toBe('');
    expect((await t.request('GET', `${BASE}/${id}`, { headers: a.headers })).statusCode).toBe(404);
    expect((await t.request('DELETE', `${BASE}/${id}`, { headers: a.headers })).statusCode).toBe(404);
    const ids = (await t.request('GET', BASE, { headers: a.headers })).json().map((r: { id: number }) => r.id);
    expect(ids).not.toContain(id);
  });
});

describe('read-only fields', () => {
  const values: Record<string, unknown> = { id: 1, client: 1, deleted: false, template: true, default: false };
  for (const [field, value] of Object.entries(values)) {
    it(`refuses ${field} on POST, PUT and PATCH, naming it`, async () => {
      const { id } = await create({ rule: '/ro', ruleType: 0 });
      for (const [method, url] of [
        ['POST', BASE],
        ['PUT', `${BASE}/${id}`],
        ['PATCH', `${BASE}/${id}`],
      ]) {
        const res = await t.request(method, url, { headers: a.headers, body: { rule: '/ro', ruleType: 0, [field]: value } });
        expect(res.statusCode).toBe(400);
        expect(res.json().errors).toEqual({ [field]: ['This field is read-only and cannot be set'] });
      }
    });
  }
});

describe('system templates', () => {
  it('are listed and readable by every client, with default true', async () => {
    for (const account of [a, b]) {
      const list = (await t.request('GET', BASE, { headers: account.headers })).json();
      const system = list.filter((r: { default: boolean }) => r.default);
      expect(system).toHaveLength(SYSTEM_COUNT);
      expect(system.map((s: { name: string }) => s.name)).toEqual(['No cache for API paths', 'Images: WebP conversion', 'Static assets: long cache, gzip']);
      const one = await t.request('GET', `${BASE}/${system[0].id}`, { headers: account.headers });
      expect(one.statusCode).toBe(200);
      expectConforms('GET', ITEM, one);
      expect(one.json()).toMatchObject({ default: true, client: 0, template: true });
    }
  });

  it('cannot be changed or deleted (403), and stay unchanged', async () => {
    const system = await systemTemplate();
    const url = `${BASE}/${system.id}`;
    for (const [method, body] of [
      ['PUT', { rule: '/x', ruleType: 0 }],
      ['PATCH', { name: 'mine' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await t.request(method, url, { headers: a.headers, body });
      expect(res.statusCode).toBe(403);
      expect(res.json().detail).toMatch(/System templates .* cannot be changed or deleted/);
    }
    expect((await t.request('GET', url, { headers: a.headers })).json()).toEqual(system);
  });
});

describe('system templates after a reset', () => {
  it('are written again when a full reset of the data removed them, once', async () => {
    const fresh = await createTestApp();
    try {
      const c = await fresh.account();
      const names = async () =>
        (await fresh.request('GET', BASE, { headers: c.headers }))
          .json()
          .filter((r: { default: boolean }) => r.default)
          .map((r: { name: string }) => r.name);
      expect(await names()).toHaveLength(SYSTEM_COUNT);
      await fresh.db.kysely.deleteFrom('cdn_rule_templates').execute();
      expect(await names()).toHaveLength(SYSTEM_COUNT);
      expect(await names()).toHaveLength(SYSTEM_COUNT);
      const rows = await fresh.db.kysely.selectFrom('cdn_rule_templates').select('id').where('is_default', '=', 1).execute();
      expect(rows).toHaveLength(SYSTEM_COUNT);
    } finally {
      await fresh.close();
    }
  });
});

describe('tenancy and access', () => {
  it("another client's template is a 404 for every operation and absent from its list", async () => {
    const { id } = await create({ rule: '/mine', ruleType: 0 }, a);
    const url = `${BASE}/${id}`;
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { rule: '/x', ruleType: 0 }],
      ['PATCH', { name: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await t.request(method, url, { headers: b.headers, body });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ detail: 'Rule template not found' });
    }
    const ids = (await t.request('GET', BASE, { headers: b.headers })).json().map((r: { id: number }) => r.id);
    expect(ids).not.toContain(id);
    expect((await t.request('GET', url, { headers: a.headers })).json().rule).toBe('/mine');
  });

  it('401 without a token or with a wrong one', async () => {
    expect((await t.request('GET', BASE)).statusCode).toBe(401);
    const res = await t.request('POST', BASE, { headers: { authorization: 'APIKey 1_nope' }, body: { rule: '/a', ruleType: 0 } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ detail: expect.stringMatching(/Invalid API token/) });
  });

  it('a read-only user reads but cannot write (403)', async () => {
    const reader = await t.account({ role: 'Users' });
    expect((await t.request('GET', BASE, { headers: reader.headers })).statusCode).toBe(200);
    expect((await t.request('POST', BASE, { headers: reader.headers, body: { rule: '/a', ruleType: 0 } })).statusCode).toBe(403);
  });
});

describe('list and pagination', () => {
  it('pages with limit and offset; count is the total; next and previous link the pages', async () => {
    const c = await t.account();
    for (let i = 0; i < 5; i += 1) await create({ rule: `/p${i}`, ruleType: 0, name: `p${i}` }, c);
    const total = SYSTEM_COUNT + 5;
    const first = await t.request('GET', BASE, { headers: c.headers, query: { limit: '3' } });
    expectConforms('GET', BASE, first);
    expect(first.json().count).toBe(total);
    expect(first.json().results).toHaveLength(3);
    expect(first.json().previous).toBeNull();
    expect(first.json().next).toMatch(/\/cdn\/resources\/rule_templates\?limit=3&offset=3$/);
    const last = (await t.request('GET', BASE, { headers: c.headers, query: { limit: '3', offset: '6' } })).json();
    expect(last.results.map((r: { name: string }) => r.name)).toEqual(['p3', 'p4']);
    expect(last.next).toBeNull();
    expect(last.previous).toMatch(/limit=3&offset=3$/);
    const beyond = (await t.request('GET', BASE, { headers: c.headers, query: { limit: '10', offset: '100' } })).json();
    expect(beyond).toMatchObject({ count: total, results: [] });
  });

  it('the official client call (limit=1000) gives everything in a page; no limit gives a plain array', async () => {
    const c = await t.account();
    await create({ rule: '/only', ruleType: 0 }, c);
    const page = await t.request('GET', BASE, { headers: c.headers, query: { limit: '1000' } });
    expect(page.json()).toMatchObject({ count: SYSTEM_COUNT + 1, next: null, previous: null });
    expect(page.json().results).toHaveLength(SYSTEM_COUNT + 1);
    const plain = await t.request('GET', BASE, { headers: c.headers });
    expectConforms('GET', BASE, plain);
    expect(plain.json()).toEqual(page.json().results);
    const skipped = await t.request('GET', BASE, { headers: c.headers, query: { offset: '2' } });
    expect(skipped.json()).toEqual(page.json().results.slice(2));
  });

  it('a long list (written a slice at a time) is the same JSON text, plain and paged', async () => {
    const c = await t.account();
    for (let i = 0; i < 120; i += 1) await create({ rule: `/long${i}`, ruleType: 0, name: `long${i}` }, c);
    const plain = await t.request('GET', BASE, { headers: c.headers });
    expectConforms('GET', BASE, plain);
    expect(plain.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(plain.json()).toHaveLength(SYSTEM_COUNT + 120);
    expect(plain.body).toBe(JSON.stringify(plain.json()));
    const page = await t.request('GET', BASE, { headers: c.headers, query: { limit: '110', offset: '5' } });
    expectConforms('GET', BASE, page);
    expect(Object.keys(page.json())).toEqual(['count', 'next', 'previous', 'results']);
    expect(page.json()).toMatchObject({ count: SYSTEM_COUNT + 120, results: plain.json().slice(5, 115) });
    expect(page.body).toBe(JSON.stringify(page.json()));
  });

  it.each([
    ['limit', '0'],
    ['limit', '1001'],
    ['offset', '-1'],
    ['limit', 'x'],
  ])('refuses %s=%s', async (name, value) => {
    const res = await t.request('GET', BASE, { headers: a.headers, query: { [name]: value } });
    expect(res.statusCode).toBe(400);
    expect(Object.keys(res.json().errors)).toEqual([`query.${name}`]);
  });
});

describe('deprecations', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    [
      'cache_http_headers',
      { rule: '/dep', ruleType: 0, options: { cache_http_headers: { enabled: true, value: ['vary'] } } },
      'options.cache_http_headers; use options.response_headers_hiding_policy',
    ],
    [
      'disable_cache',
      { rule: '/dep', ruleType: 0, options: { disable_cache: { enabled: true, value: true } } },
      'options.disable_cache; use options.edge_cache_settings',
    ],
    ['ruleType 1', { rule: 'dep/.*', ruleType: 1 }, 'ruleType 1; use ruleType 0'],
  ];
  it.each(cases)('%s is accepted, works, and is named with its replacement in the Deprecation header', async (_name, body, header) => {
    const res = await t.request('POST', BASE, { headers: a.headers, body });
    expect(res.statusCode).toBe(201);
    expect(res.headers.deprecation).toBe(header);
    const { id } = res.json();
    const read = await t.request('GET', `${BASE}/${id}`, { headers: a.headers });
    expect(read.headers.deprecation).toBe(header);
    expect(read.json()).toMatchObject(body);
  });

  it('names several at once, and no header once they are gone', async () => {
    const res = await t.request('POST', BASE, {
      headers: a.headers,
      body: { rule: 'x', ruleType: 1, options: { disable_cache: { enabled: false, value: false }, cache_http_headers: { enabled: false, value: [] } } },
    });
    expect(res.headers.deprecation).toBe(
      'options.cache_http_headers; use options.response_headers_hiding_policy, options.disable_cache; use options.edge_cache_settings, ruleType 1; use ruleType 0',
    );
    const cleaned = await t.request('PUT', `${BASE}/${res.json().id}`, { headers: a.headers, body: { rule: '/x', ruleType: 0 } });
    expect(cleaned.headers.deprecation).toBeUndefined();
  });
});
