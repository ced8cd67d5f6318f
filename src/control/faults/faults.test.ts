import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import Fastify from 'fastify';
import { Clock } from '../../platform/clock.js';
import { registerRequestContext } from '../../platform/http.js';
import { registerTaskFaultSlot } from '../../platform/task-faults.js';
import { registerFaultHook } from './hook.js';
import { seededRandom as mulberry32 } from '../../platform/random.js';
import { FaultService, globToRegExp } from './service.js';

let t: TestApp;
let a: TestAccount;
const ME = '/iam/clients/me';

beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
});
afterAll(async () => t.close());
beforeEach(async () => {
  await t.request('DELETE', '/_edgeplane/faults', { headers: t.operator });
});

const declare = async (body: Record<string, unknown>) => {
  const res = await t.request('POST', '/_edgeplane/faults', { headers: t.operator, body });
  expect(res.statusCode).toBe(201);
  return res.json();
};
const me = (headers: Record<string, string> = {}) => t.request('GET', ME, { headers: { ...a.headers, ...headers } });

/** A client that retries like the official one: 429 and 5xx, up to 2 retries, waiting Retry-After seconds. */
async function withRetries(send: () => ReturnType<typeof me>, waits: number[]) {
  for (let attempt = 0; ; attempt += 1) {
    const res = await send();
    if (attempt === 2 || (res.statusCode !== 429 && res.statusCode < 500)) return res;
    // Tests do not sleep: the wait the client would make is recorded instead.
    waits.push(Number(res.headers['retry-after']));
  }
}

describe('status faults', () => {
  it('answers 503 once in the product envelope with Retry-After; a retrying client then succeeds', async () => {
    const fault = await declare({ operationId: 'iam.account.get', status: 503, times: 1 });
    expect(fault).toMatchObject({ operationId: 'iam.account.get', status: 503, retryAfter: 1, remaining: 1, fired: 0 });
    const waits: number[] = [];
    const res = await withRetries(() => me(), waits);
    expect(res.statusCode).toBe(200);
    expect(waits).toEqual([1]);
    const after = (await t.request('GET', `/_edgeplane/faults/${fault.id}`, { headers: t.operator })).json();
    expect(after).toMatchObject({ fired: 1, matched: 2, remaining: 0 });
  });

  it("uses the product's error body (IAM: {detail}) and the given Retry-After for 429", async () => {
    await declare({ method: 'get', path: '/iam/clients/*', status: 429, retryAfter: 7, message: 'slow down' });
    const res = await me();
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.json()).toEqual({ detail: 'slow down' });
    expect((await me()).statusCode).toBe(429);
  });

  it("answers in each product's own envelope (cloud: exception_class, request_id)", async () => {
    await declare({ method: 'GET', path: '/cloud/v1/projects', status: 503, times: 1 });
    const res = await t.request('GET', '/cloud/v1/projects', { headers: { ...a.headers, 'x-request-id': 'fault-cloud-1' } });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json()).toMatchObject({ code: 503, exception_class: 'ServiceUnavailableError', request_id: 'fault-cloud-1' });
    expect((await t.request('GET', '/cloud/v1/projects', { headers: a.headers })).statusCode).toBe(200);
  });

  it('matches by method and glob: another method or path is untouched', async () => {
    await declare({ method: 'POST', path: '/iam/**', status: 409 });
    expect((await me()).statusCode).toBe(200);
    await declare({ path: '/cdn/**', status: 500 });
    expect((await me()).statusCode).toBe(200);
  });

  it('never hides an authentication failure: a 401 stays a 401', async () => {
    await declare({ operationId: 'iam.account.get', status: 503 });
    expect((await t.request('GET', ME)).statusCode).toBe(401);
  });

  it('does not apply to the control API itself', async () => {
    await declare({ path: '/_edgeplane/**', status: 503 });
    expect((await t.request('GET', '/_edgeplane/faults', { headers: t.operator })).statusCode).toBe(200);
  });
});

describe('scenarios', () => {
  it('a fault scoped to one scenario does not leak into another scenario or unscoped requests', async () => {
    await declare({ operationId: 'iam.account.get', status: 503, scenario: 'test-a' });
    expect((await me({ 'x-edgeplane-scenario': 'test-a' })).statusCode).toBe(503);
    expect((await me({ 'x-edgeplane-scenario': 'test-b' })).statusCode).toBe(200);
    expect((await me()).statusCode).toBe(200);
  });

  it('a fault without a scenario applies to every scenario', async () => {
    await declare({ operationId: 'iam.account.get', status: 404, times: 2 });
    expect((await me({ 'x-edgeplane-scenario': 'x' })).statusCode).toBe(404);
    expect((await me()).statusCode).toBe(404);
    expect((await me()).statusCode).toBe(200);
  });

  it('lists and clears faults per scenario', async () => {
    await declare({ path: '/a', status: 500, scenario: 's1' });
    await declare({ path: '/b', status: 500, scenario: 's2' });
    const listed = (await t.request('GET', '/_edgeplane/faults?scenario=s1', { headers: t.operator })).json();
    expect(listed.map((f: { path: string }) => f.path)).toEqual(['/a']);
    expect((await t.request('DELETE', '/_edgeplane/faults?scenario=s1', { headers: t.operator })).json()).toEqual({ deleted: 1 });
    expect((await t.request('GET', '/_edgeplane/faults', { headers: t.operator })).json()).toHaveLength(1);
  });
});

