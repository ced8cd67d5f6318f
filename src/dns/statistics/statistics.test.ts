// Zone statistics: counters summed per slot, the period and granularity rules, `all`, record types.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { durationMs } from './service.js';
import { CountStore } from './store.js';

let t: TestApp;
let a: TestAccount;
const HOUR = 3_600_000;
// A fixed hour, so slots are predictable: 2026-01-01T00:00:00Z.
const T0 = Date.UTC(2026, 0, 1);

beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
  for (const name of ['one.example', 'two.example']) await call('POST', '/dns/v2/zones', { name });
  const zones = await t.db.kysely.selectFrom('dns_zones').select(['id', 'name']).where('client_id', '=', a.clientId).execute();
  const id = (name: string) => Number(zones.find((z) => z.name === name)!.id);
  const counts = new CountStore(t.db.kysely);
  await counts.add([
    { zone_id: id('one.example'), client_id: a.clientId, minute: T0, qtype: 'A', count: 5 },
    { zone_id: id('one.example'), client_id: a.clientId, minute: T0 + 60_000, qtype: 'AAAA', count: 2 },
    { zone_id: id('one.example'), client_id: a.clientId, minute: T0 + HOUR + 120_000, qtype: 'A', count: 7 },
    { zone_id: id('two.example'), client_id: a.clientId, minute: T0, qtype: 'MX', count: 1 },
  ]);
  // Adding to an existing counter increases it.
  await counts.add([{ zone_id: id('one.example'), client_id: a.clientId, minute: T0, qtype: 'A', count: 1 }]);
});
afterAll(async () => t?.close());

const call = (method: string, url: string, body?: unknown) => t.request(method, url, { headers: a.headers, body });
const range = `from=${T0 / 1000}&to=${(T0 + 2 * HOUR) / 1000}`;

describe('statistics', () => {
  it('sums a zone per hour by default', async () => {
    const res = await call('GET', `/dns/v2/zones/one.example/statistics?${range}`);
    expect(res.statusCode, res.body).toBe(200);
    expectConforms('GET', '/dns/v2/zones/{name}/statistics', res);
    expect(res.json()).toEqual({ requests: { [T0]: 8, [T0 + HOUR]: 7 }, total: 15 });
  });

  it('sums per minute, per type, and over all zones', async () => {
    expect((await call('GET', `/dns/v2/zones/one.example/statistics?${range}&granularity=1m`)).json().requests).toEqual({
      [T0]: 6,
      [T0 + 60_000]: 2,
      [T0 + HOUR + 120_000]: 7,
    });
    expect((await call('GET', `/dns/v2/zones/one.example/statistics?${range}&record_type=aaaa`)).json()).toEqual({ requests: { [T0]: 2 }, total: 2 });
    expect((await call('GET', `/dns/v2/zones/all/statistics?${range}&granularity=2h`)).json()).toEqual({ requests: { [T0]: 16 }, total: 16 });
  });

  it('answers nothing outside the period', async () => {
    expect((await call('GET', `/dns/v2/zones/one.example/statistics?from=${T0 / 1000 - 7200}&to=${T0 / 1000}`)).json()).toEqual({ requests: {}, total: 0 });
  });

  it.each([
    ['granularity=fast', /granularity must be a duration/],
    ['granularity=90s', /whole number of minutes/],
    ['granularity=300ms', /whole number of minutes/],
    [`from=${T0 / 1000 + 10}&to=${T0 / 1000}`, /from must not be after to/],
    [`from=0&to=${T0 / 1000}`, /at most 366 days/],
    ['from=abc', /from/],
  ])('refuses %s', async (query, message) => {
    const res = await call('GET', `/dns/v2/zones/one.example/statistics?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(message);
  });

  it('reads Go durations', () => {
    expect(durationMs('1h30m')).toBe(5_400_000);
    expect(durationMs('1.5h')).toBe(5_400_000);
    expect(durationMs('300ms')).toBe(300);
    expect(durationMs('5')).toBeUndefined();
  });
});
