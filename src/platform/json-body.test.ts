// JSON bodies: the one pass over the text before it is parsed (how deep it nests, and whether its value
// can hold a NUL character or a non-finite number: when it cannot, validation skips its walk for them),
// and large bodies, checked and pruned in a thread, then parsed a piece at a time.
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../tests/support/app.js';
import { turnsDuring } from '../../tests/support/event-loop.js';
import { bodyShape } from './body-shape.js';
import { JsonBodyReading, LARGE_JSON, registerJsonParser } from './json-body.js';
import { bodyTextOf, MANY_ITEMS } from './json-body-text.js';
import { checkJsonText, scanJson } from './json-text.js';
import { isMarkedPruned } from './validation.js';

describe('scanJson', () => {
  it('measures nesting outside strings only, escapes honoured', () => {
    expect(scanJson('[[[1]]]', 3).tooDeep).toBe(false);
    expect(scanJson('[[[[1]]]]', 3).tooDeep).toBe(true);
    expect(scanJson('{"a":"[[[[\\"[[[["}', 3).tooDeep).toBe(false);
  });

  it.each([
    ['{"a":"x\\u0000y"}', 'a NUL escape in a value'],
    ['{"k\\u0000":1}', 'a NUL escape in a key'],
    ['[1e400]', 'a three-digit exponent'],
    ['[1E+308]', 'a signed exponent'],
    [`[${'9'.repeat(400)}]`, 'a 400-digit number'],
    [`{"a": ${'1'.repeat(250)}e99}`, 'a 250-digit number with a two-digit exponent'],
    ['{"a":[ \n -1.5e+999]}', 'whitespace and a sign before the number'],
  ])('says %s may not be storable (%s)', (text) => {
    expect(scanJson(text, 64).storable).toBe(false);
  });

  it('says every text whose value holds a NUL character or a non-finite number may not be storable', () => {
    for (const exponent of ['e99', 'e308', 'e309', 'E+400', 'e-400', '']) {
      for (const digits of [1, 100, 200, 201, 250, 309, 400]) {
        const text = `{"v":[0, ${'7'.repeat(digits)}${exponent}]}`;
        const parsed = JSON.parse(text) as { v: number[] };
        if (Number.isFinite(parsed.v[1])) continue;
        expect(scanJson(text, 64).storable, text.slice(0, 40)).toBe(false);
      }
    }
  });

  it.each([
    ['{"a":"x\\\\u0000y","b":"\\u00e9"}', 'an escaped backslash before u0000, and other \\u escapes'],
    ['{"a":"1e400","t":true,"f":false,"n":null}', 'a long exponent inside a string, and e in true/false'],
    ['[1.5e10, -2E-99, 123456789012345678901234567890]', 'ordinary numbers'],
  ])('says %s is storable (%s)', (text) => {
    expect(scanJson(text, 64).storable).toBe(true);
  });
});

describe('bodies the scan marks storable still meet every check', () => {
  it('refuses a NUL or an infinite number anywhere in a body, also in fields the route does not declare', async () => {
    const t = await createTestApp();
    try {
      const a = await t.account();
      const post = (body: string) =>
        t.request('POST', '/cdn/resources/rule_templates', { headers: { ...a.headers, 'content-type': 'application/json' }, body });
      expect((await post('{"name":"a","rule":"/a","ruleType":0,"extra":{"deep":[1e400]}}')).statusCode).toBe(400);
      expect((await post('{"name":"a","rule":"/a","ruleType":0,"extra":{"k\\u0000":1}}')).statusCode).toBe(400);
      const fine = await post('{"name":"a","rule":"/a","ruleType":0,"extra":{"deep":[1e99]}}');
      expect(fine.statusCode, fine.body).toBe(201);
    } finally {
      await t.close();
    }
  });
});

