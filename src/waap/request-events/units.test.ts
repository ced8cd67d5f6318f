import { describe, expect, it } from 'vitest';
import { headersFromText, headersText } from './headers.js';
import { parseInstant, RETENTION_MS, timeRange } from './time.js';

describe('parseInstant', () => {
  it('reads dates, date-times, fractions and zones', () => {
    expect(parseInstant('2026-03-01')).toBe(Date.parse('2026-03-01T00:00:00Z'));
    expect(parseInstant('2026-03-01T10:20:30Z')).toBe(Date.parse('2026-03-01T10:20:30Z'));
    expect(parseInstant('2026-03-01T10:20:30.123456+01:00')).toBe(Date.parse('2026-03-01T09:20:30.123Z'));
    expect(parseInstant('2026-03-01T10:20')).toBe(Date.parse('2026-03-01T10:20:00Z'));
    expect(parseInstant('2026-03-01T10:20:30-0530')).toBe(Date.parse('2026-03-01T15:50:30Z'));
  });
  it('refuses what is not a valid instant', () => {
    for (const bad of ['', 'now', '2026-02-29', '2026-04-31T00:00:00Z', '2026-01-01T24:00:00Z', '2026-1-1', '1700000000'])
      expect(parseInstant(bad)).toBeUndefined();
  });
});

describe('timeRange', () => {
  const now = Date.parse('2026-06-01T00:00:00Z');
  it('makes end inclusive and defaults it to now', () => {
    expect(timeRange('2026-05-31T00:00:00Z', undefined, now)).toEqual({ from: now - 86_400_000, toExcl: now + 1 });
    expect(timeRange('2026-05-31T00:00:00Z', '2026-05-31T12:00:00Z', now).toExcl).toBe(now - 12 * 3_600_000 + 1);
  });
  it('forgives a start a little past the retention boundary, clamping it', () => {
    expect(timeRange(new Date(now - RETENTION_MS - 60_000).toISOString(), undefined, now).from).toBe(now - RETENTION_MS);
    expect(() => timeRange(new Date(now - RETENTION_MS - 3_600_000).toISOString(), undefined, now)).toThrow(/30 days/);
  });
});
describe('stored headers', () => {
  it('round-trip, a repeated User-Agent kept in its place', () => {
    for (const [headers, agent] of [
      [{ host: 'h', 'user-agent': 'UA', accept: '*/*' }, 'UA'],
      [{ host: 'h', 'user-agent': 'other' }, 'UA'],
      [{}, ''],
    ] as const) {
      const text = headersText(headers, agent);
      expect(headersFromText(text, agent)).toEqual(headers);
      expect(Object.keys(headersFromText(text, agent))).toEqual(Object.keys(headers));
    }
    expect(headersText({ host: 'h', 'user-agent': 'UA' }, 'UA')).toBe('{"host":"h","user-agent":null}');
  });
});
