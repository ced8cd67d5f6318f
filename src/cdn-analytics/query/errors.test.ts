// Errors of the GraphQL endpoint, each with its exact body: HTTP 400 for a body that is not a GraphQL
// request, HTTP 200 with `errors` for anything wrong in the document or its execution, and the
// authentication errors in the same `{errors: [{message}]}` form. Also the playground and introspection.
import fs from 'node:fs';
import { printSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { analyticsSchema } from './graphql-schema.js';
import { ANALYTICS_SDL } from './sdl.js';
import { DAY, gql } from '../../../tests/support/cdn-analytics.js';

let t: TestApp;
let a: TestAccount;
// Fixed at load: the argument-error cases below are built before the app exists.
const now = Date.now() - (Date.now() % 1000);
const iso = (ms: number) => new Date(ms).toISOString();

beforeAll(async () => {
  t = await createTestApp();
  t.clock.freeze();
  t.clock.set(now);
  a = await t.account();
});
afterAll(async () => t.close());

const post = (body: unknown, headers: Record<string, string> = a.headers) => t.request('POST', '/cdn/advanced/v2/query', { headers, body });

describe('400: the body is not a GraphQL request', () => {
  const prefix = 'The body is not a GraphQL request: ';
  const cases: [string, unknown, string][] = [
    ['an array', [{ query: '{ retentionDays }' }], 'expected a JSON object {"query": "...", "variables": {...}, "operationName": "..."}.'],
    ['a JSON string', '"{ retentionDays }"', 'expected a JSON object {"query": "...", "variables": {...}, "operationName": "..."}.'],
    ['no query', { variables: {} }, '"query" is missing.'],
    ['a null query', { query: null }, '"query" is missing.'],
    ['a query that is not a string', { query: 42 }, '"query" must be a string.'],
    ['variables that are not an object', { query: '{ retentionDays }', variables: [1] }, '"variables" must be an object or null.'],
    ['an operationName that is not a string', { query: '{ retentionDays }', operationName: 7 }, '"operationName" must be a string or null.'],
  ];
  for (const [name, body, message] of cases) {
    it(name, async () => {
      const res = await post(body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ errors: [{ message: prefix + message }] });
    });
  }

  it('unparseable JSON', async () => {
    const res = await post('{"query": ');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ errors: [{ message: expect.stringMatching(/^JSON parse error - /) }] });
  });

  it('an empty body', async () => {
    const res = await t.request('POST', '/cdn/advanced/v2/query', { headers: { ...a.headers, 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ errors: [{ message: `${prefix}expected a JSON object {"query": "...", "variables": {...}, "operationName": "..."}.` }] });
  });

  it('415 for a body that is not JSON', async () => {
    const res = await post('{ retentionDays }', { ...a.headers, 'content-type': 'application/graphql' });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ errors: [{ message: expect.stringMatching(/Unsupported Media Type/i) }] });
  });

  it('unknown keys of the body are ignored (GraphQL over HTTP)', async () => {
    const res = await post({ query: '{ retentionDays }', extensions: { persistedQuery: null } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { retentionDays: 90 } });
  });
});

