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
    expect(res.json()).toEqual({ errors: { 'path.tokenId': ['Input must be <= 9007199254740991'] } });
  });

  it('an integer query value that overflows to Infinity is a 422, not a 500 from serialization', async () => {
    const res = await t.request('GET', `/_edgeplane/cdn/access-records/count?clientId=${'9'.repeat(400)}`, { headers: t.operator });
    expect(res.statusCode).toBe(422);
  });

  it('a JSON number that parses to Infinity is refused in the body', async () => {
    const res = await t.request('POST', '/cdn/resources/rule_templates', { headers: a.headers, body: '{"rule":"/a","ruleType":0,"weight":1e400}' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { weight: [expect.stringMatching(/finite number|<=/)] } });
  });

  it('a NUL character in a path, query or body string is a 422 on both engines (PostgreSQL text cannot hold it)', async () => {
    const path = await t.request('GET', '/waap/v1/domains/1/requests/%00/details', { headers: a.headers });
    expect(path.statusCode).toBe(422);
    const body = await t.request('POST', '/cdn/resources/rule_templates', { headers: a.headers, body: { name: 'a\u0000b', rule: '/a', ruleType: 0 } });
    expect(body.statusCode).toBe(422);
    expect(body.json()).toEqual({ errors: { name: ['Input must not contain a NUL character'] } });
  });

  it('an impossible date that matches the task list timestamp pattern is a 422 (was NaN in SQL: a 500 on PostgreSQL)', async () => {
    const res = await t.request('GET', '/cloud/v1/tasks?from_timestamp=1153-84-66-6218', { headers: a.headers });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 422, errors: [{ loc: ['query', 'from_timestamp'], type: 'datetime_parsing' }] });
  });

  it('router refusals (bad percent-encoding, over-long segment) answer in the product envelope', async () => {
    for (const url of ['/waap/v1/domains/%ZZ', `/waap/v1/domains/${'1'.repeat(600)}`]) {
      const res = await t.request('GET', url, { headers: a.headers });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ type: 'http-bad-request', title: 'Bad Request', status: 400 });
    }
  });
});
