import { describe, expect, it } from 'vitest';
import { asDimensions, globForLike, globForSqlite } from './filter.js';
import { chooseRollup, globPrefix, pathPrefix } from './rollups.js';
import { parseInstant, timeRange, RETENTION_MS } from './time.js';
import { packExtra, unpackExtra, type ExtraFields } from './extra.js';

describe('parseInstant', () => {
  it('reads dates, date-times, fractions and zones', () => {
    expect(parseInstant('2026-03-01')).toBe(Date.parse('2026-03-01T00:00:00Z'));
    expect(parseInstant('2026-03-01T10:20:30Z')).toBe(Date.parse('2026-03-01T10:20:30Z'));
    expect(parseInstant('2026-03-01T10:20:30.123456+01:00')).toBe(Date.parse('2026-03-01T09:20:30.123Z'));
    expect(parseInstant('2026-03-01T10:20')).toBe(Date.parse('2026-03-01T10:20:00Z'));
    expect(parseInstant('2026-03-01T10:20:30-0530')).toBe(Date.parse('2026-03-01T15:50:30Z'));
  });
  it('refuses what is not a valid instant', () => {
    for (const bad of ['', 'now', '2026-02-29', '2026-04-31T00:00:00Z', '2026-01-01T24:00:00Z', '2026-1-1', '1700000000']) expect(parseInstant(bad)).toBeUndefined();
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

describe('globs and counters', () => {
  it('translates globs with literal special characters', () => {
    expect(globForSqlite('/a?[b]*')).toBe('/a[?][[]b]*');
    expect(globForLike('/a_b%c\\*')).toBe('/a\\_b\\%c\\\\%');
  });
  it('maps /segment/* globs to path prefixes only', () => {
    expect(pathPrefix('/api/v1/x')).toBe('/api/');
    expect(pathPrefix('/api')).toBe('');
    expect(globPrefix('/api/*')).toBe('/api/');
    expect(globPrefix('/api*')).toBeUndefined();
    expect(globPrefix('/api/v1/*')).toBeUndefined();
  });
  it('picks the smallest counter covering the filters, or none', () => {
    const base = { clientId: 1, from: 0, toExcl: 1 };
    const dims = (conditions: Parameters<typeof asDimensions>[0]['conditions']) => asDimensions({ ...base, conditions });
    expect(chooseRollup(dims([])!.dims)!.name).toBe('total');
    expect(chooseRollup(dims([{ kind: 'in', column: 'decision', values: ['blocked'], negate: false }])!.dims)!.name).toBe('decision');
    expect(chooseRollup(dims([{ kind: 'in', column: 'country', values: ['US'], negate: true }, { kind: 'in', column: 'method', values: ['GET'], negate: false }])!.dims)!.name).toBe('geo');
    expect(chooseRollup(dims([{ kind: 'glob', patterns: ['/api/*'], negate: false }])!.dims)!.name).toBe('prefix');
    expect(dims([{ kind: 'in', column: 'client_ip', values: ['1.2.3.4'], negate: false }])).toBeUndefined();
    expect(dims([{ kind: 'glob', patterns: ['*.php'], negate: false }])).toBeUndefined();
    expect(chooseRollup(dims([{ kind: 'in', column: 'country', values: ['US'], negate: false }, { kind: 'in', column: 'decision', values: ['passed'], negate: false }])!.dims)).toBeUndefined();
  });
});

describe('details column', () => {
  it('packs and unpacks losslessly', () => {
    const extra: ExtraFields = {
      ua: { client_version: '1', base_browser: 'b', base_browser_version: '2', os: 'o', device_type: 'd', cpu: 'c', rendering_engine: 'r', client_type: 't' },
      subnet: '10.0.0.0/8', content_type: 'text/html', response_time: '3ms', request_headers: { host: 'h', 'user-agent': 'UA' },
      incident_id: '', request_type: 'page', session_request_count: '2', requested_domain: 'x.example.com', query_string: 'a=1',
      pattern_matched_tags: [], common_tags: [{ tag: 't', display_name: 'T', description: 'd' }], detector: [],
    };
    for (const context of [{ userAgent: 'UA', domain: 'x.example.com' }, { userAgent: 'other', domain: 'y.example.com' }]) {
      expect(unpackExtra(packExtra(extra, context), context)).toEqual(extra);
    }
  });
});