describe('200 with errors: the document or its execution failed', () => {
  const window = () => ({ from: iso(now - DAY), to: iso(now) });
  const expectErrors = async (body: unknown, expected: unknown) => {
    const res = await post(body);
    expect(res.statusCode).toBe(200);
    expectConforms('POST', '/cdn/advanced/v2/query', res);
    expect(res.json()).toEqual(expected);
  };

  it('syntax error', () =>
    expectErrors(
      { query: '{ statistics(' },
      {
        errors: [{ message: 'Syntax Error: Expected Name, found <EOF>.', locations: [{ line: 1, column: 14 }], extensions: { code: 'GRAPHQL_PARSE_FAILED' } }],
      },
    ));

  it('unknown field', () =>
    expectErrors(
      { query: '{ visitors }' },
      {
        errors: [
          { message: 'Cannot query field "visitors" on type "Query".', locations: [{ line: 1, column: 3 }], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } },
        ],
      },
    ));

  it('invalid DateTime literal', async () => {
    const res = await post({ query: '{ statistics(from: "yesterday", to: "2026-01-01T00:00:00Z") { rowCount } }' });
    expect(res.statusCode).toBe(200);
    expect(res.json().errors[0]).toMatchObject({
      message: expect.stringContaining('DateTime must be an ISO 8601 date'),
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    expect(res.json().data).toBeUndefined();
  });

  it('bad variable value: a request error, no data', async () => {
    const res = await post({
      query: 'query($from: DateTime!, $to: DateTime!) { statistics(from: $from, to: $to) { rowCount } }',
      variables: { from: 'soon', to: iso(now) },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data).toBeUndefined();
    expect(body.errors).toEqual([
      {
        message:
          'Variable "$from" got invalid value "soon"; DateTime must be an ISO 8601 date or date-time with a zone, e.g. "2026-11-01T00:00:00Z"; got "soon".',
        locations: [{ line: 1, column: 7 }],
        extensions: { code: 'BAD_USER_INPUT' },
      },
    ]);
  });

  it('from more than 90 days back: an error saying so', () =>
    expectErrors(
      { query: `{ statistics(from: "${iso(now - 91 * DAY)}", to: "${iso(now)}") { rowCount } }` },
      {
        data: null,
        errors: [
          {
            message: '`from` is more than 90 days back: statistics are kept for 90 days only.',
            locations: [{ line: 1, column: 3 }],
            path: ['statistics'],
            extensions: { code: 'RETENTION_EXCEEDED' },
          },
        ],
      },
    ));

  it('exactly 90 days back is allowed', async () => {
    const res = await post({ query: `{ statistics(from: "${iso(now - 90 * DAY)}", to: "${iso(now)}") { totals { requests } } }` });
    expect(res.json()).toEqual({ data: { statistics: { totals: { requests: 0 } } } });
  });

  const argumentErrors: [string, string, string][] = [
    ['from not before to', `from: "${iso(now)}", to: "${iso(now)}"`, '`from` must be earlier than `to`.'],
    ['limit 0', `from: "${iso(now - DAY)}", to: "${iso(now)}", limit: 0`, 'limit must be from 1 to 10000.'],
    ['limit too large', `from: "${iso(now - DAY)}", to: "${iso(now)}", limit: 10001`, 'limit must be from 1 to 10000.'],
    ['negative offset', `from: "${iso(now - DAY)}", to: "${iso(now)}", offset: -1`, 'offset must not be negative.'],
    ['time order without granularity', `from: "${iso(now - DAY)}", to: "${iso(now)}", orderBy: TIME_ASC`, 'orderBy TIME_ASC needs a granularity.'],
    [
      'too many buckets',
      `from: "${iso(now - 10 * DAY)}", to: "${iso(now)}", granularity: MINUTE`,
      'The window holds more than 10000 MINUTE buckets: choose a coarser granularity or a shorter window.',
    ],
    [
      'directory without a slash',
      `from: "${iso(now - DAY)}", to: "${iso(now)}", filter: { directories: ["images"] }`,
      'filter.directories: "images" must start with \'/\'.',
    ],
  ];
  for (const [name, args, message] of argumentErrors) {
    it(name, () =>
      expectErrors(
        { query: `{ statistics(${args}) { rowCount } }` },
        { data: null, errors: [{ message, locations: [{ line: 1, column: 3 }], path: ['statistics'], extensions: { code: 'BAD_USER_INPUT' } }] },
      ),
    );
  }

  it('one failing field does not fail the others (partial data)', async () => {
    const { from, to } = window();
    const res = await post({ query: `{ ok: statistics(from: "${from}", to: "${to}") { rowCount } retentionDays }` });
    expect(res.json()).toEqual({ data: { ok: { rowCount: 1 }, retentionDays: 90 } });
  });

  it('more than 10 root fields', async () => {
    const query = `{ ${Array.from({ length: 11 }, (_, i) => `r${i}: retentionDays`).join(' ')} }`;
    await expectErrors(
      { query },
      {
        errors: [
          {
            message: 'The operation selects 11 root fields; the limit is 10.',
            locations: [{ line: 1, column: 1 }],
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
          },
        ],
      },
    );
  });

  it('more than 100 fields in one selection set, fragments counted at each spread, refused before the other rules run', async () => {
    const fields = (n: number, name = 'rowCount') => Array.from({ length: n }, () => `a: ${name}`).join(' ');
    const { from, to } = window();
    const range = `from: "${from}", to: "${to}"`;
    const wide = await post({ query: `query Wide { statistics(${range}) { ${fields(101)} } }` });
    expect(wide.json()).toEqual({
      errors: [
        {
          message: 'Operation "Wide" selects 101 fields in one selection set; the limit is 100.',
          locations: [{ line: 1, column: 1 }],
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        },
      ],
    });
    // 60 fields in a fragment spread twice beside one more: 121. An unknown field in it is not reported:
    // the bounds are checked alone, first.
    const spread = `{ statistics(${range}) { ...F ...F x: rowCount } } fragment F on TrafficStatistics { ${fields(59)} nope }`;
    expect((await post({ query: spread })).json().errors).toEqual([
      expect.objectContaining({ message: 'The operation selects 121 fields in one selection set; the limit is 100.' }),
    ]);
    const fits = await post({ query: `{ statistics(${range}) { ${fields(100)} } }` });
    expect(fits.json()).toEqual({ data: { statistics: { a: 1 } } });
  });

  it('too deep a document', async () => {
    const res = await post({ query: 'query Deep { statistics(from: "2026-01-01", to: "2026-01-02") { totals { a { b { c { d { e { f { g } } } } } } } } }' });
    expect(res.statusCode).toBe(200);
    expect(res.json().errors).toContainEqual({
      message: 'Operation "Deep" is 9 levels deep; the limit is 8.',
      locations: [{ line: 1, column: 1 }],
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
  });

  it('too many tokens', async () => {
    const query = `{ ${'retentionDays '.repeat(2001)} }`;
    const res = await post({ query });
    expect(res.statusCode).toBe(200);
    expect(res.json().errors[0]).toMatchObject({
      message: 'Syntax Error: Document contains more that 2000 tokens. Parsing aborted.',
      extensions: { code: 'GRAPHQL_PARSE_FAILED' },
    });
  });

  it('a mutation: the schema has none', async () => {
    const res = await post({ query: 'mutation { retentionDays }' });
    expect(res.json()).toEqual({
      errors: [
        { message: 'Schema is not configured to execute mutation operation.', locations: [{ line: 1, column: 1 }], extensions: { code: 'BAD_USER_INPUT' } },
      ],
    });
  });

  it('operationName picks the operation; an unknown one is an error', async () => {
    const query = 'query A { retentionDays } query B { r: retentionDays }';
    expect((await post({ query, operationName: 'B' })).json()).toEqual({ data: { r: 90 } });
    expect((await post({ query, operationName: 'C' })).json()).toEqual({
      errors: [{ message: 'Unknown operation named "C".', extensions: { code: 'BAD_USER_INPUT' } }],
    });
    expect((await post({ query })).json()).toEqual({
      errors: [{ message: 'Must provide operation name if query contains multiple operations.', extensions: { code: 'BAD_USER_INPUT' } }],
    });
  });
});

describe('authentication and access', () => {
  const query = { query: '{ retentionDays }' };
  it('401 without a token', async () => {
    const res = await post(query, {});
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ errors: [{ message: 'Authentication credentials were not provided.' }] });
  });

  it('401 with an unknown token', async () => {
    const res = await post(query, { authorization: 'APIKey 1_doesnotexist' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ errors: [{ message: expect.stringMatching(/Invalid API token/) }] });
  });

  it('403 for a purge-only token and for the operator token', async () => {
    const purge = await t.account({ role: 'Purge and Prefetch only (API)' });
    for (const headers of [purge.headers, t.operator]) {
      const res = await post(query, headers);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ errors: [{ message: 'You do not have permission to perform this action.' }] });
    }
  });

  it('405 and 404 under /cdn/advanced are GraphQL-shaped too', async () => {
    const get = await t.request('GET', '/cdn/advanced/v2/query', { headers: a.headers });
    expect(get.statusCode).toBe(405);
    expect(get.json()).toEqual({ errors: [{ message: 'Method "GET" not allowed.' }] });
    const missing = await t.request('POST', '/cdn/advanced/v2/nothing', { headers: a.headers, body: query });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ errors: [{ message: 'No route for POST /cdn/advanced/v2/nothing' }] });
  });
});

