import { describe, expect, it } from 'vitest';
import { parseSource } from '../hosts.js';
import { maskSource, readAuth, readSources, SECRET } from './sources.js';

const paths = (errors: { path: (string | number)[] }[]) => errors.map((e) => e.path.join('.'));

describe('parseSource', () => {
  it.each([
    ['example.com', 'example.com', null],
    ['Origin.Example.com:8080', 'origin.example.com', 8080],
    ['203.0.113.10', '203.0.113.10', null],
    ['203.0.113.10:443', '203.0.113.10', 443],
    ['[2001:db8::1]:8443', '2001:db8::1', 8443],
    ['2001:db8::1', '2001:db8::1', null],
  ])('%s is host %s, port %s', (source, host, port) => expect(parseSource(source)).toEqual({ host, port }));

  it.each([
    ['https://example.com', 'scheme'],
    ['example.com/path', 'path'],
    ['example.com:0', 'port'],
    ['example.com:99999', 'port'],
    ['example.com:http', 'port'],
    ['192.168.0.1', 'private'],
    ['10.1.2.3:80', 'private'],
    ['127.0.0.1', 'private'],
    ['localhost', 'private'],
    ['[::1]', 'private'],
    ['100.64.0.1', 'reserved'],
    ['224.0.0.1', 'reserved'],
    ['my site.com', 'invalid'],
    ['example', 'invalid'],
    ['-bad-.com', 'invalid'],
    ['', 'invalid'],
  ])('%j is refused (%s)', (source, problem) => expect(parseSource(source)).toEqual({ problem }));
});

describe('readSources', () => {
  it('fills the defaults of host origins', () => {
    expect(readSources([{ source: 'a.example.com' }], []).sources).toEqual([
      { source: 'a.example.com', backup: false, enabled: true, host_header_override: null },
    ]);
  });

  it('needs an origin that is enabled and not a backup', () => {
    expect(paths(readSources([], []).errors)).toEqual(['sources']);
    expect(paths(readSources([{ source: 'a.example.com', backup: true }], []).errors)).toEqual(['sources.0.backup']);
    expect(
      readSources(
        [
          { source: 'a.example.com', enabled: false },
          { source: 'b.example.com', enabled: false },
        ],
        [],
      ).errors[0].message,
    ).toMatch(/enabled/);
    expect(
      readSources(
        [
          { source: 'a.example.com', backup: true },
          { source: 'b.example.com', enabled: false },
        ],
        [],
      ).errors[0].message,
    ).toMatch(/not be a backup/);
    expect(readSources([{ source: 'a.example.com' }, { source: 'b.example.com', backup: true }], []).errors).toEqual([]);
  });

  it('refuses a host origin twice (any case) and an S3 bucket twice', () => {
    expect(paths(readSources([{ source: 'a.example.com' }, { source: 'A.example.com' }], []).errors)).toEqual(['sources.1.source']);
    const s3 = {
      origin_type: 's3' as const,
      config: {
        s3_type: 'other' as const,
        s3_bucket_name: 'b',
        s3_storage_hostname: 's3.example.com',
        s3_access_key_id: 'KEYID',
        s3_secret_access_key: 'x'.repeat(16),
      },
    };
    expect(paths(readSources([s3, s3], []).errors)).toEqual(['sources.1.config']);
  });

  it('checks S3 configs by type', () => {
    const base = { s3_bucket_name: 'b', s3_access_key_id: 'KEYID', s3_secret_access_key: 'x'.repeat(16) };
    expect(paths(readSources([{ origin_type: 's3', config: { ...base, s3_type: 'amazon' } }], []).errors)).toEqual(['sources.0.config.s3_region']);
    expect(paths(readSources([{ origin_type: 's3', config: { ...base, s3_type: 'amazon', s3_region: 'Frankfurt' } }], []).errors)).toEqual([
      'sources.0.config.s3_region',
    ]);
    expect(readSources([{ origin_type: 's3', config: { ...base, s3_type: 'amazon', s3_region: 'eu-west-1' } }], []).errors).toEqual([]);
    expect(paths(readSources([{ origin_type: 's3', config: { ...base, s3_type: 'other' } }], []).errors)).toEqual(['sources.0.config.s3_storage_hostname']);
    expect(
      paths(
        readSources([{ origin_type: 's3', config: { ...base, s3_type: 'other', s3_storage_hostname: 's3.example.com', s3_secret_access_key: 'short' } }], [])
          .errors,
      ),
    ).toEqual(['sources.0.config.s3_secret_access_key']);
    expect(paths(readSources([{ origin_type: 's3' }], []).errors)).toEqual(['sources.0.config']);
  });

  it('masks S3 keys, and a masked key sent back keeps the stored one', () => {
    const config = {
      s3_type: 'other' as const,
      s3_bucket_name: 'b',
      s3_storage_hostname: 's3.example.com',
      s3_access_key_id: 'KEYID',
      s3_secret_access_key: 's'.repeat(20),
    };
    const [stored] = readSources([{ origin_type: 's3', config }], []).sources;
    const masked = maskSource(stored) as { config: typeof config };
    expect(masked.config.s3_secret_access_key).toBe(SECRET);
    const again = readSources([{ origin_type: 's3', config: masked.config }], [stored]);
    expect(again.errors).toEqual([]);
    expect((again.sources[0] as { config: typeof config }).config.s3_secret_access_key).toBe('s'.repeat(20));
  });

  it('FastEdge origins need an app_id', () => {
    expect(paths(readSources([{ origin_type: 'fastedge', config: {} }], []).errors)).toEqual(['sources.0.config.app_id']);
    expect(readSources([{ origin_type: 'fastedge', config: { app_id: '42' } }], []).sources[0]).toMatchObject({
      origin_type: 'fastedge',
      config: { app_id: '42' },
    });
  });
});

describe('readAuth (deprecated group-wide credentials)', () => {
  it('needs the credentials, and a region for Amazon', () => {
    expect(paths(readAuth(undefined, null).errors)).toEqual(['auth']);
    expect(paths(readAuth({ s3_type: 'amazon', s3_access_key_id: 'KEY', s3_secret_access_key: 'a'.repeat(40), s3_bucket_name: 'b' }, null).errors)).toEqual([
      'auth.s3_region',
    ]);
    expect(
      readAuth({ s3_type: 'amazon', s3_access_key_id: 'KEY', s3_secret_access_key: 'a'.repeat(40), s3_bucket_name: 'b', s3_region: 'us-east-2' }, null).errors,
    ).toEqual([]);
    expect(
      paths(readAuth({ s3_type: 'amazon', s3_access_key_id: 'KEY', s3_secret_access_key: 'short', s3_bucket_name: 'b', s3_region: 'us-east-2' }, null).errors),
    ).toEqual(['auth.s3_secret_access_key']);
  });
});
