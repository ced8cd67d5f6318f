import { describe, expect, it } from 'vitest';
import { conflictErrors, deprecationsOf, isActive, isCidr, isValidTimeZone, nginxTimeSeconds, optionErrors } from './rules.js';

const on = (extra: Record<string, unknown> = {}) => ({ enabled: true, ...extra });
const keys = (errors: { path: (string | number)[] }[]) => errors.map((e) => e.path.join('.'));

describe('nginxTimeSeconds', () => {
  it.each([
    ['10', 10],
    ['10s', 10],
    ['1500ms', 1.5],
    ['2m', 120],
    ['1h', 3600],
    ['1d', 86_400],
    ['1w', 604_800],
    ['1M', 2_592_000],
    ['1y', 31_536_000],
  ])('%s is %d seconds', (text, seconds) => expect(nginxTimeSeconds(text)).toBe(seconds));
  it.each(['', '1.5s', '10x', '-1s', 's', '1 s', '1Y'])('%j is not an nginx time', (text) => expect(nginxTimeSeconds(text)).toBeUndefined());
});

describe('states', () => {
  it('ON needs enabled true; active also needs value not false', () => {
    expect(isActive({ enabled: true, value: true })).toBe(true);
    expect(isActive({ enabled: true, value: false })).toBe(false);
    expect(isActive({ enabled: false, value: true })).toBe(false);
    expect(isActive(null)).toBe(false);
    expect(isActive(undefined)).toBe(false);
    expect(isActive({ enabled: true, value: ['text/html'] })).toBe(true);
  });
});

describe('conflicts', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['gzipOn with fetch_compressed', { gzipOn: on({ value: true }), fetch_compressed: on({ value: true }) }, ['options.gzipOn']],
    ['gzipOn with slice', { gzipOn: on({ value: true }), slice: on({ value: true }) }, ['options.gzipOn']],
    [
      'brotli with fetch_compressed',
      { brotli_compression: on({ value: ['text/html'] }), fetch_compressed: on({ value: true }) },
      ['options.brotli_compression'],
    ],
    ['brotli with slice', { brotli_compression: on({ value: ['text/html'] }), slice: on({ value: true }) }, ['options.brotli_compression']],
    ['fetch_compressed with slice', { fetch_compressed: on({ value: true }), slice: on({ value: true }) }, ['options.fetch_compressed']],
    ['hostHeader with forward_host_header', { hostHeader: on({ value: 'a.com' }), forward_host_header: on({ value: true }) }, ['options.hostHeader']],
    ['both redirects', { redirect_http_to_https: on({ value: true }), redirect_https_to_http: on({ value: true }) }, ['options.redirect_https_to_http']],
    [
      'ignoreQueryString with whitelist',
      { ignoreQueryString: on({ value: true }), query_params_whitelist: on({ value: ['a'] }) },
      ['options.query_params_whitelist'],
    ],
    [
      'whitelist with blacklist',
      { query_params_whitelist: on({ value: ['a'] }), query_params_blacklist: on({ value: ['b'] }) },
      ['options.query_params_blacklist'],
    ],
  ];
  it.each(cases)('%s conflict', (_name, options, expected) => expect(keys(conflictErrors(options as never))).toEqual(expected));

  it('does not conflict when one side is OFF, inherited, or says value false', () => {
    expect(conflictErrors({ gzipOn: on({ value: true }), fetch_compressed: on({ value: false }) })).toEqual([]);
    expect(conflictErrors({ gzipOn: on({ value: true }), slice: { enabled: false, value: true } })).toEqual([]);
    expect(conflictErrors({ gzipOn: on({ value: true }), slice: null })).toEqual([]);
    expect(conflictErrors({ hostHeader: { enabled: false, value: 'a.com' }, forward_host_header: on({ value: true }) })).toEqual([]);
  });

  it('reports every conflict of a rule at once', () => {
    const errors = optionErrors({ gzipOn: on({ value: true }), brotli_compression: on({ value: ['text/html'] }), slice: on({ value: true }) });
    expect(keys(errors).sort()).toEqual(['options.brotli_compression', 'options.gzipOn']);
  });
});