describe('schema: introspectable and published', () => {
  it('answers the introspection query', async () => {
    const res = await post({ query: '{ __schema { queryType { name } } __type(name: "Dimension") { enumValues { name } } }' });
    expect(res.json()).toEqual({
      data: {
        __schema: { queryType: { name: 'Query' } },
        __type: { enumValues: ['COUNTRY', 'DIRECTORY', 'BROWSER', 'DEVICE', 'OS'].map((name) => ({ name })) },
      },
    });
  });

  it('the playground shows the SDL the server runs (run npx tsx scripts/analytics-sdl.ts after changing the schema)', () => {
    expect(ANALYTICS_SDL === printSchema(analyticsSchema)).toBe(true);
  });

  it('docs/cdn-analytics.md and the README publish the SDL the server runs', () => {
    for (const file of ['../../../docs/cdn-analytics.md', '../../../README.md']) {
      const text = fs.readFileSync(new URL(file, import.meta.url), 'utf8');
      expect(text, file).toContain(printSchema(analyticsSchema));
    }
  });
});

describe('GET /cdn/advanced/v2: the playground', () => {
  it('is a self-contained page served without a token', async () => {
    const res = await t.request('GET', '/cdn/advanced/v2');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const html = res.body;
    expect(html).toMatch(/^<!doctype html>/);
    for (const part of ['<textarea id="query"', '<textarea id="variables"', '<input id="key"', '<button id="run"', "+ '/query'", 'type Query {'])
      expect(html).toContain(part);
    // Works offline: no external scripts, styles or links.
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/https?:\/\//);
    // The schema, escaped: its descriptions' quotes are entities.
    expect(html).toContain(printSchema(analyticsSchema).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'));
  });
});

describe('OpenAPI document', () => {
  it('lists the query and playground operations', async () => {
    const res = await t.request('GET', '/openapi.json');
    expect(res.statusCode).toBe(200);
    const paths = res.json().paths;
    expect(paths['/cdn/advanced/v2/query'].post.operationId).toBe('cdn.advancedAnalytics.query');
    expect(paths['/cdn/advanced/v2'].get.operationId).toBe('cdn.advancedAnalytics.playground');
    expect(Object.keys(paths['/cdn/advanced/v2'].get.responses['200'].content)).toEqual(['text/html']);
  });
});
