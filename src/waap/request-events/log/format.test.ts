// The block format: encoding round-trips every field, dictionaries find values exactly, hours split into
// blocks, summaries count per rollup; path globs match in linear time and map to path prefixes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodePart, decodeRows, parseSummary, type TextColumn } from './decode.js';
import { EventBatch } from './batch.js';
import { encodeBlocks } from './encode.js';
import { type EventRow, FIELD_PLACE, globPrefix, MAX_BLOCK_EVENTS, pathPrefix } from './format.js';
import { globMatcher } from './scan.js';

describe('path globs and prefixes', () => {
  it('treats * as the only wildcard', () => {
    expect(globMatcher('/a?[b]*')('/a?[b]/x')).toBe(true);
    expect(globMatcher('/a?[b]*')('/ax[b]/x')).toBe(false);
    expect(globMatcher('/a_b%c.*')('/a_b%c.php')).toBe(true);
    expect(globMatcher('/a_b%c.*')('/aXb%c.php')).toBe(false);
    expect(globMatcher('*.php')('/x/\ny.php')).toBe(true);
    expect(globMatcher('/exact')('/exact')).toBe(true);
    expect(globMatcher('/exact')('/exact/')).toBe(false);
    expect(globMatcher('*')('')).toBe(true);
    expect(globMatcher('a*a')('a')).toBe(false);
    expect(globMatcher('a*a')('aa')).toBe(true);
  });
  it('agrees with a regular expression on every glob and path over a small alphabet', () => {
    const reference = (glob: string) =>
      new RegExp(
        `^${glob
          .split('*')
          .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('[\\s\\S]*')}$`,
      );
    fc.assert(
      fc.property(
        fc.stringMatching(/^[ab*/]{0,8}$/),
        fc.stringMatching(/^[ab/]{0,12}$/),
        (glob, path) => globMatcher(glob)(path) === reference(glob).test(path),
      ),
      { numRuns: 5000 },
    );
  });
  it('takes linear time on the globs that made a backtracking engine hang', () => {
    const long = '/' + 'a'.repeat(2000);
    const started = performance.now();
    expect(globMatcher('*a*a*a*b')(long)).toBe(false);
    expect(globMatcher('**********Z')('/' + 'x'.repeat(5000))).toBe(false);
    expect(globMatcher('*' + 'a*'.repeat(500) + 'b')(long)).toBe(false);
    expect(performance.now() - started).toBeLessThan(100);
  });
  it('maps /segment/* globs to path prefixes only', () => {
    expect(pathPrefix('/api/v1/x')).toBe('/api/');
    expect(pathPrefix('/api/')).toBe('/api/');
    expect(pathPrefix('/api')).toBe('');
    expect(globPrefix('/api/*')).toBe('/api/');
    expect(globPrefix('/api*')).toBeUndefined();
    expect(globPrefix('/api/v1/*')).toBeUndefined();
  });
});

const HOUR = 3_600_000;
const T0 = Date.parse('2026-03-01T10:00:00Z');

function row(n: number, over: Partial<EventRow> = {}): EventRow {
  return {
    client_id: 1,
    request_time: T0 + n * 1000,
    id: `id-${n}`,
    domain_id: 7,
    domain: 'x.example.com',
    decision: n % 3 === 0 ? 'blocked' : 'passed',
    optional_action: '',
    action: 'allow',
    result: 'passed',
    client_ip: `10.0.0.${n % 5}`,
    country: n % 2 ? 'US' : 'DE',
    method: 'GET',
    path: n % 2 ? '/api/v1/users' : '/index.html',
    status_code: n % 4 === 0 ? 404 : 200,
    rule_id: '',
    rule_name: '',
    reference_id: '',
    session_id: '',
    user_agent: 'curl/8',
    user_agent_client: 'curl',
    user_agent_device: 'Other',
    organization: 'Ünïcode Org',
    traffic_types: 'api',
    tags: '',
    scheme: 'https',
    http_version: '1.1',
    ja3: '',
    ja4: '',
    ua_client_version: '',
    ua_base_browser: '',
    ua_base_browser_version: '',
    ua_os: '',
    ua_device_type: '',
    ua_cpu: '',
    ua_rendering_engine: '',
    ua_client_type: '',
    subnet: '',
    content_type: '',
    response_time: `${n}ms`,
    request_headers: '{}',
    incident_id: '',
    request_type: '',
    session_request_count: '',
    requested_domain: 'x.example.com',
    query_string: '',
    pattern_matched_tags: '[]',
    common_tags: '[]',
    detector: '[]',
    ...over,
  };
}

