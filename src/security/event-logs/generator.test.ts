import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { apportion, generateEventLogs, meanPacketSize, PACKET_BUCKETS } from './generator.js';

const END = Date.parse('2026-06-15T12:00:00Z');
const options = { clientId: 7, count: 200, seed: 42, end: END, days: 30 };
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('generateEventLogs', () => {
  const records = generateEventLogs(options);

  it('is deterministic for a seed, and differs across seeds and clients', () => {
    expect(generateEventLogs(options)).toEqual(records);
    expect(generateEventLogs({ ...options, seed: 43 })[0].id).not.toBe(records[0].id);
    expect(generateEventLogs({ ...options, clientId: 8 })[0].id).not.toBe(records[0].id);
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
  });

  it('produces both alert types and UUID v4 ids within the window', () => {
    expect(new Set(records.map((r) => r.alert_type))).toEqual(new Set(['ddos_alert', 'rtbh_alert']));
    for (const r of records) {
      expect(r.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(r.attack_start_time).toBeLessThanOrEqual(END);
      expect(r.attack_start_time).toBeGreaterThan(END - 30 * 86_400_000);
      expect(r.client_id).toBe(7);
    }
  });

  it('keeps the figures consistent: bps agrees with pps and the packet sizes', () => {
    for (const r of records) {
      const sizes = r.attack_packet_sizes as { size_from: number; size_to: number; percent: number }[];
      expect(sizes.map((s) => [s.size_from, s.size_to])).toEqual(PACKET_BUCKETS);
      expect(sum(sizes.map((s) => s.percent))).toBeCloseTo(100, 6);
      expect(r.attack_power_bps).toBe(Math.round(r.attack_power_pps * meanPacketSize(sizes) * 8));
      // Mean packet size stays within Ethernet bounds.
      expect(r.attack_power_bps / r.attack_power_pps / 8).toBeGreaterThan(60);
      expect(r.attack_power_bps / r.attack_power_pps / 8).toBeLessThan(1519);
    }
  });

  it("peaks the traffic series at exactly the record's attack power", () => {
    for (const r of records) {
      const traffic = r.attack_traffic as { time: string; pps: number; bps: number }[];
      expect(Math.max(...traffic.map((p) => p.pps))).toBe(r.attack_power_pps);
      expect(Math.max(...traffic.map((p) => p.bps))).toBe(r.attack_power_bps);
      expect(traffic[0].time).toBe(new Date(r.attack_start_time).toISOString());
      const times = traffic.map((p) => Date.parse(p.time));
      expect(times.every((time, i) => i === 0 || time - times[i - 1] === 60_000)).toBe(true);
    }
  });

  it('fills every breakdown with plausible entries whose shares add up', () => {
    for (const r of records) {
      const protocols = r.attack_top_protocols as { protocol: string; percent: number; pps: number }[];
      expect(sum(protocols.map((p) => p.percent))).toBeCloseTo(100, 6);
      for (const name of ['attack_top_source_countries', 'attack_top_source_ips', 'attack_top_source_ports', 'attack_top_destination_ports'] as const) {
        const items = r[name] as { percent: number; pps: number }[];
        expect(items.length).toBeGreaterThan(0);
        expect(sum(items.map((i) => i.percent))).toBeLessThanOrEqual(100.000001);
        for (const item of items) expect(item.pps).toBe(Math.round((r.attack_power_pps * item.percent) / 100));
      }
      const ips = r.attack_top_source_ips as { ip: string; country: string }[];
      expect(ips.length).toBeLessThanOrEqual(r.number_of_ip_involved_in_attack);
      for (const ip of ips) expect(ip.ip).toMatch(/^\d{1,3}(\.\d{1,3}){3}$/);
      for (const c of r.attack_top_source_countries as { country: string }[]) expect(c.country).toMatch(/^[A-Z]{2}$/);
      for (const p of [...(r.attack_top_source_ports as { port: number }[]), ...(r.attack_top_destination_ports as { port: number }[])]) {
        expect(p.port).toBeGreaterThan(0);
        expect(p.port).toBeLessThan(65536);
      }
      const targets = r.targeted_ip_addresses.split(', ');
      if (r.alert_type === 'rtbh_alert') expect(targets).toHaveLength(1);
    }
  });

  it('apportions integers that add up exactly', () => {
    expect(apportion(100, [1, 1, 1])).toEqual([34, 33, 33]);
    expect(sum(apportion(10_000, [0.3, 5, 7.7, 1e-9]))).toBe(10_000);
  });
});

describe('POST /_edgeplane/security/event-logs/generate', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    t.clock.freeze();
    t.clock.set(END);
  });
  afterAll(async () => t.close());

  it('stores what the generator makes, readable by the client, and is idempotent', async () => {
    const a = await t.account();
    const body = { client_id: a.clientId, count: 25, seed: 9 };
    const first = await t.request('POST', '/_edgeplane/security/event-logs/generate', { headers: t.operator, body });
    expect(first.statusCode).toBe(201);
    expect(first.json().created).toBe(25);
    const again = await t.request('POST', '/_edgeplane/security/event-logs/generate', { headers: t.operator, body });
    expect(again.json()).toEqual({ created: 0, ids: [] });

    const expected = generateEventLogs({ clientId: a.clientId, count: 25, seed: 9, end: END, days: 30 });
    const list = await t.request('GET', '/security/notifier/v1/event_logs', { headers: a.headers, query: { limit: '100', ordering: '-attack_start_time' } });
    expectConforms('GET', '/security/notifier/v1/event_logs', list);
    expect(list.json().count).toBe(25);
    const detail = await t.request('GET', `/security/notifier/v1/event_logs/${expected[0].id}`, { headers: a.headers });
    expect(detail.statusCode).toBe(200);
    expectConforms('GET', '/security/notifier/v1/event_logs/{event_log_id}', detail);
    expect(detail.json()).toEqual({ ...expected[0], attack_start_time: new Date(expected[0].attack_start_time).toISOString() });
  });

  it('422 for an unknown client', async () => {
    const res = await t.request('POST', '/_edgeplane/security/event-logs/generate', { headers: t.operator, body: { client_id: 424242 } });
    expect(res.statusCode).toBe(422);
  });
});
