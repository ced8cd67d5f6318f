// Control API of the access-record log: ingestion (JSON and NDJSON) with its per-record report, the
// generator, counting and the retention run; operator only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../tests/support/app.js';
import { gql } from '../../../tests/support/cdn-analytics.js';

let t: TestApp;
const BASE = '/_edgeplane/cdn/access-records';

beforeAll(async () => {
  t = await createTestApp();
  t.clock.freeze();
});
afterAll(async () => t.close());

const record = (clientId: number, extra: Record<string, unknown> = {}) => ({
  clientId,
  timestamp: new Date(t.clock.now() - 3_600_000).toISOString(),
  resourceId: 1,
  host: 'cdn1.example.com',
  path: '/static/app.js',
  country: 'NL',
  browser: 'Chrome',
  device: 'desktop',
  os: 'Windows',
  bytes: 5000,
  status: 200,
  clientIp: '198.51.100.7',
  ...extra,
});
const count = async (clientId: number) => (await t.request('GET', `${BASE}/count?clientId=${clientId}`, { headers: t.operator })).json().count;

describe('POST /_edgeplane/cdn/access-records', () => {
  it('stores the valid records of a JSON array and reports the others', async () => {
    const a = await t.account();
    const res = await t.request('POST', BASE, {
      headers: t.operator,
      body: [record(a.clientId), record(a.clientId, { country: 'Netherlands' }), 'x', record(a.clientId, { visitorId: 'v-1' })],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      received: 4,
      accepted: 2,
      rejected: 2,
      errors: [
        { index: 1, field: 'country', message: 'must be at most 2 characters' },
        { index: 2, field: '', message: 'must be a JSON object' },
      ],
    });
    expect(await count(a.clientId)).toBe(2);
    // The stored records are what the client's analytics see.
    const answer = await gql(
      t,
      a,
      `{ statistics(from: "${new Date(t.clock.now() - 86_400_000).toISOString()}", to: "${new Date(t.clock.now()).toISOString()}") { totals { requests traffic uniqueVisitors } } }`,
    );
    expect(answer.json()).toEqual({ data: { statistics: { totals: { requests: 2, traffic: 10000, uniqueVisitors: 2 } } } });
  });

  it('takes NDJSON, naming the line that is not JSON', async () => {
    const a = await t.account();
    const body = `${JSON.stringify(record(a.clientId))}\n\n{"clientId": \n${JSON.stringify(record(a.clientId))}\n`;
    const res = await t.request('POST', BASE, { headers: { ...t.operator, 'content-type': 'application/x-ndjson' }, body });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      received: 3,
      accepted: 2,
      rejected: 1,
      errors: [{ index: 1, field: '', message: expect.stringMatching(/^line 3 is not valid JSON: /) }],
    });
    expect(await count(a.clientId)).toBe(2);
  });

  it('422 for a JSON body that is not an array', async () => {
    const res = await t.request('POST', BASE, { headers: t.operator, body: { records: [] } });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ status: 422, code: 'validation_failed' });
  });

  it('401 without a token and 403 for a client token', async () => {
    const a = await t.account();
    const none = await t.request('POST', BASE, { body: [] });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({ status: 401, code: 'unauthorized', message: 'Authentication credentials were not provided.' });
    const client = await t.request('POST', BASE, { headers: a.headers, body: [record(a.clientId)] });
    expect(client.statusCode).toBe(403);
    expect(client.json()).toMatchObject({ status: 403, code: 'forbidden' });
    expect(await count(a.clientId)).toBe(0);
  });
});

describe('POST /_edgeplane/cdn/access-records/generate', () => {
  it('is deterministic: the same options give the same statistics to two clients', async () => {
    const [a, b] = [await t.account(), await t.account()];
    const end = new Date(t.clock.now()).toISOString();
    for (const account of [a, b]) {
      const res = await t.request('POST', `${BASE}/generate`, {
        headers: t.operator,
        body: { clientId: account.clientId, records: 1500, days: 3, seed: 9, end },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ generated: 1500, from: new Date(t.clock.now() - 3 * 86_400_000).toISOString(), to: end });
    }
    const query = `{ statistics(from: "${new Date(t.clock.now() - 3 * 86_400_000).toISOString()}", to: "${end}", groupBy: [COUNTRY, DEVICE], granularity: DAY) { totals { requests traffic uniqueVisitors } rows { time country device requests traffic uniqueVisitors } } }`;
    const [ra, rb] = [(await gql(t, a, query)).json(), (await gql(t, b, query)).json()];
    expect(ra.data.statistics.totals.requests).toBe(1500);
    expect(ra).toEqual(rb);
  });

  it('422 for out-of-range options, in the control envelope', async () => {
    const res = await t.request('POST', `${BASE}/generate`, { headers: t.operator, body: { clientId: 1, records: 0, days: 91, seed: 1 } });
    expect(res.statusCode).toBe(422);
    expect(
      res
        .json()
        .errors.map((e: { loc: string[] }) => e.loc.join('.'))
        .sort(),
    ).toEqual(['body.days', 'body.records']);
  });
});

describe('POST /_edgeplane/cdn/access-records/purge', () => {
  it('deletes what the clock has moved past the retention', async () => {
    const a = await t.account();
    await t.request('POST', BASE, {
      headers: t.operator,
      body: [record(a.clientId, { timestamp: new Date(t.clock.now() - 89 * 86_400_000).toISOString() }), record(a.clientId)],
    });
    const before = t.clock.now();
    t.clock.advance(89 * 86_400_000);
    try {
      const res = await t.request('POST', `${BASE}/purge`, { headers: t.operator });
      expect(res.statusCode).toBe(200);
      expect(await count(a.clientId)).toBe(1);
    } finally {
      t.clock.set(before);
    }
  });
});
