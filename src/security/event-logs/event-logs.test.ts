import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';

const LIST = '/security/notifier/v1/event_logs';
const DETAIL = '/security/notifier/v1/event_logs/{event_log_id}';
const NOW = Date.parse('2026-06-15T12:00:00Z');
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

let t: TestApp;
let a: TestAccount;
let other: TestAccount;

async function seed(records: Record<string, unknown>[]) {
  const res = await t.request('POST', '/_edgeplane/security/event-logs/bulk', { headers: t.operator, body: { records } });
  expect(res.statusCode).toBe(201);
  return res.json();
}

beforeAll(async () => {
  t = await createTestApp();
  t.clock.freeze();
  t.clock.set(NOW);
  a = await t.account();
  other = await t.account();
  await seed([
    {
      id: uuid(1),
      client_id: a.clientId,
      alert_type: 'ddos_alert',
      notification_type: 'attack_started',
      attack_start_time: '2026-06-01T10:00:00Z',
      attack_power_bps: 8e9,
      attack_power_pps: 2e6,
      number_of_ip_involved_in_attack: 500,
      targeted_ip_addresses: '203.0.113.5, 203.0.113.6',
      attack_traffic: [{ time: '2026-06-01T10:00:00Z', bps: 8e9, pps: 2e6 }],
    },
    {
      id: uuid(2),
      client_id: a.clientId,
      alert_type: 'rtbh_alert',
      notification_type: 'blackhole_announced',
      attack_start_time: '2026-06-10T00:00:00Z',
      attack_power_bps: 1e9,
      attack_power_pps: 5e5,
      number_of_ip_involved_in_attack: 40,
      targeted_ip_addresses: '203.0.113.55',
    },
    {
      id: uuid(3),
      client_id: a.clientId,
      alert_type: 'ddos_alert',
      attack_start_time: '2025-12-01T00:00:00Z',
      attack_power_bps: 3e9,
      attack_power_pps: 9e5,
      number_of_ip_involved_in_attack: null,
      targeted_ip_addresses: '198.51.100.7',
    },
    { id: uuid(4), client_id: a.clientId, alert_type: 'ddos_alert', attack_start_time: '2024-01-01T00:00:00Z', targeted_ip_addresses: '198.51.100.8' },
    { id: uuid(5), client_id: other.clientId, alert_type: 'ddos_alert', attack_start_time: '2026-06-02T00:00:00Z', targeted_ip_addresses: '203.0.113.5' },
  ]);
});
afterAll(async () => t.close());

const ids = (body: { results: { id: string }[] }) => body.results.map((r) => r.id);

