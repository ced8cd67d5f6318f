import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';

const ADMIN = '/edge-functions/v1/admin/networks';
const control = (clientId: number) => `/_edgeplane/edge/clients/${clientId}/networks`;

let t: TestApp;
let reseller: TestAccount;
let resellerHeaders: { authorization: string };
let sub: TestAccount;
let otherSub: TestAccount;

beforeAll(async () => {
  t = await createTestApp();
  reseller = await t.account({ reseller: true });
  resellerHeaders = { authorization: `APIKey ${await t.resellerToken(reseller.clientId, reseller.userId)}` };
  sub = await t.account({ resellerId: reseller.clientId });
  const otherReseller = await t.account({ reseller: true });
  otherSub = await t.account({ resellerId: otherReseller.clientId });
});
afterAll(async () => t.close());

describe('GET /edge-functions/v1/admin/networks', () => {
  it('lists the implicit default network of a client nobody configured', async () => {
    const res = await t.request('GET', ADMIN, { headers: resellerHeaders, query: { client_id: String(sub.clientId) } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ networks: [{ name: 'default', is_default: true }] });
  });

  it('lists the networks the operator set, exactly one of them the default', async () => {
    const put = await t.request('PUT', control(sub.clientId), {
      headers: t.operator,
      body: {
        networks: [
          { name: 'global', is_default: true },
          { name: 'eu-only', is_default: false },
        ],
      },
    });
    expect(put.statusCode).toBe(200);
    const res = await t.request('GET', ADMIN, { headers: resellerHeaders, query: { client_id: String(sub.clientId) } });
    expect(res.json()).toEqual({
      networks: [
        { name: 'global', is_default: true },
        { name: 'eu-only', is_default: false },
      ],
    });
  });

  it("404 for another reseller's client and for an unknown client", async () => {
    for (const clientId of [otherSub.clientId, 999999]) {
      const res = await t.request('GET', ADMIN, { headers: resellerHeaders, query: { client_id: String(clientId) } });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Account not found' });
    }
  });

  it('403 for a plain client token, even about itself', async () => {
    const res = await t.request('GET', ADMIN, { headers: sub.headers, query: { client_id: String(sub.clientId) } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'You do not have permission to perform this action.' });
  });

  it('401 without a token or with a wrong one', async () => {
    const none = await t.request('GET', ADMIN, { query: { client_id: String(sub.clientId) } });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ error: expect.stringMatching(/not provided/) });
    const wrong = await t.request('GET', ADMIN, { headers: { authorization: 'APIKey 5_wrong' }, query: { client_id: '1' } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ error: 'Invalid API token.' });
  });

  const bad: [string, Record<string, string>, string][] = [
    ['missing client_id', {}, 'query.client_id: Field required'],
    ['non-numeric client_id', { client_id: 'abc' }, 'query.client_id: Input should be of type integer'],
    ['zero client_id', { client_id: '0' }, 'query.client_id: Input must be >= 1'],
    ['fractional client_id', { client_id: '1.5' }, 'query.client_id: Input should be of type integer'],
  ];
  for (const [name, query, error] of bad) {
    it(`422 for ${name}`, async () => {
      const res = await t.request('GET', ADMIN, { headers: resellerHeaders, query });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({ error });
    });
  }
});

describe('GET /fastedge/v1/me', () => {
  it('shows the client its own networks, conforming to the reference', async () => {
    const res = await t.request('GET', '/fastedge/v1/me', { headers: sub.headers });
    expect(res.statusCode).toBe(200);
    expectConforms('GET', '/fastedge/v1/me', res);
    expect(res.json()).toEqual({
      status: 1,
      hourly_consumption: 0,
      daily_consumption: 0,
      monthly_consumption: 0,
      app_count: 0,
      networks: [
        { name: 'global', is_default: true },
        { name: 'eu-only', is_default: false },
      ],
      plan_id: 1,
      plan: 'basic',
    });
  });

  it('shows the implicit default network to an unconfigured client', async () => {
    const a = await t.account();
    const res = await t.request('GET', '/fastedge/v1/me', { headers: a.headers });
    expectConforms('GET', '/fastedge/v1/me', res);
    expect(res.json().networks).toEqual([{ name: 'default', is_default: true }]);
  });

  it('401 without a token, 403 for a reseller admin-portal token', async () => {
    const none = await t.request('GET', '/fastedge/v1/me');
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ error: expect.any(String) });
    const res = await t.request('GET', '/fastedge/v1/me', { headers: resellerHeaders });
    expect(res.statusCode).toBe(403);
  });
});

