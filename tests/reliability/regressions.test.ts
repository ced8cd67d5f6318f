// Regression tests of the platform defects the fuzzer found (docs/reliability.md, "Defects found").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engineName, type TestAccount, type TestApp } from '../support/app.js';

let t: TestApp;
let a: TestAccount;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
});
afterAll(async () => t.close());

describe(`fuzzer regressions (${engineName})`, () => {
  it('an integer past 2^53 in a path is a 422, not a 500 from SQL ("1e+23" is not a bigint)', async () => {
    const res = await t.request('GET', `/iam/v2/clients/${a.clientId}/tokens/99999999999999999999999`, { headers: a.headers });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { path: { tokenId: ['Input must be <= 9007199254740991'] } } });
  });

  it('an integer query value that overflows to Infinity is a 422, not a 500 from serialization', async () => {
    const res = await t.request('GET', `/_edgeplane/cdn/access-records/count?clientId=${'9'.repeat(400)}`, { headers: t.operator });
    expect(res.statusCode).toBe(422);
  });

  it('numbers in paths and queries are decimal: 0x10 is not the id 16, 1e3 not 1000, " 7 " not 7', async () => {
    for (const bad of ['0x10', '1e3', '%207%20', '0b11']) {
      const res = await t.request('GET', `/iam/v2/clients/${bad}/tokens`, { headers: a.headers });
      expect(res.statusCode, bad).toBe(422);
      expect(res.json()).toEqual({ errors: { path: { clientId: ['Input should be of type integer'] } } });
    }
    // Cloud refuses bad input with its 400 BadRequestError (docs/cloud.md).
    const query = await t.request('GET', '/cloud/v1/regions?limit=0x10', { headers: a.headers });
    expect(query.statusCode).toBe(400);
    expect(query.json()).toMatchObject({ exception_class: 'BadRequestError', errors: [expect.objectContaining({ loc: ['query', 'limit'] })] });
    // Operations the catalogue engine answers read numbers the same way.
    const engine = await t.request('GET', '/cloud/v1/ssh_keys/0x1', { headers: a.headers });
    expect([400, 422]).toContain(engine.statusCode);
    expect((await t.request('GET', `/iam/v2/clients/${a.clientId}/tokens`, { headers: a.headers })).statusCode).toBe(200);
  });

  it('a JSON number that parses to Infinity is refused in the body', async () => {
    const res = await t.request('POST', '/cdn/resources/rule_templates', { headers: a.headers, body: '{"rule":"/a","ruleType":0,"weight":1e400}' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ errors: { weight: [expect.stringMatching(/finite number|<=/)] } });
  });

  it('a NUL character in a path, query or body string is a 422 on both engines (PostgreSQL text cannot hold it)', async () => {
    const path = await t.request('GET', '/waap/v1/domains/1/requests/%00/details', { headers: a.headers });
    expect(path.statusCode).toBe(422);
    const body = await t.request('POST', '/cdn/resources/rule_templates', { headers: a.headers, body: { name: 'a\u0000b', rule: '/a', ruleType: 0 } });
    expect(body.statusCode).toBe(400);
    expect(body.json()).toEqual({ errors: { name: ['Input must not contain a NUL character'] } });
  });

  it('an impossible date that matches the task list timestamp pattern is a 400 (was NaN in SQL: a 500 on PostgreSQL)', async () => {
    const res = await t.request('GET', '/cloud/v1/tasks?from_timestamp=1153-84-66-6218', { headers: a.headers });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 400, errors: [{ loc: ['query', 'from_timestamp'], type: 'datetime_parsing' }] });
  });

  it('router refusals (bad percent-encoding, over-long segment) answer in the product envelope', async () => {
    for (const url of ['/waap/v1/domains/%ZZ', `/waap/v1/domains/${'1'.repeat(600)}`]) {
      const res = await t.request('GET', url, { headers: a.headers });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ type: 'http-bad-request', title: 'Bad Request', status: 400 });
    }
  });

  // Found by the fuzzer: a body of 50,000 nested arrays passed an open body schema, then overflowed the
  // stack of the catalogue engine's record hashing (500). Bodies nested past 64 levels are refused whole.
  it('a JSON body nested past 64 levels is a 400 before any walk of it; 64 levels still parse', async () => {
    const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    const url = '/cloud/v1/ai/clusters/1/76/check_limits';
    const refused = await t.request('POST', url, { headers: a.headers, body: deep(50_000) });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ exception_class: 'BadRequestError', message: expect.stringMatching(/nest more than 64 levels/) });
    const quoted = await t.request('POST', url, { headers: a.headers, body: JSON.stringify({ name: '['.repeat(5_000) }) });
    expect(quoted.json().message ?? '').not.toMatch(/nest more than/);
    const parsed = await t.request('POST', url, { headers: a.headers, body: deep(64) });
    expect(parsed.json().message ?? '').not.toMatch(/nest more than/);
  });
});