describe('probability, latency and task failures', () => {
  it('fires a seeded share of matches, the same way for the same seed', async () => {
    const run = async () => {
      await t.request('DELETE', '/_edgeplane/faults', { headers: t.operator });
      await declare({ operationId: 'iam.account.get', status: 500, probability: 0.5, seed: 42 });
      const statuses: number[] = [];
      for (let i = 0; i < 20; i += 1) statuses.push((await me()).statusCode);
      return statuses;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    const failures = first.filter((s) => s === 500).length;
    expect(failures).toBeGreaterThan(3);
    expect(failures).toBeLessThan(17);
  });

  it('delays a matching request by a real timer and then answers normally', async () => {
    await declare({ operationId: 'iam.account.get', latencyMs: 60, times: 1 });
    const started = performance.now();
    const res = await me();
    expect(res.statusCode).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
  });

  it('marks the matching request so the task it creates fails with the reason', async () => {
    // A bare app with only the hook and a route that reports the slot, as a task-creating handler reads it.
    const faults = new FaultService(new Clock());
    const app = Fastify();
    registerRequestContext(app);
    registerTaskFaultSlot(app);
    registerFaultHook(app, faults);
    app.post('/cloud/v1/instances/:p/:r', { schema: { operationId: 'cloud.instances.create' } }, async (request) => ({ failure: request.injectedTaskFailure }));
    await app.ready();
    faults.create({ operationId: 'cloud.instances.create', taskError: 'no capacity in region', times: 1 });
    const first = await app.inject({ method: 'POST', url: '/cloud/v1/instances/1/2' });
    const second = await app.inject({ method: 'POST', url: '/cloud/v1/instances/1/2' });
    expect([first.json().failure, second.json().failure]).toEqual(['no capacity in region', null]);
    expect(faults.list()[0]).toMatchObject({ fired: 1, matched: 2, remaining: 0 });
    await app.close();
  });
});

describe('validation and lookup', () => {
  it('422 without a selector or an effect, in the control envelope', async () => {
    const res = await t.request('POST', '/_edgeplane/faults', { headers: t.operator, body: { status: 503 } });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ status: 422, code: 'validation_failed', message: expect.stringContaining('operationId or path') });
    const none = await t.request('POST', '/_edgeplane/faults', { headers: t.operator, body: { path: '/x' } });
    expect(none.json().message).toMatch(/status, latencyMs or taskError/);
  });

  it('422 for a status outside the catalogue and for unknown fields', async () => {
    expect((await t.request('POST', '/_edgeplane/faults', { headers: t.operator, body: { path: '/x', status: 418 } })).statusCode).toBe(422);
    expect((await t.request('POST', '/_edgeplane/faults', { headers: t.operator, body: { path: '/x', status: 500, colour: 1 } })).statusCode).toBe(422);
  });

  it('404 for an unknown fault; 204 on delete; client tokens get 403, no token 401', async () => {
    const fault = await declare({ path: '/x', status: 500 });
    expect((await t.request('DELETE', `/_edgeplane/faults/${fault.id}`, { headers: t.operator })).statusCode).toBe(204);
    expect((await t.request('GET', `/_edgeplane/faults/${fault.id}`, { headers: t.operator })).statusCode).toBe(404);
    expect((await t.request('DELETE', `/_edgeplane/faults/${fault.id}`, { headers: t.operator })).statusCode).toBe(404);
    expect((await t.request('GET', '/_edgeplane/faults', { headers: a.headers })).statusCode).toBe(403);
    expect((await t.request('GET', '/_edgeplane/faults')).statusCode).toBe(401);
  });
});

describe('helpers', () => {
  it('globs: * stays within a segment, ** crosses segments', () => {
    expect(globToRegExp('/cloud/v1/instances/*').test('/cloud/v1/instances/1')).toBe(true);
    expect(globToRegExp('/cloud/v1/instances/*').test('/cloud/v1/instances/1/2')).toBe(false);
    expect(globToRegExp('/cloud/**').test('/cloud/v1/instances/1/2')).toBe(true);
    expect(globToRegExp('/a.b').test('/aXb')).toBe(false);
  });

  it('the PRNG is repeatable per seed and spreads over [0, 1)', () => {
    const a1 = mulberry32(7);
    const a2 = mulberry32(7);
    const values = Array.from({ length: 1000 }, () => a1());
    expect(Array.from({ length: 1000 }, () => a2())).toEqual(values);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...values)).toBeLessThan(1);
    expect(values.filter((v) => v < 0.5).length).toBeGreaterThan(400);
  });
});