describe('control API for networks', () => {
  it('adds a network, moves the default, removes a non-default one', async () => {
    const c = await t.account();
    const added = await t.request('POST', control(c.clientId), { headers: t.operator, body: { name: 'asia' } });
    expect(added.statusCode).toBe(201);
    expect(added.json()).toEqual({
      networks: [
        { name: 'default', is_default: true },
        { name: 'asia', is_default: false },
      ],
    });
    const moved = await t.request('POST', control(c.clientId), { headers: t.operator, body: { name: 'edge-1', is_default: true } });
    expect(moved.json()).toEqual({
      networks: [
        { name: 'default', is_default: false },
        { name: 'asia', is_default: false },
        { name: 'edge-1', is_default: true },
      ],
    });
    expect((await t.request('DELETE', `${control(c.clientId)}/asia`, { headers: t.operator })).statusCode).toBe(204);
    const list = await t.request('GET', control(c.clientId), { headers: t.operator });
    expect(list.json()).toEqual({
      networks: [
        { name: 'default', is_default: false },
        { name: 'edge-1', is_default: true },
      ],
    });
  });

  it('refuses to remove the default (409), a duplicate name (409), and an unknown network (404)', async () => {
    const c = await t.account();
    expect((await t.request('DELETE', `${control(c.clientId)}/default`, { headers: t.operator })).statusCode).toBe(409);
    expect((await t.request('POST', control(c.clientId), { headers: t.operator, body: { name: 'default' } })).statusCode).toBe(409);
    expect((await t.request('DELETE', `${control(c.clientId)}/nope`, { headers: t.operator })).statusCode).toBe(404);
  });

  it('422 unless exactly one network is the default, names are unique and well-formed', async () => {
    const c = await t.account();
    const none = await t.request('PUT', control(c.clientId), { headers: t.operator, body: { networks: [{ name: 'a1', is_default: false }] } });
    expect(none.statusCode).toBe(422);
    expect(none.json().errors).toEqual([{ loc: ['body', 'networks'], msg: 'Exactly one network must be the default (got 0)', type: 'value_error' }]);
    const two = await t.request('PUT', control(c.clientId), {
      headers: t.operator,
      body: {
        networks: [
          { name: 'a1', is_default: true },
          { name: 'a1', is_default: true },
        ],
      },
    });
    expect(two.json().errors.map((e: { msg: string }) => e.msg)).toEqual(['Network a1 is listed twice', 'Exactly one network must be the default (got 2)']);
    const badName = await t.request('PUT', control(c.clientId), { headers: t.operator, body: { networks: [{ name: 'Bad Name', is_default: true }] } });
    expect(badName.statusCode).toBe(422);
  });

  it('404 for an unknown client; operator token only', async () => {
    expect((await t.request('GET', control(999999), { headers: t.operator })).statusCode).toBe(404);
    expect((await t.request('GET', control(sub.clientId), { headers: resellerHeaders })).statusCode).toBe(403);
  });
});

describe('seed file', () => {
  it("sets up a reseller, its client, the client's networks and DDoS event logs through the control API", async () => {
    const seed = {
      seed: 3,
      clients: [
        { ref: 'partner', email: 'partner@example.test', companyName: 'Partner', reseller: true, tokens: [{ name: 'portal', kind: 'reseller' }] },
        { ref: 'shop', email: 'shop@example.test', companyName: 'Shop', resellerRef: 'partner', tokens: [{ name: 'api' }] },
      ],
      requests: [
        {
          method: 'PUT',
          path: '/_edgeplane/edge/clients/{{shop.clientId}}/networks',
          body: {
            networks: [
              { name: 'global', is_default: true },
              { name: 'ru', is_default: false },
            ],
          },
        },
        { method: 'POST', path: '/_edgeplane/security/event-logs/generate', body: { client_id: '{{shop.clientId}}', count: 5, seed: 1 } },
      ],
    };
    const res = await t.request('POST', '/_edgeplane/seed', { headers: t.operator, body: seed });
    expect(res.statusCode).toBe(200);
    const [partner, shop] = res.json().clients;
    const admin = await t.request('GET', ADMIN, {
      headers: { authorization: `APIKey ${partner.tokens[0].token}` },
      query: { client_id: String(shop.clientId) },
    });
    expect(admin.json()).toEqual({
      networks: [
        { name: 'global', is_default: true },
        { name: 'ru', is_default: false },
      ],
    });
    const events = await t.request('GET', '/security/notifier/v1/event_logs', { headers: { authorization: `APIKey ${shop.tokens[0].token}` } });
    expect(events.json().count).toBe(5);
  });
});
