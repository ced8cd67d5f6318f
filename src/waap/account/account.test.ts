import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { createDomain } from '../../../tests/support/waap.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('GET /waap/v1/clients/me', () => {
  it('reports the service, features and a live domain quota', async () => {
    const a = await t.account();
    let res = await t.request('GET', '/waap/v1/clients/me', { headers: a.headers });
    expect(res.statusCode).toBe(200);
    expectConforms('GET', '/waap/v1/clients/me', res);
    expect(res.json()).toEqual({ id: a.clientId, service: { enabled: true }, features: [], quotas: { 'number-of-domains': { allowed: 5, current: 0 } } });
    await createDomain(t, a.clientId, 'one.example.com');
    await createDomain(t, a.clientId, 'two.example.com');
    res = await t.request('GET', '/waap/v1/clients/me', { headers: a.headers });
    expect(res.json().quotas['number-of-domains']).toEqual({ allowed: 5, current: 2 });
  });

  it('shows what the operator configured', async () => {
    const a = await t.account();
    const put = await t.request('PUT', `/_edgeplane/waap/clients/${a.clientId}`, {
      headers: t.operator,
      body: { enabled: false, features: ['api-discovery'], domain_quota: 1 },
    });
    expect(put.statusCode).toBe(200);
    const res = await t.request('GET', '/waap/v1/clients/me', { headers: a.headers });
    expectConforms('GET', '/waap/v1/clients/me', res);
    expect(res.json()).toMatchObject({ service: { enabled: false }, features: ['api-discovery'], quotas: { 'number-of-domains': { allowed: 1, current: 0 } } });
  });

  it('answers 401 without or with a wrong token, in the WAAP envelope', async () => {
    for (const headers of [{}, { authorization: 'APIKey nope' }] as Record<string, string>[]) {
      const res = await t.request('GET', '/waap/v1/clients/me', { headers });
      expect(res.statusCode).toBe(401);
      expect(Object.keys(res.json())).toEqual(['detail']);
      expect(typeof res.json().detail).toBe('string');
    }
  });

  it('answers 403 to a token without read rights', async () => {
    const a = await t.account({ role: 'Purge and Prefetch only (API)' });
    const res = await t.request('GET', '/waap/v1/clients/me', { headers: a.headers });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ detail: expect.any(String) });
  });

  it('answers 404 in the WAAP envelope for an unknown WAAP path', async () => {
    const a = await t.account();
    const res = await t.request('GET', '/waap/v1/clients/nobody', { headers: a.headers });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ type: 'http-not-found', title: 'Not Found', status: 404 });
  });

  it('answers injected 400 and 500 in the WAAP envelope', async () => {
    const a = await t.account();
    for (const [status, type, title] of [
      [400, 'http-bad-request', 'Bad Request'],
      [500, 'internal-server-error', 'Internal server error.'],
    ] as const) {
      const fault = await t.request('POST', '/_edgeplane/faults', { headers: t.operator, body: { operationId: 'waap.account.get', status, times: 1 } });
      expect(fault.statusCode).toBe(201);
      const res = await t.request('GET', '/waap/v1/clients/me', { headers: a.headers });
      expect(res.statusCode).toBe(status);
      expectConforms('GET', '/waap/v1/clients/me', res);
      expect(res.json()).toEqual({ type, title, status, detail: expect.any(String) });
    }
    expect((await t.request('GET', '/waap/v1/clients/me', { headers: a.headers })).statusCode).toBe(200);
  });

  it('refuses the control API to client tokens', async () => {
    const a = await t.account();
    const res = await t.request('PUT', `/_edgeplane/waap/clients/${a.clientId}`, { headers: a.headers, body: { enabled: false } });
    expect(res.statusCode).toBe(403);
  });
});
