import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('GET /iam/clients/me', () => {
  it('returns the account record of the token, conforming to the reference', async () => {
    const a = await t.account();
    const res = await t.request('GET', '/iam/clients/me', { headers: a.headers });
    expect(res.statusCode).toBe(200);
    expectConforms('GET', '/iam/clients/me', res);
    const body = res.json();
    expect(body.id).toBe(a.clientId);
    expect(body.currentUser).toBe(a.userId);
    expect(body.companyName).toMatch(/^Company/);
    expect(body.status).toBe('active');
    expect(body.has_active_admin).toBe(true);
    expect(body.users).toHaveLength(1);
    expect(body.users[0].groups).toEqual([{ id: 1, name: 'Administrators' }]);
    expect(body.serviceStatuses.CDN).toEqual({ status: 'active', enabled: true });
  });

  it('shows the calling user as currentUser for a second user of the account', async () => {
    const a = await t.account({ role: 'Engineers' });
    const body = (await t.request('GET', '/iam/clients/me', { headers: a.headers })).json();
    expect(body.currentUser).toBe(a.userId);
    expect(body.users.map((u: { groups: { name: string }[] }) => u.groups[0].name).sort()).toEqual(['Administrators', 'Engineers']);
  });

  it('answers purge-only tokens too: a 200 only confirms the token is valid', async () => {
    const a = await t.account({ role: 'Purge and Prefetch only (API)' });
    expect((await t.request('GET', '/iam/clients/me', { headers: a.headers })).statusCode).toBe(200);
  });
});

describe('authentication', () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ['no header', {}, /not provided/],
    ['empty header', { authorization: '' }, /not provided/],
    ['wrong scheme', { authorization: 'Bearer 1_abc' }, /APIKey <token>/],
    ['scheme without token', { authorization: 'APIKey' }, /APIKey <token>/],
    ['two spaces', { authorization: 'APIKey  1_abc' }, /APIKey <token>/],
    ['unknown token', { authorization: 'APIKey 1_doesnotexist' }, /Invalid API token/],
  ];
  for (const [name, headers, message] of cases) {
    it(`401 for ${name}, in the IAM envelope`, async () => {
      const res = await t.request('GET', '/iam/clients/me', { headers });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ detail: expect.stringMatching(message) });
    });
  }

  it('accepts the scheme word in any case', async () => {
    const a = await t.account();
    const res = await t.request('GET', '/iam/clients/me', { headers: { authorization: `apikey ${a.token}` } });
    expect(res.statusCode).toBe(200);
  });

  it('accepts the header name in any case on the wire', async () => {
    const a = await t.account();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path: '/iam/clients/me', headers: { AUTHORIZATION: `APIKey ${a.token}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
  });

  it('401 once a token has expired on the server clock', async () => {
    const a = await t.account();
    const { token } = await t.iam.tokens.issue({ clientId: a.clientId, userId: a.userId, role: 'Users', name: 'short', expiresAt: t.clock.now() + 60_000 });
    const headers = { authorization: `APIKey ${token}` };
    expect((await t.request('GET', '/iam/clients/me', { headers })).statusCode).toBe(200);
    t.clock.advance(61_000);
    const res = await t.request('GET', '/iam/clients/me', { headers });
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toMatch(/expired/);
  });

  it('401 for a revoked token', async () => {
    const a = await t.account();
    const created = await t.request('POST', `/iam/v2/clients/${a.clientId}/tokens`, {
      headers: a.headers,
      body: { name: 'temp', exp_date: null, client_user: { role: { name: 'Users' } } },
    });
    const { id, token } = created.json();
    await t.request('DELETE', `/iam/v2/clients/${a.clientId}/tokens/${id}`, { headers: a.headers });
    const res = await t.request('GET', '/iam/clients/me', { headers: { authorization: `APIKey ${token}` } });
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toMatch(/revoked/);
  });

  it('keeps the control API for the operator token, and product APIs for account tokens', async () => {
    const a = await t.account();
    expect((await t.request('GET', '/_edgeplane/info', { headers: a.headers })).statusCode).toBe(403);
    expect((await t.request('GET', '/_edgeplane/info')).statusCode).toBe(401);
    const info = await t.request('GET', '/_edgeplane/info', { headers: t.operator });
    expect(info.statusCode).toBe(200);
    expect(info.json().operations).toContainEqual(expect.objectContaining({ method: 'GET', path: '/iam/clients/me', operationId: 'iam.account.get' }));
    expect((await t.request('GET', '/iam/clients/me', { headers: t.operator })).statusCode).toBe(403);
  });
});
