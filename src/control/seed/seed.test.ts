import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../tests/support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  t.clock.freeze();
  t.clock.set(Date.parse('2026-06-15T12:00:00Z'));
});
afterAll(async () => t.close());

const seed = (body: unknown) => t.request('POST', '/_edgeplane/seed', { headers: t.operator, body });

describe('POST /_edgeplane/seed', () => {
  it("creates clients and tokens, then product data through the products' own endpoints", async () => {
    const res = await seed({
      clients: [
        { ref: 'shop', email: 'ops@shop.test', companyName: 'Shop', reseller: true, tokens: [{ name: 'admin' }] },
        { ref: 'sub', email: 'ops@sub.test', companyName: 'Sub', resellerRef: 'shop', tokens: [{ name: 'ro', role: 'Users' }] },
      ],
      requests: [
        {
          method: 'POST',
          path: '/_edgeplane/security/event-logs',
          body: { client_id: '{{sub.clientId}}', alert_type: 'ddos_alert', attack_start_time: '2026-06-01T10:00:00Z', targeted_ip_addresses: '203.0.113.5' },
        },
        { method: 'GET', path: '/security/notifier/v1/event_logs', as: 'sub' },
      ],
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const [shop, sub] = body.clients;
    expect(shop).toMatchObject({ ref: 'shop', email: 'ops@shop.test' });
    expect(sub.tokens[0]).toMatchObject({ name: 'ro', token: expect.any(String) });
    expect(body.requests[1]).toMatchObject({ status: 200, body: { count: 1 } });
    const me = await t.request('GET', '/iam/clients/me', { headers: { authorization: `APIKey ${sub.tokens[0].token}` } });
    expect(me.json()).toMatchObject({ id: sub.clientId, companyName: 'Sub' });
    expect(me.json().users[0].reseller).toBe(shop.clientId);
  });

  it('stops at the first failing request with a 422 naming it', async () => {
    const res = await seed({ requests: [{ method: 'GET', path: '/nowhere' }] });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'validation_failed', message: expect.stringMatching(/seed request 0 \(GET \/nowhere\) answered 404/) });
    expect((await seed({ requests: [{ method: 'GET', path: '/nowhere', expect: 404 }] })).statusCode).toBe(200);
  });

  it('422 for unknown refs, duplicate refs and unknown fields', async () => {
    expect((await seed({ requests: [{ method: 'GET', path: '/iam/clients/me', as: 'ghost' }] })).json().message).toMatch(/no client with ref ghost/);
    expect((await seed({ requests: [{ method: 'GET', path: '/x/{{ghost.clientId}}' }] })).json().message).toMatch(/unknown client ghost/);
    const twice = { email: 'a@b.test', companyName: 'A', ref: 'same' };
    expect((await seed({ clients: [twice, twice] })).json().message).toMatch(/used twice/);
    expect((await seed({ clients: [{ ...twice, ref: 'x', colour: 'red' }] })).statusCode).toBe(422);
    expect((await seed({ clients: [{ email: 'c@d.test', companyName: 'C', resellerRef: 'nobody' }] })).json().message).toMatch(/no client with ref nobody/);
  });

  it('sends a string body as-is when a content type is given (NDJSON ingestion)', async () => {
    const res = await seed({ requests: [{ method: 'POST', path: '/_edgeplane/waap/events', contentType: 'application/x-ndjson', body: '{not json\n' }] });
    expect(res.statusCode).toBe(200);
    expect(res.json().requests[0].body).toMatchObject({ accepted: 0, rejected: 1 });
  });

  it('is operator-only', async () => {
    expect((await t.request('POST', '/_edgeplane/seed', { body: {} })).statusCode).toBe(401);
  });
});
