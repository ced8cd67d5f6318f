import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';

let t: TestApp;
let admin: TestAccount;
let other: TestAccount;
const extraUsers: number[] = [];

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.account();
  other = await t.account();
  for (const [i, groupId] of ([2, 5, 3022] as const).entries()) {
    extraUsers.push(await t.iam.accounts.addUser(admin.clientId, { email: `extra${i}-${admin.clientId}@example.test`, name: `Extra ${i}`, groupId }));
  }
});
afterAll(async () => t.close());

async function tokenFor(clientId: number, userId: number, role: Parameters<TestApp['iam']['tokens']['issue']>[0]['role']) {
  const { token } = await t.iam.tokens.issue({ clientId, userId, role, name: 'test' });
  return { authorization: `APIKey ${token}` };
}

describe('GET /iam/users', () => {
  it('lists every user of the account without a limit, with roles, conforming to the reference', async () => {
    const res = await t.request('GET', '/iam/users', { headers: admin.headers });
    expect(res.statusCode).toBe(200);
    expectConforms('GET', '/iam/users', res);
    const body = res.json();
    expect(body.count).toBe(4);
    expect(body).not.toHaveProperty('next');
    expect(body.results.map((u: { id: number }) => u.id)).toEqual([admin.userId, ...extraUsers]);
    expect(body.results.map((u: { groups: { name: string }[] }) => u.groups[0].name)).toEqual([
      'Administrators',
      'Users',
      'Engineers',
      'Purge and Prefetch only (API)',
    ]);
    expect(body.results[1]).toMatchObject({
      id: extraUsers[0],
      name: 'Extra 0',
      lang: 'en',
      client: admin.clientId,
      deleted: false,
      user_type: 'common',
      is_active: true,
      groups: [{ id: 2, name: 'Users' }],
      client_and_roles: [{ client_id: admin.clientId, user_id: extraUsers[0], user_roles: ['2'], client_company_name: expect.stringMatching(/^Company/) }],
    });
  });

  it('pages with limit and offset (the client default is 50), with next/previous links', async () => {
    const first = (await t.request('GET', '/iam/users', { headers: admin.headers, query: { limit: '2' } })).json();
    expect(first).toMatchObject({ count: 4, next: '/iam/users?offset=2&limit=2' });
    expect(first).not.toHaveProperty('previous');
    expect(first.results).toHaveLength(2);
    const second = await t.request('GET', '/iam/users', { headers: admin.headers, query: { limit: '2', offset: '2' } });
    expectConforms('GET', '/iam/users', second);
    expect(second.json()).toMatchObject({ count: 4, previous: '/iam/users?offset=0&limit=2' });
    expect(second.json()).not.toHaveProperty('next');
    expect(second.json().results.map((u: { id: number }) => u.id)).toEqual(extraUsers.slice(1));
    const past = (await t.request('GET', '/iam/users', { headers: admin.headers, query: { limit: '50', offset: '10' } })).json();
    expect(past).toMatchObject({ count: 4, results: [] });
    // The reference sets no maximum page size.
    const large = (await t.request('GET', '/iam/users', { headers: admin.headers, query: { limit: '100000' } })).json();
    expect(large).toMatchObject({ count: 4 });
    expect(large.results).toHaveLength(4);
    const offsetOnly = (await t.request('GET', '/iam/users', { headers: admin.headers, query: { offset: '3' } })).json();
    expect(offsetOnly.results.map((u: { id: number }) => u.id)).toEqual([extraUsers[2]]);
  });

  it("never shows another account's users", async () => {
    const body = (await t.request('GET', '/iam/users', { headers: other.headers })).json();
    expect(body.count).toBe(1);
    expect(body.results[0].id).toBe(other.userId);
  });

  it('422 (the product convention: the operation declares no 400 or 422) for a bad limit or offset, in the IAM body', async () => {
    const res = await t.request('GET', '/iam/users', { headers: admin.headers, query: { limit: 'x', offset: '-1' } });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { query: { limit: ['Input should be of type integer'], offset: ['Input must be >= 0'] } } });
  });

  it('401 without a token; 403 for a purge-only token', async () => {
    const none = await t.request('GET', '/iam/users');
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ detail: expect.stringMatching(/not provided/) });
    const purge = await tokenFor(admin.clientId, extraUsers[2], 'Purge and Prefetch only (API)');
    const res = await t.request('GET', '/iam/users', { headers: purge });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ detail: 'You do not have permission to perform this action.' });
  });
});

