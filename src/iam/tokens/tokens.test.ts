import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { LIVE_TOKENS } from './service.js';

let t: TestApp;
let admin: TestAccount;
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.account();
});
afterAll(async () => t.close());

const body = (role: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ name: 'ci', exp_date: null, client_user: { role }, ...extra });

for (const version of ['v2', 'v1'] as const) {
  const base = (clientId: number) => (version === 'v2' ? `/iam/v2/clients/${clientId}/tokens` : `/iam/clients/${clientId}/tokens`);
  const ref = version === 'v2' ? '/iam/v2/clients/{clientId}/tokens' : '/iam/clients/{clientId}/tokens';

  describe(`API tokens (${version})`, () => {
    it('creates a token whose secret works once shown, then lists, gets and deletes it', async () => {
      const created = await t.request('POST', base(admin.clientId), {
        headers: admin.headers,
        body: body({ name: 'Engineers' }, { description: 'CI', exp_date: '2099-01-01T00:00:00Z' }),
      });
      expect(created.statusCode).toBe(200);
      expectConforms('POST', ref, created);
      const record = created.json();
      expect(record.token).toMatch(version === 'v2' ? new RegExp(`^${record.id}_`) : new RegExp(`^${record.id}\\$`));
      expect(record).toMatchObject({ name: 'ci', description: 'CI', deleted: false, expired: false, exp_date: '2099-01-01T00:00:00.000Z' });
      expect(record.client_user).toMatchObject({ client_id: admin.clientId, user_id: admin.userId, role: { id: 5, name: 'Engineers' } });

      const me = await t.request('GET', '/iam/clients/me', { headers: { authorization: `APIKey ${record.token}` } });
      expect(me.statusCode).toBe(200);

      const list = await t.request('GET', base(admin.clientId), { headers: admin.headers });
      expect(list.statusCode).toBe(200);
      expectConforms('GET', ref, list);
      expect(list.json().map((x: { id: number }) => x.id)).toContain(record.id);
      expect(list.json().every((x: Record<string, unknown>) => !('token' in x))).toBe(true);

      const got = await t.request('GET', `${base(admin.clientId)}/${record.id}`, { headers: admin.headers });
      expectConforms('GET', `${ref}/{tokenId}`, got);
      expect(got.json().name).toBe('ci');

      const deleted = await t.request('DELETE', `${base(admin.clientId)}/${record.id}`, { headers: admin.headers });
      expect(deleted.statusCode).toBe(204);
      expect((await t.request('GET', `${base(admin.clientId)}/${record.id}`, { headers: admin.headers })).json().deleted).toBe(true);
      expect((await t.request('DELETE', `${base(admin.clientId)}/${record.id}`, { headers: admin.headers })).statusCode).toBe(404);
    });

    it("answers 404 for another client's tokens, exactly like a missing one", async () => {
      const other = await t.account();
      const created = (await t.request('POST', base(other.clientId), { headers: other.headers, body: body({ id: 2 }) })).json();
      for (const [method, url] of [
        ['GET', base(other.clientId)],
        ['POST', base(other.clientId)],
        ['GET', `${base(other.clientId)}/${created.id}`],
        ['DELETE', `${base(other.clientId)}/${created.id}`],
        ['GET', `${base(admin.clientId)}/${created.id}`],
      ] as const) {
        const res = await t.request(method, url, { headers: admin.headers, body: method === 'POST' ? body({ id: 2 }) : undefined });
        expect(res.statusCode, `${method} ${url}`).toBe(404);
      }
      const missing = await t.request('GET', `${base(admin.clientId)}/999999`, { headers: admin.headers });
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ detail: 'API token not found' });
    });
  });
}

