// Unit tests of the pure record rules and of the generator's determinism.
import { describe, expect, it } from 'vitest';
import { seededRandom as prng } from '../../platform/random.js';
import { generateRecords } from './generator.js';
import { DAY_MS, directoryOf, validateRecord, visitorKey } from './model.js';

const NOW = Date.parse('2026-11-22T00:00:00Z');
const valid = {
  clientId: 1,
  timestamp: '2026-11-21T10:00:00Z',
  resourceId: 5,
  host: 'CDN.Example.com',
  path: '/images/a.png',
  country: 'de',
  browser: 'Firefox',
  device: 'Mobile',
  os: 'Android',
  bytes: 1234,
  status: 200,
  clientIp: '2001:db8::1',
};

describe('directoryOf', () => {
  it.each([
    ['/images/a/b.png', '/images/'],
    ['/images/', '/images/'],
    ['/index.html', '/'],
    ['/', '/'],
    ['/api/v1?x=/y/z', '/api/'],
    ['/file?q=/a/b', '/'],
  ])('%s -> %s', (path, dir) => expect(directoryOf(path)).toBe(dir));
});

describe('validateRecord', () => {
  it('accepts a record and normalises host, country and device', () => {
    expect(validateRecord(valid, NOW)).toEqual({
      record: { ...valid, timestamp: Date.parse(valid.timestamp), host: 'cdn.example.com', country: 'DE', device: 'mobile', visitorId: null },
    });
  });

  it('takes epoch milliseconds and a visitor id', () => {
    const result = validateRecord({ ...valid, timestamp: NOW - 1000, visitorId: 'v1' }, NOW);
    expect(result).toMatchObject({ record: { timestamp: NOW - 1000, visitorId: 'v1' } });
  });

  it('reports every problem of a record', () => {
    const result = validateRecord({ ...valid, clientId: 0, country: 'DEU', device: 'phone', status: 700, clientIp: '999.1.1.1', path: 'x', extra: 1 }, NOW);
    expect(result).toEqual({
      problems: [
        { field: 'extra', message: 'unknown field' },
        { field: 'clientId', message: 'must be an integer from 1 to 9007199254740991' },
        { field: 'path', message: "must start with '/'" },
        { field: 'country', message: 'must be at most 2 characters' },
        { field: 'device', message: 'must be one of desktop, mobile, tablet, tv, bot, other' },
        { field: 'status', message: 'must be an integer from 100 to 599' },
        { field: 'clientIp', message: 'must be an IPv4 or IPv6 address' },
      ],
    });
  });

  it('refuses records past the 90-day retention, and non-objects', () => {
    expect(validateRecord({ ...valid, timestamp: NOW - 90 * DAY_MS - 1 }, NOW)).toEqual({
      problems: [{ field: 'timestamp', message: 'is older than the 90-day retention' }],
    });
    expect(validateRecord({ ...valid, timestamp: NOW - 90 * DAY_MS }, NOW)).toHaveProperty('record');
    expect(validateRecord([valid], NOW)).toEqual({ problems: [{ field: '', message: 'must be a JSON object' }] });
    expect(validateRecord({ ...valid, timestamp: 'yesterday' }, NOW)).toEqual({
      problems: [{ field: 'timestamp', message: 'must be an ISO 8601 date-time or epoch milliseconds' }],
    });
  });

  it('counts a visitor by visitor id when present, else by IP', () => {
    expect(visitorKey({ visitorId: 'abc', clientIp: '192.0.2.1' })).toBe('v:abc');
    expect(visitorKey({ visitorId: null, clientIp: '192.0.2.1' })).toBe('ip:192.0.2.1');
  });
});

describe('generator', () => {
  const options = { clientId: 3, records: 2_000, days: 5, end: NOW, seed: 42, resourceIds: [7, 8] };

  it('is deterministic: same options, same records; another seed, other records', () => {
    const first = [...generateRecords(options)];
    expect([...generateRecords(options)]).toEqual(first);
    expect([...generateRecords({ ...options, seed: 43 })]).not.toEqual(first);
    expect(prng(1)()).toBe(prng(1)());
  });

  it('makes valid records inside the window, with far fewer visitors than requests', () => {
    const records = [...generateRecords(options)];
    expect(records).toHaveLength(2_000);
    for (const record of records) {
      expect(validateRecord({ ...record }, NOW)).toEqual({ record });
      expect(record.timestamp).toBeGreaterThanOrEqual(NOW - 5 * DAY_MS);
      expect(record.timestamp).toBeLessThan(NOW);
      expect([7, 8]).toContain(record.resourceId);
    }
    const visitors = new Set(records.map(visitorKey)).size;
    expect(visitors).toBeGreaterThan(100);
    expect(visitors).toBeLessThan(records.length / 3);
    // Every dimension has several values to group by.
    for (const key of ['country', 'browser', 'device', 'os'] as const) expect(new Set(records.map((r) => r[key])).size).toBeGreaterThan(3);
    expect(new Set(records.map((r) => directoryOf(r.path))).size).toBe(6);
  });
});