describe('GET /security/notifier/v1/event_logs', () => {
  it("lists the last year of the caller's records, oldest first, 10 per page by default", async () => {
    const res = await t.request('GET', LIST, { headers: a.headers });
    expect(res.statusCode).toBe(200);
    expectConforms('GET', LIST, res);
    const body = res.json();
    expect(body).toMatchObject({ count: 3, limit: 10, offset: 0 });
    expect(ids(body)).toEqual([uuid(3), uuid(1), uuid(2)]);
    expect(body.results[1]).toEqual({
      id: uuid(1),
      alert_type: 'ddos_alert',
      client_id: a.clientId,
      notification_type: 'attack_started',
      attack_start_time: '2026-06-01T10:00:00.000Z',
      attack_power_bps: 8e9,
      attack_power_pps: 2e6,
      number_of_ip_involved_in_attack: 500,
      targeted_ip_addresses: '203.0.113.5, 203.0.113.6',
    });
    expect(body.results[1]).not.toHaveProperty('attack_traffic');
  });

  it('filters by date_from / date_to (dates and date-times, date_to a whole day)', async () => {
    const q = async (query: Record<string, string>) => ids((await t.request('GET', LIST, { headers: a.headers, query })).json());
    expect(await q({ date_from: '2020-01-01' })).toEqual([uuid(4), uuid(3), uuid(1), uuid(2)]);
    expect(await q({ date_from: '2026-06-01T10:00:00Z', date_to: '2026-06-10' })).toEqual([uuid(1), uuid(2)]);
    expect(await q({ date_from: '2026-06-01T10:00:01+00:00' })).toEqual([uuid(2)]);
    expect(await q({ date_from: '2026-06-01T12:00:00+02:00', date_to: '2026-06-09T23:59:59' })).toEqual([uuid(1)]);
    expect(await q({ date_from: '2026-06-11' })).toEqual([]);
    // What Python's isoformat() sends (microseconds, offset), and a raw "+" that arrived as a space.
    expect(await q({ date_from: '2026-06-01T10:00:00.500000+00:00' })).toEqual([uuid(2)]);
    expect(await q({ date_from: '2026-06-01T10:00:01 00:00' })).toEqual([uuid(2)]);
  });

  it('filters by alert_type and targeted_ip_addresses (one address of the list, or the whole list)', async () => {
    const q = async (query: Record<string, string>) => ids((await t.request('GET', LIST, { headers: a.headers, query })).json());
    expect(await q({ alert_type: 'rtbh_alert' })).toEqual([uuid(2)]);
    expect(await q({ alert_type: 'ddos_alert' })).toEqual([uuid(3), uuid(1)]);
    expect(await q({ targeted_ip_addresses: '203.0.113.5' })).toEqual([uuid(1)]);
    expect(await q({ targeted_ip_addresses: '203.0.113.6' })).toEqual([uuid(1)]);
    expect(await q({ targeted_ip_addresses: '203.0.113.5, 203.0.113.6' })).toEqual([uuid(1)]);
    expect(await q({ targeted_ip_addresses: '203.0.113.55' })).toEqual([uuid(2)]);
    expect(await q({ targeted_ip_addresses: '203.0.113' })).toEqual([]);
    expect(await q({ targeted_ip_addresses: '203.0.113.%' })).toEqual([]);
  });

  it('orders by each field, ascending and descending, nulls last', async () => {
    const q = async (ordering: string) => ids((await t.request('GET', LIST, { headers: a.headers, query: { ordering, date_from: '2020-01-01' } })).json());
    expect(await q('-attack_start_time')).toEqual([uuid(2), uuid(1), uuid(3), uuid(4)]);
    expect(await q('attack_power_bps')).toEqual([uuid(2), uuid(3), uuid(1), uuid(4)]);
    expect(await q('-attack_power_bps')).toEqual([uuid(1), uuid(3), uuid(2), uuid(4)]);
    expect(await q('attack_power_pps')).toEqual([uuid(2), uuid(3), uuid(1), uuid(4)]);
    expect(await q('-attack_power_pps')).toEqual([uuid(1), uuid(3), uuid(2), uuid(4)]);
    expect(await q('number_of_ip_involved_in_attack')).toEqual([uuid(2), uuid(1), uuid(3), uuid(4)]);
    expect(await q('-number_of_ip_involved_in_attack')).toEqual([uuid(1), uuid(2), uuid(4), uuid(3)]);
    expect(await q('alert_type')).toEqual([uuid(1), uuid(3), uuid(4), uuid(2)]);
    expect(await q('-alert_type')).toEqual([uuid(2), uuid(4), uuid(3), uuid(1)]);
  });

  it('pages with limit and offset; count is the total', async () => {
    const page = async (limit: number, offset: number) =>
      (await t.request('GET', LIST, { headers: a.headers, query: { limit: String(limit), offset: String(offset), date_from: '2020-01-01' } })).json();
    expect(await page(2, 0)).toMatchObject({ count: 4, limit: 2, offset: 0, results: [{ id: uuid(4) }, { id: uuid(3) }] });
    expect(await page(2, 2)).toMatchObject({ count: 4, offset: 2, results: [{ id: uuid(1) }, { id: uuid(2) }] });
    expect(await page(2, 4)).toMatchObject({ count: 4, results: [] });
    const max = await t.request('GET', LIST, { headers: a.headers, query: { limit: '500' } });
    expect(max.statusCode).toBe(200);
  });

  it("never shows another client's records", async () => {
    const body = (await t.request('GET', LIST, { headers: other.headers })).json();
    expect(ids(body)).toEqual([uuid(5)]);
  });

  const bad: [string, Record<string, string>, unknown][] = [
    ['limit 0', { limit: '0' }, [{ loc: ['query', 'limit'], msg: 'Input must be >= 1', type: 'value_error' }]],
    ['limit 501', { limit: '501' }, [{ loc: ['query', 'limit'], msg: 'Input must be <= 500', type: 'value_error' }]],
    ['limit not a number', { limit: 'ten' }, [{ loc: ['query', 'limit'], msg: 'Input should be of type integer', type: 'type_error' }]],
    ['negative offset', { offset: '-1' }, [{ loc: ['query', 'offset'], msg: 'Input must be >= 0', type: 'value_error' }]],
    ['unknown alert_type', { alert_type: 'syn' }, [{ loc: ['query', 'alert_type'], msg: 'Input should be one of: "ddos_alert", "rtbh_alert"', type: 'enum' }]],
    [
      'unknown ordering',
      { ordering: 'id' },
      [{ loc: ['query', 'ordering'], msg: expect.stringMatching(/^Input should be one of: "attack_start_time", "-attack_start_time"/), type: 'enum' }],
    ],
    [
      'bad date_from',
      { date_from: 'yesterday' },
      [{ loc: ['query', 'date_from'], msg: 'Input should be a valid datetime or date', type: 'datetime_from_date_parsing' }],
    ],
    [
      'bad date_to',
      { date_to: '2026-13-45' },
      [{ loc: ['query', 'date_to'], msg: 'Input should be a valid datetime or date', type: 'datetime_from_date_parsing' }],
    ],
  ];
  for (const [name, query, detail] of bad) {
    it(`422 in the notifier's body for ${name}`, async () => {
      const res = await t.request('GET', LIST, { headers: a.headers, query });
      expect(res.statusCode).toBe(422);
      expectConforms('GET', LIST, res);
      expect(res.json()).toEqual({ detail });
    });
  }

  it('401 without a token or with a wrong one, 403 for a purge-only token', async () => {
    const none = await t.request('GET', LIST);
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ detail: expect.stringMatching(/not provided/) });
    const wrong = await t.request('GET', LIST, { headers: { authorization: 'APIKey 1_nope' } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ detail: 'Invalid API token.' });
    const purge = await t.account({ role: 'Purge and Prefetch only (API)' });
    const forbidden = await t.request('GET', LIST, { headers: purge.headers });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toEqual({ detail: 'You do not have permission to perform this action.' });
  });
});