describe('per-option rules', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['brotli without text/html', { brotli_compression: on({ value: ['text/css'] }) }, ['options.brotli_compression.value']],
    ['brotli with text/html', { brotli_compression: on({ value: ['text/css', 'text/html'] }) }, []],
    ['browser cache of 1y', { browser_cache_settings: on({ value: '1y' }) }, []],
    ['browser cache of 366d', { browser_cache_settings: on({ value: '366d' }) }, ['options.browser_cache_settings.value']],
    ['browser cache of 13M', { browser_cache_settings: on({ value: '13M' }) }, ['options.browser_cache_settings.value']],
    ['edge cache default of 53w', { edge_cache_settings: on({ default: '53w' }) }, ['options.edge_cache_settings.default']],
    ['edge cache value and default', { edge_cache_settings: on({ value: '1d', default: '1d' }) }, ['options.edge_cache_settings.default']],
    [
      'edge cache custom keys',
      { edge_cache_settings: on({ custom_values: { '404': '1m', any: '0s', '600': '1s', abc: '1s' } }) },
      ['options.edge_cache_settings.custom_values.600', 'options.edge_cache_settings.custom_values.abc'],
    ],
    ['fastedge without triggers', { fastedge: on() }, ['options.fastedge']],
    ['fastedge with a trigger', { fastedge: on({ on_response_body: { app_id: '1' } }) }, []],
    ['force_return reserved code', { force_return: on({ code: 499, body: '' }) }, ['options.force_return.code']],
    [
      'force_return bad times and zone',
      { force_return: on({ code: 200, body: '', time_interval: { start_time: '24:00', end_time: '9:5', time_zone: 'Mars/Base' } }) },
      ['options.force_return.time_interval.start_time', 'options.force_return.time_interval.end_time', 'options.force_return.time_interval.time_zone'],
    ],
    [
      'force_return good interval',
      { force_return: on({ code: 200, body: '', time_interval: { start_time: '00:00', end_time: '23:59', time_zone: 'CET' } }) },
      [],
    ],
    [
      'country codes',
      { country_acl: on({ policy_type: 'allow', excepted_values: ['GB', 'XX', 'gb'] }) },
      ['options.country_acl.excepted_values.1', 'options.country_acl.excepted_values.2'],
    ],
    [
      'ip networks',
      { ip_address_acl: on({ policy_type: 'deny', excepted_values: ['10.0.0.0/8', '10.0.0.1', '::1/129', '2a03:d000:2980:7::8/128'] }) },
      ['options.ip_address_acl.excepted_values.1', 'options.ip_address_acl.excepted_values.2'],
    ],
    [
      'referrers',
      { referrer_acl: on({ policy_type: 'deny', excepted_values: ['example.com', '*.example.net', 'https://x.com'] }) },
      ['options.referrer_acl.excepted_values.2'],
    ],
    [
      'user agents',
      { user_agent_acl: on({ policy_type: 'deny', excepted_values: ['curl/8', '~*bot', '', '~(bad'] }) },
      ['options.user_agent_acl.excepted_values.3'],
    ],
    ['cors star with a domain', { cors: on({ value: ['*', 'a.com'] }) }, ['options.cors.value']],
    ['cors domains', { cors: on({ value: ['a.com', 'not a domain'] }) }, ['options.cors.value.1']],
    ['connect timeout range', { proxy_connect_timeout: on({ value: '6s' }) }, ['options.proxy_connect_timeout.value']],
    ['read timeout 30s', { proxy_read_timeout: on({ value: '30s' }) }, []],
    ['read timeout 25s with websockets', { proxy_read_timeout: on({ value: '25s' }), websockets: on({ value: true }) }, ['options.proxy_read_timeout.value']],
    ['cache key variables', { proxy_cache_key: on({ value: '$scheme$host' }) }, ['options.proxy_cache_key.value']],
    [
      'headers that cannot be hidden',
      { response_headers_hiding_policy: on({ mode: 'show', excepted: ['X-A', 'date'] }) },
      ['options.response_headers_hiding_policy.excepted.1'],
    ],
    ['hide mode keeps required headers', { response_headers_hiding_policy: on({ mode: 'hide', excepted: ['Date'] }) }, []],
    ['rewrite without replacement', { rewrite: on({ body: '/(.*)' }) }, ['options.rewrite.body']],
    ['rewrite with a bad regex', { rewrite: on({ body: '/(.* /x' }) }, ['options.rewrite.body']],
    ['custom sni without hostname', { sni: on({ sni_type: 'custom', custom_hostname: '' }) }, ['options.sni.custom_hostname']],
    ['static bandwidth without speed', { limit_bandwidth: on({ limit_type: 'static' }) }, ['options.limit_bandwidth.speed']],
    [
      'response header value',
      { static_response_headers: on({ value: [{ name: 'X-A', value: ['ok', ' leading space'] }] }) },
      ['options.static_response_headers.value.0.value.1'],
    ],
    ['static headers names', { staticHeaders: on({ value: { 'X-Ok': ['a', 'b'], 'Bad Name': 'v' } }) }, ['options.staticHeaders.value.Bad Name']],
    [
      'request header name of 256',
      { staticRequestHeaders: on({ value: { ['h'.repeat(256)]: 'v' } }) },
      [`options.staticRequestHeaders.value.${'h'.repeat(256)}`],
    ],
    ['request header name of 255', { staticRequestHeaders: on({ value: { ['h'.repeat(255)]: 'v' } }) }, []],
  ];
  it.each(cases)('%s', (_name, options, expected) => expect(keys(optionErrors(options as never))).toEqual(expected));

  it('checks OFF options too, and skips options the schema refused', () => {
    expect(keys(optionErrors({ brotli_compression: { enabled: false, value: [] } }))).toEqual(['options.brotli_compression.value']);
    expect(optionErrors({ brotli_compression: { enabled: true, value: 'x' } }, new Set(['brotli_compression']))).toEqual([]);
  });
});

describe('helpers', () => {
  it('time zones: IANA names, UTC and aliases, not offsets', () => {
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Europe/Luxembourg')).toBe(true);
    expect(isValidTimeZone('CET')).toBe(true);
    expect(isValidTimeZone('+01:00')).toBe(false);
    expect(isValidTimeZone('Nowhere/City')).toBe(false);
  });
  it('CIDR networks', () => {
    expect(isCidr('192.168.3.2/32')).toBe(true);
    expect(isCidr('192.168.3.2/33')).toBe(false);
    expect(isCidr('2a03:d000:2980:7::8/128')).toBe(true);
    expect(isCidr('example.com/8')).toBe(false);
  });
  it('deprecations name their replacement', () => {
    expect(deprecationsOf({}, 0)).toEqual([]);
    expect(deprecationsOf({ cache_http_headers: { enabled: true, value: [] }, disable_cache: { enabled: false, value: true } }, 1)).toEqual([
      'options.cache_http_headers; use options.response_headers_hiding_policy',
      'options.disable_cache; use options.edge_cache_settings',
      'ruleType 1; use ruleType 0',
    ]);
  });
});
