// The two example queries of docs/cdn-analytics.md run as written against generated data, and the
// answer printed for example 1 is the one the server gives for the generator options the docs name.
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { gql } from '../../../tests/support/cdn-analytics.js';

const docs = fs.readFileSync(new URL('../../../docs/cdn-analytics.md', import.meta.url), 'utf8');
let t: TestApp;
let a: TestAccount;

beforeAll(async () => {
  t = await createTestApp();
  t.clock.freeze();
  t.clock.set(Date.parse('2026-11-22T00:00:00Z'));
  a = await t.account();
  // The options the docs' `edgeplane generate cdn` example uses.
  const res = await t.request('POST', '/_edgeplane/cdn/access-records/generate', {
    headers: t.operator,
    body: { clientId: a.clientId, records: 10000, days: 7, seed: 7, end: '2026-11-22T00:00:00Z' },
  });
  expect(res.statusCode).toBe(200);
});
afterAll(async () => t.close());

it('example 1 (curl) answers what the docs print', async () => {
  const body = JSON.parse(/-d '(\{[\s\S]*?\})'/.exec(docs)![1]);
  const res = await gql(t, a, body.query, body.variables);
  const printed = JSON.parse(/```json\n([\s\S]*?)```/.exec(docs)![1]);
  const answer = res.json();
  expect(answer.errors).toBeUndefined();
  // The docs shorten `rows` to its first two entries.
  expect({ ...answer, data: { statistics: { ...answer.data.statistics, rows: answer.data.statistics.rows.slice(0, 2) } } }).toEqual(printed);
});

it('example 2 (Python) runs without errors', async () => {
  const query = /query = """([\s\S]*?)"""/.exec(docs)![1];
  const res = await gql(t, a, query, { from: '2026-11-01T00:00:00Z', to: '2026-11-22T00:00:00Z' });
  const answer = res.json();
  expect(answer.errors).toBeUndefined();
  expect(answer.data.statistics.rows.length).toBeGreaterThan(0);
  expect(answer.data.statistics.rows.every((r: { browser: string }) => typeof r.browser === 'string')).toBe(true);
});