describe('large JSON bodies, checked in the thread and parsed a piece at a time', () => {
  const reading = new JsonBodyReading();
  afterAll(() => reading.close());
  const parseLargeJson = (text: string) => reading.read(Buffer.from(text), null);
  const padded = (value: Record<string, unknown>) => JSON.stringify({ ...value, padding: 'p'.repeat(LARGE_JSON) });

  it.each([
    ['{"a":"\\ud83d\\ude00 é\\n","n":[1.5e10,-0,123456789012345678901234567890,1e-7],"t":true,"z":null,"o":{}}', 'escapes, unicode and numbers'],
    ['[' + Array.from({ length: 9_000 }, (_, i) => `{"k":${i},"s":"v${i}"}`).join(',') + ']', 'many small objects'],
    ['"' + 'x'.repeat(100_000) + '"  \n', 'one long string, whitespace after'],
  ])('gives what JSON.parse gives (case %#)', async (text) => {
    expect(await parseLargeJson(text)).toEqual(JSON.parse(text));
  });

  it.each([
    ['{"a":1', 'cut short'],
    ['{"a":1}{"b":2}', 'two values'],
    ['[1,2,]', 'a trailing comma'],
    ['[' + '['.repeat(100) + ']'.repeat(100) + ']', 'nested past the limit'],
    ['{"a":{"__proto__":{"admin":true}}}', 'a __proto__ key'],
    ['{"a":{"\\u005f_proto__":{"admin":true}}}', 'an escaped __proto__ key'],
    ['{"constructor":{"prototype":{"admin":true}}}', 'a constructor.prototype key'],
  ])('refuses a body (case %#)', async (text) => {
    const body =
      text.length > LARGE_JSON
        ? text
        : text.replace(/^([[{])/, (open) => (open === '{' ? `{"padding":"${'p'.repeat(LARGE_JSON)}",` : `["${'p'.repeat(LARGE_JSON)}",`));
    await expect(parseLargeJson(body)).rejects.toMatchObject({ code: 'bad_request' });
  });

  it('moves bytes that own their memory to the thread, and copies a view of shared memory', async () => {
    const text = JSON.stringify({ a: 'é😀', padding: 'p'.repeat(LARGE_JSON) });
    const owned = new Uint8Array(Buffer.from(text));
    expect(await reading.read(owned, null)).toEqual(JSON.parse(text));
    expect(owned.byteLength).toBe(0);
    const shared = Buffer.alloc(text.length + 16);
    const view = shared.subarray(8, 8 + shared.write(text, 8));
    expect(await reading.read(view, null)).toEqual(JSON.parse(text));
    expect(shared.subarray(8, 8 + view.length).toString()).toBe(text);
  });

  it('refuses a body whose arrays hold more than 10,000 items in all, nested or not, and takes one at the bound', async () => {
    const items = (count: number) => Array(count).fill(1).join(',');
    await expect(reading.read(Buffer.from(`{"a":[${items(10_001)}]}`), null)).rejects.toMatchObject({ message: /arrays hold more than 10000 items/ });
    await expect(reading.read(Buffer.from(`[[${items(6_000)}],[${items(6_000)}]]`), null)).rejects.toMatchObject({ message: /more than 10000/ });
    const bound = `{"a":[${items(10_000)}],"padding":"${'p'.repeat(LARGE_JSON)}","o":{"x":1,"y":2}}`;
    expect(((await reading.read(Buffer.from(bound), null)) as { a: number[] }).a).toHaveLength(10_000);
    expect(scanJson(`[${items(10_001)}]`, 64).tooLong).toBe(true);
    expect(scanJson(`{${Array.from({ length: 20_000 }, (_, i) => `"k${i}":1`).join(',')}}`, 64).tooLong).toBe(false);
    expect(scanJson(`["${','.repeat(20_000)}"]`, 64).tooLong).toBe(false);
  });

  it('takes a body of nothing but white space as no body, as a small one', async () => {
    expect(await reading.read(Buffer.from(' \n'.repeat(LARGE_JSON)), null)).toBeUndefined();
  });

  it('gives other work a turn while it parses a 1 MB body', async () => {
    const text = JSON.stringify({ padding: Object.fromEntries(Array.from({ length: 90_000 }, (_, i) => [`k${i}`, i % 10])) });
    const { result, turns } = await turnsDuring(() => parseLargeJson(text));
    expect(Object.keys((result as { padding: object }).padding)).toHaveLength(90_000);
    expect(turns).toBeGreaterThan(3);
  });

  it('serves a large body through a route with the same checks as a small one', async () => {
    const t = await createTestApp();
    try {
      const a = await t.account();
      const post = (body: string) =>
        t.request('POST', '/cdn/resources/rule_templates', { headers: { ...a.headers, 'content-type': 'application/json' }, body });
      const made = await post(padded({ name: 'large', rule: '/large', ruleType: 0 }));
      expect(made.statusCode, made.body).toBe(201);
      expect(made.json()).toMatchObject({ name: 'large', rule: '/large' });
      expect((await post(padded({ name: 'inf', rule: '/a', ruleType: 0, extra: { deep: [1e300] } }).replace('1e+300', '1e400'))).statusCode).toBe(400);
      expect((await post(padded({ name: 'nul', rule: '/a', ruleType: 0, extra: { 'k\u0000': 1 } }))).statusCode).toBe(400);
      const broken = await post(padded({ name: 'cut', rule: '/a', ruleType: 0 }).slice(0, -1));
      expect(broken.statusCode).toBe(400);
      expect(broken.json().message ?? broken.body).toMatch(/JSON parse error/);
    } finally {
      await t.close();
    }
  });
});

describe('the bound on array items', () => {
  it("refuses a client's small body past it before parsing, and leaves the operator's bodies (state imports, seeds) unbounded", async () => {
    const t = await createTestApp();
    try {
      const a = await t.account();
      const body = JSON.stringify({ rule: '/r', ruleType: 0, many: Array(10_001).fill(1) });
      expect(body.length).toBeLessThan(LARGE_JSON);
      const client = await t.request('POST', '/cdn/resources/rule_templates', { headers: { ...a.headers, 'content-type': 'application/json' }, body });
      expect(client.statusCode).toBe(400);
      expect(client.body).toMatch(/arrays hold more than 10000 items in all/);
      // The seed refuses a field it does not know: the body was parsed and validated, not refused for its size.
      const seeded = await t.request('POST', '/_edgeplane/seed', {
        headers: { ...t.operator, 'content-type': 'application/json' },
        body: JSON.stringify({ many: Array(10_001).fill(1) }),
      });
      expect(seeded.statusCode).toBe(422);
      expect(seeded.body).not.toMatch(/arrays hold more/);
      expect(seeded.body).toMatch(/many/);
    } finally {
      await t.close();
    }
  });
});

describe('the text a body keeps for a check in a thread (bodyTextOf)', () => {
  it('is kept by a small body of many items and by every large one, exactly as parsed', async () => {
    const reading = new JsonBodyReading();
    const app = Fastify();
    app.decorateRequest('facts', null as never);
    app.addHook('onRequest', async (request) => {
      request.facts = { access: request.headers['x-operator'] ? 'operator' : 'read' } as never;
    });
    registerJsonParser(app, reading);
    app.post('/kept', async (request) => ({ text: bodyTextOf(request.body) ?? null }));
    try {
      const kept = async (body: string) =>
        (await app.inject({ method: 'POST', url: '/kept', headers: { 'content-type': 'application/json' }, body })).json().text;
      // Counted as the commas between items: MANY_ITEMS of them, in one array or several.
      const many = `{"a":[${Array(MANY_ITEMS + 1)
        .fill(1)
        .join(',')}]}`;
      expect(await kept(many)).toBe(many);
      // The operator's bodies (state imports of up to 256 MiB) keep none: nothing validates them in a thread.
      const operator = await app.inject({ method: 'POST', url: '/kept', headers: { 'content-type': 'application/json', 'x-operator': '1' }, body: many });
      expect(operator.json().text).toBeNull();
      expect(
        await kept(
          `[[${Array(MANY_ITEMS / 2 + 1)
            .fill(1)
            .join(',')}],[${Array(MANY_ITEMS / 2 + 1)
            .fill(1)
            .join(',')}]]`,
        ),
      ).not.toBeNull();
      expect(await kept(`{"a":[${Array(MANY_ITEMS).fill(1).join(',')}]}`)).toBeNull();
      expect(await kept('{"a":1}')).toBeNull();
      const large = JSON.stringify({ a: 1, padding: 'p'.repeat(LARGE_JSON) });
      expect(await kept(large)).toBe(large);
      expect(bodyTextOf(await reading.read(Buffer.from(large), null))).toBe(large);
    } finally {
      await app.close();
      await reading.close();
    }
  });
});

describe('members a route does not declare', () => {
  const TEMPLATES = '/cdn/resources/rule_templates';
  const padding = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, { k: i % 10 }]));

  it('are dropped in the thread: the main thread parses only the rest', async () => {
    const shape = bodyShape({ type: 'object', properties: { name: { type: 'string' } } });
    const text = JSON.stringify({ name: 'big', padding });
    expect(text.length).toBeGreaterThan(LARGE_JSON);
    expect(checkJsonText(text, shape)).toEqual({ storable: true, parse: '{"name":"big"}' });
    const reading = new JsonBodyReading();
    try {
      const value = await reading.read(Buffer.from(text), shape);
      expect(value).toEqual({ name: 'big' });
      expect(isMarkedPruned(value)).toBe(true);
      // What may hold a NUL or an infinite number is not pruned: validation refuses it wherever it is.
      const unstorable = text.replace('"k":1', '"k":1e400');
      expect(checkJsonText(unstorable, shape)).toEqual({ storable: false, parse: unstorable });
      expect(checkJsonText(`[${text}]`, shape)).toEqual({ storable: true, parse: `[${text}]` });
    } finally {
      await reading.close();
    }
  });

  it('are dropped from small and large bodies alike; declared read-only fields are still refused by name', async () => {
    const t = await createTestApp();
    try {
      const a = await t.account();
      const post = (body: unknown) => t.request('POST', TEMPLATES, { headers: a.headers, body });
      const small = await post({
        name: 'small',
        rule: '/small',
        ruleType: 0,
        padding: [{ k: 1 }],
        options: { gzipOn: { enabled: true, value: true, extra: 1 } },
      });
      const large = await post({ name: 'large', rule: '/large', ruleType: 0, padding, options: { gzipOn: { enabled: true, value: true, extra: 1 } } });
      expect(small.statusCode, small.body).toBe(201);
      expect(large.statusCode, large.body).toBe(201);
      const { id: _small, name: _n, rule: _r, ...smallRest } = small.json();
      const { id: _large, name: _m, rule: _s, ...largeRest } = large.json();
      expect(largeRest).toEqual(smallRest);
      expect(JSON.stringify(large.json())).not.toMatch(/padding|extra/);
      const readOnly = await post({ rule: '/ro', ruleType: 0, id: 5, padding });
      expect(readOnly.statusCode).toBe(400);
      expect(readOnly.json().errors).toEqual({ id: ['This field is read-only and cannot be set'] });
    } finally {
      await t.close();
    }
  });
});
