// EDGEPLANE_API_KEY on a database made by an earlier start: recognised when it works, reported when it
// does not, and made a token of the demo account with --apply-api-key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../tests/support/app.js';
import { checkApiKey, ensureDemoAccount } from './bootstrap.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('checkApiKey', () => {
  it('creates the demo account on an empty database only', async () => {
    const demo = await ensureDemoAccount(t.iam, undefined);
    expect(demo).toMatchObject({ clientId: expect.any(Number), token: expect.any(String) });
    expect(await ensureDemoAccount(t.iam, 'another-key-123')).toBeUndefined();
    expect(await checkApiKey(t.iam, demo!.token, false)).toEqual({ kind: 'valid', clientId: demo!.clientId });
  });

  it('reports a key the database does not know, and leaves it unknown without --apply-api-key', async () => {
    expect(await checkApiKey(t.iam, 'local-dev-key', false)).toEqual({ kind: 'ignored', problem: 'Invalid API token.' });
    expect('problem' in (await t.iam.tokens.verify('local-dev-key'))).toBe(true);
  });

  it('with --apply-api-key, adds the key to the demo account as an administrator token, once', async () => {
    const demoId = (await t.iam.accounts.findAdministered('demo@edgeplane.local'))!.clientId;
    expect(await checkApiKey(t.iam, 'local-dev-key', true)).toEqual({ kind: 'applied', clientId: demoId });
    expect(await checkApiKey(t.iam, 'local-dev-key', true)).toEqual({ kind: 'valid', clientId: demoId });
    const me = await t.request('GET', '/iam/clients/me', { headers: { authorization: 'APIKey local-dev-key' } });
    expect([me.statusCode, me.json().id]).toEqual([200, demoId]);
  });

  it('does not bring a revoked key back', async () => {
    const account = await t.account();
    const second = await t.request('POST', `/iam/v2/clients/${account.clientId}/tokens`, {
      headers: account.headers,
      body: { name: 'second', exp_date: null, client_user: { role: { id: 1, name: 'Administrators' } } },
    });
    expect(second.statusCode).toBe(200);
    const { id, token } = second.json();
    expect((await t.request('DELETE', `/iam/v2/clients/${account.clientId}/tokens/${id}`, { headers: account.headers })).statusCode).toBe(204);
    expect(await checkApiKey(t.iam, token, true)).toEqual({ kind: 'ignored', problem: 'The API token has been revoked.' });
  });
});