describe('token rules', () => {
  it("refuses a role above the issuer's own with the reference's 400 CreateTokenError body", async () => {
    const engineer = await t.account({ role: 'Engineers' });
    const res = await t.request('POST', `/iam/v2/clients/${engineer.clientId}/tokens`, { headers: engineer.headers, body: body({ name: 'Administrators' }) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ errors: { client_user: { role: ["Can't create token with role Administrators"] } } });
    expectConforms('POST', '/iam/v2/clients/{clientId}/tokens', res);
  });

  it('does not let a token revoke a token of a higher role, even of its own user', async () => {
    const a = await t.account();
    const url = `/iam/v2/clients/${a.clientId}/tokens`;
    const strong = (await t.request('POST', url, { headers: a.headers, body: body({ name: 'Administrators' }) })).json();
    const weak = (await t.request('POST', url, { headers: a.headers, body: body({ name: 'Engineers' }) })).json();
    const weakHeaders = { authorization: `APIKey ${weak.token}` };
    const res = await t.request('DELETE', `${url}/${strong.id}`, { headers: weakHeaders });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ detail: "You can't revoke an API token with a role higher than yours." });
    expect((await t.request('GET', '/iam/clients/me', { headers: { authorization: `APIKey ${strong.token}` } })).statusCode).toBe(200);
    // Its own role and below it may.
    expect((await t.request('DELETE', `${url}/${weak.id}`, { headers: weakHeaders })).statusCode).toBe(204);
  });

  it('403 for a read-only (Users) token writing, and for a purge-only token outside purge', async () => {
    const user = await t.account({ role: 'Users' });
    const write = await t.request('POST', `/iam/v2/clients/${user.clientId}/tokens`, { headers: user.headers, body: body({ name: 'Users' }) });
    expect(write.statusCode).toBe(403);
    expect(write.json()).toEqual({ detail: 'You do not have permission to perform this action.' });
    expect((await t.request('GET', `/iam/v2/clients/${user.clientId}/tokens`, { headers: user.headers })).statusCode).toBe(200);
    const purge = await t.account({ role: 'Purge and Prefetch only (API)' });
    expect((await t.request('GET', `/iam/v2/clients/${purge.clientId}/tokens`, { headers: purge.headers })).statusCode).toBe(403);
  });

  it('shows non-administrators only their own tokens', async () => {
    const engineer = await t.account({ role: 'Engineers' });
    const list = (await t.request('GET', `/iam/v2/clients/${engineer.clientId}/tokens`, { headers: engineer.headers })).json();
    expect(list.every((tok: { client_user: { user_id: number } }) => tok.client_user.user_id === engineer.userId)).toBe(true);
  });

  it('validates the role and the expiry date (400, as the operation declares)', async () => {
    const url = `/iam/v2/clients/${admin.clientId}/tokens`;
    const unknownId = await t.request('POST', url, { headers: admin.headers, body: body({ id: 77 }) });
    expect(unknownId.statusCode).toBe(400);
    expect(unknownId.json().errors.client_user.role.id).toBeTruthy();
    const mismatch = await t.request('POST', url, { headers: admin.headers, body: body({ id: 1, name: 'Users' }) });
    expect(mismatch.json().errors.client_user.role[0]).toMatch(/is Administrators/);
    const none = await t.request('POST', url, { headers: admin.headers, body: body({}) });
    expect(none.statusCode).toBe(400);
    const badName = await t.request('POST', url, { headers: admin.headers, body: body({ name: 'Gods' }) });
    expect(badName.json().errors.client_user.role.name[0]).toMatch(/one of/);
    const past = await t.request('POST', url, { headers: admin.headers, body: body({ id: 2 }, { exp_date: '2001-01-01T00:00:00Z' }) });
    expect(past.json().errors.exp_date[0]).toMatch(/future/);
    const notADate = await t.request('POST', url, { headers: admin.headers, body: body({ id: 2 }, { exp_date: 'tomorrow' }) });
    expect(notADate.statusCode).toBe(400);
  });

  it('keeps at most 1,000 working tokens per account (400, as declared); a revocation makes room', async () => {
    const a = await t.account();
    for (let i = 1; i < LIVE_TOKENS; i += 1) await t.iam.tokens.issue({ clientId: a.clientId, userId: a.userId, role: 'Users', name: `bulk ${i}` });
    const url = `/iam/v2/clients/${a.clientId}/tokens`;
    const refused = await t.request('POST', url, { headers: a.headers, body: body({ name: 'Users' }) });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ errors: { non_field_errors: [expect.stringMatching(/1000 working API tokens/)] } });
    const some = (await t.request('GET', `${url}?role=Users`, { headers: a.headers })).json()[0];
    expect((await t.request('DELETE', `${url}/${some.id}`, { headers: a.headers })).statusCode).toBe(204);
    expect((await t.request('POST', url, { headers: a.headers, body: body({ name: 'Users' }) })).statusCode).toBe(200);
  });

  it('filters the list by role, issuer and deletion', async () => {
    const a = await t.account();
    const url = `/iam/v2/clients/${a.clientId}/tokens`;
    const users = (await t.request('POST', url, { headers: a.headers, body: body({ name: 'Users' }) })).json();
    await t.request('DELETE', `${url}/${users.id}`, { headers: a.headers });
    const byRole = (await t.request('GET', `${url}?role=Users`, { headers: a.headers })).json();
    expect(byRole.map((x: { id: number }) => x.id)).toEqual([users.id]);
    expect((await t.request('GET', `${url}?role=2`, { headers: a.headers })).json()).toHaveLength(1);
    expect((await t.request('GET', `${url}?deleted=false`, { headers: a.headers })).json().some((x: { id: number }) => x.id === users.id)).toBe(false);
    expect((await t.request('GET', `${url}?not_issued_by=${a.userId}`, { headers: a.headers })).json()).toEqual([]);
    expect((await t.request('GET', `${url}?role=Nobody`, { headers: a.headers })).statusCode).toBe(422);
  });

  it('lets a reseller manage tokens of its own sub-clients only', async () => {
    const reseller = await t.account({ reseller: true });
    const sub = await t.account({ resellerId: reseller.clientId });
    const stranger = await t.account();
    const portal = { authorization: `APIKey ${await t.resellerToken(reseller.clientId, reseller.userId)}` };
    const created = await t.request('POST', `/iam/v2/clients/${sub.clientId}/tokens`, { headers: portal, body: body({ name: 'Engineers' }) });
    expect(created.statusCode).toBe(200);
    expect(created.json().client_user.client_id).toBe(sub.clientId);
    expect((await t.request('GET', `/iam/v2/clients/${stranger.clientId}/tokens`, { headers: portal })).statusCode).toBe(404);
    // An admin-portal token is not a client API token: it cannot read client resources.
    expect((await t.request('GET', `/nothing`, { headers: portal })).statusCode).toBe(404);
  });
});