describe('GET /security/notifier/v1/event_logs/{event_log_id}', () => {
  it('returns the record with every field, arrays included (null when not given)', async () => {
    const res = await t.request('GET', `${LIST}/${uuid(1)}`, { headers: a.headers });
    expect(res.statusCode).toBe(200);
    expectConforms('GET', DETAIL, res);
    expect(res.json()).toMatchObject({
      id: uuid(1),
      alert_type: 'ddos_alert',
      attack_power_pps: 2e6,
      attack_traffic: [{ time: '2026-06-01T10:00:00Z', bps: 8e9, pps: 2e6 }],
      attack_packet_sizes: null,
      attack_top_source_countries: null,
      attack_top_source_ips: null,
      attack_top_source_ports: null,
      attack_top_destination_ports: null,
      attack_top_protocols: null,
    });
  });

  it('accepts the id in upper case', async () => {
    const res = await t.request('GET', `${LIST}/${uuid(2).toUpperCase()}`, { headers: a.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json().id).toBe(uuid(2));
  });

  it('422 in the notifier body for an id that is not a UUID', async () => {
    const res = await t.request('GET', `${LIST}/not-a-uuid`, { headers: a.headers });
    expect(res.statusCode).toBe(422);
    expectConforms('GET', DETAIL, res);
    expect(res.json()).toEqual({ detail: [{ loc: ['path', 'event_log_id'], msg: 'Input must match format "uuid"', type: 'value_error' }] });
  });

  it("404 for an unknown id and for another client's record, with the same body", async () => {
    const unknown = await t.request('GET', `${LIST}/${uuid(99)}`, { headers: a.headers });
    const foreign = await t.request('GET', `${LIST}/${uuid(5)}`, { headers: a.headers });
    for (const res of [unknown, foreign]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ detail: 'Event log not found' });
    }
  });

  it('401 without a token', async () => {
    const res = await t.request('GET', `${LIST}/${uuid(1)}`);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ detail: expect.any(String) });
  });
});

describe('control API', () => {
  it('adds one record with a generated id; 409 when the id exists', async () => {
    const res = await t.request('POST', '/_edgeplane/security/event-logs', {
      headers: t.operator,
      body: { client_id: other.clientId, alert_type: 'rtbh_alert', attack_start_time: '2026-06-03T00:00:00Z' },
    });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    const read = await t.request('GET', `${LIST}/${created.id}`, { headers: other.headers });
    expect(read.json()).toEqual(created);
    const again = await t.request('POST', '/_edgeplane/security/event-logs', { headers: t.operator, body: { id: created.id, client_id: other.clientId } });
    expect(again.statusCode).toBe(409);
  });

  it('validates the input: unknown client, extra field, bad alert type', async () => {
    const res = await t.request('POST', '/_edgeplane/security/event-logs', { headers: t.operator, body: { client_id: 999999 } });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([{ loc: ['body', 'client_id'], msg: 'Client 999999 does not exist', type: 'value_error' }]);
    const extra = await t.request('POST', '/_edgeplane/security/event-logs', {
      headers: t.operator,
      body: { client_id: a.clientId, colour: 'red', alert_type: 'x' },
    });
    expect(extra.statusCode).toBe(422);
    expect(
      extra
        .json()
        .errors.map((e: { loc: string[] }) => e.loc.join('.'))
        .sort(),
    ).toEqual(['body.alert_type', 'body.colour']);
  });

  it('bulk is all or nothing: a duplicate id inserts nothing', async () => {
    const res = await t.request('POST', '/_edgeplane/security/event-logs/bulk', {
      headers: t.operator,
      body: {
        records: [
          { id: uuid(50), client_id: a.clientId },
          { id: uuid(1), client_id: a.clientId },
        ],
      },
    });
    expect(res.statusCode).toBe(409);
    expect((await t.request('GET', `${LIST}/${uuid(50)}`, { headers: a.headers })).statusCode).toBe(404);
  });

  it('needs the operator token', async () => {
    const res = await t.request('POST', '/_edgeplane/security/event-logs/bulk', { headers: a.headers, body: { records: [{ client_id: a.clientId }] } });
    expect(res.statusCode).toBe(403);
  });
});
