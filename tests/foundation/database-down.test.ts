// When the database stops answering, requests get a clear 503 with Retry-After (not a hang, not a
// crash, not a 500), and health reports not ready.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('database down', () => {
  it('answers 503 in the product envelope and reports not ready', async () => {
    await t.db.close();
    const res = await t.request('GET', '/iam/clients/me', { headers: { authorization: 'APIKey 1_not-cached-so-the-database-is-asked' } });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json()).toEqual({ detail: 'The database is unavailable; retry shortly.' });
    const health = await t.request('GET', '/_edgeplane/health');
    expect(health.statusCode).toBe(503);
    expect(health.json()).toMatchObject({ ready: false, live: true, database: { ok: false } });
  });
});