describe('block encoding', () => {
  it('round-trips every field, blocks per client and hour in time order (equal times in arrival order)', () => {
    const rows = [row(3), row(1), row(2, { client_id: 2 }), row(5000), row(1, { id: 'same-time' }), row(4, { organization: '' })];
    const blocks = encodeBlocks(EventBatch.ofRows(rows));
    expect(blocks.map((b) => [b.clientId, b.hour, b.n])).toEqual([
      [1, T0, 4],
      [2, T0, 1],
      [1, T0 + HOUR, 1],
    ]);
    const first = blocks[0];
    const header = { blockId: 1, clientId: 1, hour: first.hour, n: first.n, firstTime: first.firstTime, lastTime: first.lastTime, stamp: 0 };
    const decoded = decodeRows(
      header,
      first.parts.map((raw) => decodePart(raw)),
    );
    expect(decoded.map((r) => r.id)).toEqual(['id-1', 'same-time', 'id-3', 'id-4']);
    expect(decoded[0]).toEqual(row(1));
    expect(decoded[3].organization).toBe('');
    expect(first.firstTime).toBe(T0 + 1000);
    expect(first.lastTime).toBe(T0 + 4000);
  });
  it('finds values in a dictionary exactly, not as part of another value', () => {
    const [block] = encodeBlocks(EventBatch.ofRows([row(1, { client_ip: '10.0.0.12' }), row(2, { client_ip: '10.0.0.1' }), row(3, { client_ip: '' })]));
    const column = decodePart(block.parts[FIELD_PLACE.client_ip.part]).columns[0] as TextColumn;
    const code = (v: string) => column.find(Buffer.from(v));
    expect(column.text(code('10.0.0.1'))).toBe('10.0.0.1');
    expect(column.text(code('10.0.0.12'))).toBe('10.0.0.12');
    expect(column.text(code(''))).toBe('');
    expect(code('10.0.0.')).toBe(-1);
    expect(code('0.0.1')).toBe(-1);
  });
  it('splits an hour of more than MAX_BLOCK_EVENTS events and uses wider codes for large dictionaries', () => {
    const rows = Array.from({ length: MAX_BLOCK_EVENTS + 10 }, (_, i) => row(0, { request_time: T0 + (i % 3_000_000), id: `i${i}`, path: `/p/${i}` }));
    const blocks = encodeBlocks(EventBatch.ofRows(rows));
    expect(blocks.map((b) => b.n)).toEqual([MAX_BLOCK_EVENTS, 10]);
    const paths = decodePart(blocks[0].parts[FIELD_PLACE.path.part]).columns[0] as TextColumn;
    expect(paths.codes).toBeInstanceOf(Uint16Array);
    expect(paths.entries).toBe(MAX_BLOCK_EVENTS);
  });
  it('summarises counts per rollup dimension', () => {
    const [block] = encodeBlocks(EventBatch.ofRows(Array.from({ length: 12 }, (_, i) => row(i))));
    const summary = parseSummary(block.summary);
    const count = (name: string, a: string, b: string) => {
      const [da, db] = { decision: ['decision', 'optional_action'], prefix: ['path_prefix', 'decision'], geo: ['country', 'method'] }[name] as [
        'decision',
        'optional_action',
      ];
      const t = summary.rollups[name];
      let n = 0;
      for (let i = 0; i < t.length; i += 3) if (summary.dims[da][t[i]] === a && summary.dims[db][t[i + 1]] === b) n += t[i + 2];
      return n;
    };
    expect(count('decision', 'blocked', '')).toBe(4);
    expect(count('prefix', '/api/', 'passed')).toBe(4);
    expect(count('geo', 'DE', 'GET')).toBe(6);
  });
});
