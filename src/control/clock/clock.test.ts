import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';

let t: TestApp;
let a: TestAccount;
const post = (path: string, body?: unknown) => t.request('POST', `/_edgeplane/clock${path}`, { headers: t.operator, body });

beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
});
afterAll(async () => t.close());

describe('the clock endpoints', () => {
  it('freeze stops time; set jumps; advance moves forward; resume lets it flow from there', async () => {
    const frozen = (await post('/freeze')).json();
    expect(frozen.frozen).toBe(true);
    const set = (await post('/set', { time: '2030-01-01T00:00:00Z' })).json();
    expect(set).toMatchObject({ now: '2030-01-01T00:00:00.000Z', epochMs: Date.parse('2030-01-01T00:00:00Z'), frozen: true });
    expect((await t.request('GET', '/_edgeplane/clock', { headers: t.operator })).json().now).toBe('2030-01-01T00:00:00.000Z');
    expect((await post('/advance', { seconds: 86400.5 })).json().now).toBe('2030-01-02T00:00:00.500Z');
    expect((await post('/set', { epochMs: 0 })).json().now).toBe('1970-01-01T00:00:00.000Z');
    await post('/set', { time: '2030-01-01T00:00:00Z' });
    const resumed = (await post('/resume')).json();
    expect(resumed.frozen).toBe(false);
    expect(resumed.epochMs).toBeGreaterThanOrEqual(Date.parse('2030-01-01T00:00:00Z'));
    expect(resumed.offsetMs).toBeGreaterThan(0);
  });

  it('what the API does follows it: a token whose expiry has passed is refused', async () => {
    await post('/freeze');
    await post('/set', { time: '2031-01-01T00:00:00Z' });
    const created = await t.request('POST', `/iam/v2/clients/${a.clientId}/tokens`, {
      headers: a.headers,
      body: { name: 'short', client_user: { role: { id: 1, name: 'Administrators' } }, exp_date: '2031-01-02T00:00:00Z' },
    });
    expect(created.statusCode).toBe(200);
    const headers = { authorization: `APIKey ${created.json().token}` };
    expect((await t.request('GET', '/iam/clients/me', { headers })).statusCode).toBe(200);
    await post('/advance', { seconds: 86400 });
    const expired = await t.request('GET', '/iam/clients/me', { headers });
    expect(expired.statusCode).toBe(401);
    expect(expired.json().detail).toMatch(/expired/);
    await post('/resume');
  });

  it('listeners run inside the call: the answer already reflects the new time', async () => {
    t.clock.freeze();
    const seen: number[] = [];
    const stop = t.clock.onChange((now) => {
      seen.push(now);
    });
    const res = (await post('/advance', { seconds: 10 })).json();
    stop();
    expect(seen).toEqual([res.epochMs]);
  });

  it('answers only after asynchronous listeners (due work) have finished', async () => {
    t.clock.freeze();
    const done: number[] = [];
    const stop = t.clock.onChange(async (now) => {
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      done.push(now);
    });
    const res = (await post('/advance', { seconds: 5 })).json();
    stop();
    expect(done).toEqual([res.epochMs]);
  });

  it('422 for a bad body, in the control envelope; operator only', async () => {
    expect((await post('/advance', { seconds: -1 })).statusCode).toBe(422);
    expect((await post('/advance', {})).statusCode).toBe(422);
    const both = await post('/set', { time: '2030-01-01T00:00:00Z', epochMs: 1 });
    expect(both.statusCode).toBe(422);
    expect(both.json()).toMatchObject({ status: 422, code: 'validation_failed', message: expect.stringMatching(/exactly one/) });
    expect((await post('/set', { time: 'yesterday' })).statusCode).toBe(422);
    expect((await t.request('POST', '/_edgeplane/clock/freeze', { headers: a.headers })).statusCode).toBe(403);
    expect((await t.request('GET', '/_edgeplane/clock')).statusCode).toBe(401);
  });
});
