// One seed document fills every product through its own endpoints, and the public API then shows it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../tests/support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  t.clock.freeze();
  t.clock.set(Date.parse('2026-06-15T12:00:00Z'));
});
afterAll(async () => t.close());

const PRODUCT_SEED = {
  seed: 1,
  clients: [{ ref: 'shop', email: 'ops@shop.test', companyName: 'Shop', tokens: [{ name: 'ci' }] }],
  requests: [
    { method: 'PUT', path: '/_edgeplane/cloud/quotas/{{shop.clientId}}', body: { vm_count_limit: 3 } },
    { method: 'POST', path: '/_edgeplane/edge/clients/{{shop.clientId}}/networks', body: { name: 'eu-edge', is_default: false } },
    { method: 'POST', path: '/_edgeplane/waap/domains', body: { client_id: '{{shop.clientId}}', name: 'shop.example' } },
    { method: 'POST', path: '/_edgeplane/waap/generate', body: { client_ids: ['{{shop.clientId}}'], events: 50, days: 1, seed: 3 } },
    {
      method: 'POST',
      path: '/_edgeplane/security/event-logs',
      body: { client_id: '{{shop.clientId}}', alert_type: 'ddos_alert', attack_start_time: '2026-06-01T10:00:00Z', targeted_ip_addresses: '203.0.113.5' },
    },
  ],
};

describe('seeding every product from one document', () => {
  it('creates the data, visible through the public API with the seeded token', async () => {
    const res = await t.request('POST', '/_edgeplane/seed', { headers: t.operator, body: PRODUCT_SEED });
    expect(res.statusCode).toBe(200);
    const token = res.json().clients[0].tokens[0].token as string;
    const headers = { authorization: `APIKey ${token}` };
    expect((await t.request('GET', '/security/notifier/v1/event_logs', { headers })).json().count).toBe(1);
    const domains = (await t.request('GET', '/waap/v1/domains', { headers })).json();
    expect(domains.results.map((d: { name: string }) => d.name)).toContain('shop.example');
    const clientId = res.json().clients[0].clientId;
    expect((await t.request('GET', `/_edgeplane/cloud/quotas/${clientId}`, { headers: t.operator })).json().vm_count_limit).toBe(3);
    expect(
      (await t.request('GET', `/_edgeplane/edge/clients/${clientId}/networks`, { headers: t.operator })).json().networks.map((n: { name: string }) => n.name),
    ).toContain('eu-edge');
  });
});
