import { afterAll, beforeAll, it, expect } from 'vitest';
import { createTestApp, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';

let t: TestApp;
beforeAll(async () => { t = await createTestApp(); });
afterAll(async () => t.close());

it('smoke', async () => {
  const a = await t.account();
  const b = await t.account();
  const g = await t.request('POST', '/_edgeplane/waap/generate', { headers: t.operator, body: { client_ids: [a.clientId, b.clientId], events: 20000, days: 3, seed: 7, first_share: 0.5 } });
  console.log(g.statusCode, g.body.slice(0, 300));
  const start = new Date(t.clock.now() - 3 * 86400000).toISOString();
  for (const q of ['', '&decision=blocked,monitored', '&countries=US&http_methods=GET', '&path=/api/*', '&offset=5000', '&ordering=request_time&offset=5000', '&ips=73.12.1.1']) {
    const res = await t.request('GET', `/waap/v1/analytics/requests?start=${start}${q}&limit=3`, { headers: a.headers });
    console.log(q, res.statusCode, res.body.slice(0, 400));
    expectConforms('GET', '/waap/v1/analytics/requests', res);
  }
  const list = (await t.request('GET', `/waap/v1/analytics/requests?start=${start}&limit=1&decision=blocked`, { headers: a.headers })).json();
  const r = list.results[0];
  const d = await t.request('GET', `/waap/v1/domains/${r.domain_id}/requests/${r.id}/details`, { headers: a.headers });
  console.log(d.body);
  expectConforms('GET', '/waap/v1/domains/{domain_id}/requests/{request_id}/details', d);
  for (const dim of ['country', 'ip', 'target', 'rule']) {
    const s = await t.request('GET', `/waap/v1/analytics/stats/${dim}?start=${start}`, { headers: a.headers });
    console.log(dim, s.statusCode, s.body.slice(0, 300));
    expectConforms('GET', '/waap/v1/analytics/stats/{dimension}', s);
  }
  const tr = await t.request('GET', `/waap/v1/analytics/traffic?start=${start}&resolution=daily`, { headers: a.headers });
  console.log(tr.statusCode, tr.body.slice(0, 400));
  expectConforms('GET', '/waap/v1/analytics/traffic', tr);
  const csv = await t.request('GET', `/_edgeplane/waap/requests.csv?client_id=${a.clientId}&start=${start}&decision=blocked`, { headers: t.operator });
  console.log(csv.statusCode, csv.body.slice(0, 600), csv.body.split('\n').length);
  expect(1).toBe(1);
});