describe('GET /iam/users/{userId}', () => {
  it('returns one user', async () => {
    const res = await t.request('GET', `/iam/users/${extraUsers[1]}`, { headers: admin.headers });
    expect(res.statusCode).toBe(200);
    expectConforms('GET', '/iam/users/{userId}', res);
    expect(res.json()).toMatchObject({ id: extraUsers[1], groups: [{ id: 5, name: 'Engineers' }] });
  });

  it("404 for another account's user and for an unknown id, with the same body", async () => {
    for (const id of [other.userId, 999999]) {
      const res = await t.request('GET', `/iam/users/${id}`, { headers: admin.headers });
      expect(res.statusCode).toBe(404);
      expectConforms('GET', '/iam/users/{userId}', res);
      expect(res.json()).toEqual({ detail: 'User not found' });
    }
  });

  it('422 for a non-numeric id', async () => {
    const res = await t.request('GET', '/iam/users/abc', { headers: admin.headers });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { path: { userId: ['Input should be of type integer'] } } });
  });
});

describe('PATCH /iam/users/{userId}', () => {
  it('lets a user change their own name, language, phone and email (with a token that may write)', async () => {
    const headers = await tokenFor(admin.clientId, extraUsers[0], 'Engineers');
    const body = { name: 'Renamed', lang: 'de', phone: '+49 30 1234', email: `renamed-${admin.clientId}@example.test` };
    const res = await t.request('PATCH', `/iam/users/${extraUsers[0]}`, { headers, body });
    expect(res.statusCode).toBe(200);
    expectConforms('PATCH', '/iam/users/{userId}', res);
    expect(res.json()).toMatchObject({ ...body, id: extraUsers[0], groups: [{ id: 2, name: 'Users' }] });
    const read = await t.request('GET', `/iam/users/${extraUsers[0]}`, { headers: admin.headers });
    expect(read.json()).toMatchObject(body);
    const me = await t.request('GET', '/iam/clients/me', { headers: admin.headers });
    expect(me.json().users.find((u: { id: number }) => u.id === extraUsers[0]).name).toBe('Renamed');
    const cleared = await t.request('PATCH', `/iam/users/${extraUsers[0]}`, { headers, body: { name: null, phone: null } });
    expect(cleared.json()).toMatchObject({ name: null, phone: null });
  });

  it('accepts the body the official Python client sends (every PutUser field, auth_types included)', async () => {
    const headers = await tokenFor(admin.clientId, extraUsers[1], 'Engineers');
    const body = { auth_types: ['password'], email: `py-${admin.clientId}@example.test`, lang: 'en', name: 'Py', phone: null };
    const res = await t.request('PATCH', `/iam/users/${extraUsers[1]}`, { headers, body });
    expect(res.statusCode).toBe(200);
    expectConforms('PATCH', '/iam/users/{userId}', res);
    expect(res.json()).toMatchObject({ email: body.email, name: 'Py', phone: null, auth_types: ['password'] });
  });

  it("403 when a non-administrator changes someone else's details or their own group", async () => {
    const headers = await tokenFor(admin.clientId, extraUsers[1], 'Engineers');
    const others = await t.request('PATCH', `/iam/users/${extraUsers[0]}`, { headers, body: { name: 'x' } });
    expect(others.statusCode).toBe(403);
    expect(others.json()).toEqual({ detail: "Only administrators can change other users' details." });
    const own = await t.request('PATCH', `/iam/users/${extraUsers[1]}`, { headers, body: { groups: [{ id: 1 }] } });
    expect(own.statusCode).toBe(403);
    expect(own.json()).toEqual({ detail: "Only administrators can change a user's group." });
    const same = await t.request('PATCH', `/iam/users/${extraUsers[1]}`, { headers, body: { groups: [{ name: 'Engineers' }] } });
    expect(same.statusCode).toBe(200);
  });

  it('lets an administrator change a group by id or name; the role shows everywhere', async () => {
    const res = await t.request('PATCH', `/iam/users/${extraUsers[2]}`, { headers: admin.headers, body: { groups: [{ name: 'Engineers' }] } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ groups: [{ id: 5, name: 'Engineers' }], client_and_roles: [{ user_roles: ['5'] }] });
    const back = await t.request('PATCH', `/iam/users/${extraUsers[2]}`, { headers: admin.headers, body: { groups: [{ id: 3022 }] } });
    expect(back.json().groups).toEqual([{ id: 3022, name: 'Purge and Prefetch only (API)' }]);
  });

  it('403 when the user holds a live token with a higher role than the new group', async () => {
    const a = await t.account();
    const engineer = await t.iam.accounts.addUser(a.clientId, { email: `eng-${a.clientId}@example.test`, name: 'Eng', groupId: 5 });
    await tokenFor(a.clientId, engineer, 'Engineers');
    const res = await t.request('PATCH', `/iam/users/${engineer}`, { headers: a.headers, body: { groups: [{ id: 2 }] } });
    expect(res.statusCode).toBe(403);
    expectConforms('PATCH', '/iam/users/{userId}', res);
    expect(res.json()).toEqual({ detail: 'The specified user has issued a token with a higher role. Try using another role.' });
  });

  it('ignores expired tokens when checking a group change', async () => {
    const a = await t.account();
    const engineer = await t.iam.accounts.addUser(a.clientId, { email: `eng2-${a.clientId}@example.test`, name: 'Eng', groupId: 5 });
    await t.iam.tokens.issue({ clientId: a.clientId, userId: engineer, role: 'Engineers', name: 'short', expiresAt: t.clock.now() + 1000 });
    t.clock.advance(2000);
    const res = await t.request('PATCH', `/iam/users/${engineer}`, { headers: a.headers, body: { groups: [{ id: 2 }] } });
    expect(res.statusCode).toBe(200);
    expect(res.json().groups).toEqual([{ id: 2, name: 'Users' }]);
  });

  it('ignores fields it does not know, read-only ones included (the reference leaves the body open)', async () => {
    const res = await t.request('PATCH', `/iam/users/${extraUsers[1]}`, { headers: admin.headers, body: { client: 5, id: 1, surprise: true, name: 'Kept' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: extraUsers[1], client: admin.clientId, name: 'Kept' });
  });

  it('403 for read-only and purge-only tokens, even on their own user (the role table)', async () => {
    for (const role of ['Users', 'Purge and Prefetch only (API)'] as const) {
      const headers = await tokenFor(admin.clientId, admin.userId, role);
      const res = await t.request('PATCH', `/iam/users/${admin.userId}`, { headers, body: { email: `taken-over-${role.length}@example.test` } });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ detail: 'You do not have permission to perform this action.' });
    }
  });

  const invalidCases: [string, unknown, Record<string, unknown>][] = [
    ['a bad email', { email: 'not-an-email' }, { email: ['Input must match format "email"'] }],
    ['an unknown auth type', { auth_types: ['ldap'] }, { auth_types: { 0: ['Input should be one of: "password", "sso", "github", "google-oauth2"'] } }],
    ['a bad language', { lang: 'fr' }, { lang: ['Input should be one of: "de", "en", "ru", "zh", "az"'] }],
    ['an unknown group id', { groups: [{ id: 77 }] }, { groups: ['Group matching query does not exist.'] }],
    ['a group id and name that disagree', { groups: [{ id: 1, name: 'Users' }] }, { groups: ['Group matching query does not exist.'] }],
    ['two groups', { groups: [{ id: 1 }, { id: 2 }] }, { groups: ['Input must NOT have more than 1 items'] }],
  ];
  for (const [name, body, errors] of invalidCases) {
    it(`400 (UpdateUserError) for ${name}`, async () => {
      const res = await t.request('PATCH', `/iam/users/${extraUsers[1]}`, { headers: admin.headers, body });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ errors });
      expectConforms('PATCH', '/iam/users/{userId}', res);
    });
  }

  it("400 for an email another user of the account has, and for demoting the account's last administrator", async () => {
    const colleague = (await t.request('GET', `/iam/users/${extraUsers[0]}`, { headers: admin.headers })).json().email;
    const taken = await t.request('PATCH', `/iam/users/${extraUsers[1]}`, { headers: admin.headers, body: { email: colleague } });
    expect(taken.statusCode).toBe(400);
    expect(taken.json()).toEqual({ errors: { email: ['User with this email already exists.'] } });
    const b = await t.account();
    const demote = await t.request('PATCH', `/iam/users/${b.userId}`, { headers: b.headers, body: { groups: [{ id: 5 }] } });
    expect(demote.statusCode).toBe(400);
    expect(demote.json()).toEqual({ errors: { groups: ['The account must keep at least one active administrator.'] } });
  });

  it("does not tell whether another account's user has an email", async () => {
    const elsewhere = (await t.request('GET', `/iam/users/${other.userId}`, { headers: other.headers })).json().email;
    const res = await t.request('PATCH', `/iam/users/${extraUsers[1]}`, { headers: admin.headers, body: { email: elsewhere } });
    expect(res.statusCode).toBe(200);
  });

  it("404 for another account's user; 401 without a token", async () => {
    const res = await t.request('PATCH', `/iam/users/${other.userId}`, { headers: admin.headers, body: { name: 'x' } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'User not found' });
    expect((await t.request('PATCH', `/iam/users/${admin.userId}`, { body: { name: 'x' } })).statusCode).toBe(401);
  });
});
