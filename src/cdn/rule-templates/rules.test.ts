// Every rule of the seed over HTTP, each with its own test: refused with a 400 naming the field by its
// path, accepted at its limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { COUNTRY_CODES } from '../options/countries.js';

const BASE = '/cdn/resources/rule_templates';

let t: TestApp;
let a: TestAccount;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
});
afterAll(async () => t.close());

const post = (options: Record<string, unknown>) => t.request('POST', BASE, { headers: a.headers, body: { rule: '/r/', ruleType: 0, options } });

async function accepted(options: Record<string, unknown>) {
  const res = await post(options);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().options;
}

async function refused(options: Record<string, unknown>, key: string, message?: RegExp) {
  const res = await post(options);
  expect(res.statusCode, res.body).toBe(400);
  expect(Object.keys(res.json().errors)).toContain(key);
  if (message) expect(res.json().errors[key].join(' ')).toMatch(message);
  return res.json().errors;
}

const on = (extra: Record<string, unknown>) => ({ enabled: true, ...extra });

describe('nginx time', () => {
  it.each(['0s', '10', '500ms', '30m', '12h', '7d', '2w', '12M', '1y', '365d', '52w'])('accepts %s', async (value) => {
    expect((await accepted({ browser_cache_settings: on({ value }) })).browser_cache_settings.value).toBe(value);
  });
  it.each(['10x', '1.5h', '1h30m', '-1s', ' 1s', 'y'])('refuses the malformed %j', async (value) => {
    await refused({ edge_cache_settings: on({ value }) }, 'options.edge_cache_settings.value', /pattern/);
  });
  it.each(['2y', '366d', '13M', '53w', '8761h'])('refuses %s, longer than the 1y maximum', async (value) => {
    await refused({ browser_cache_settings: on({ value }) }, 'options.browser_cache_settings.value', /maximum duration is 1y/);
    await refused({ edge_cache_settings: on({ value }) }, 'options.edge_cache_settings.value', /1y/);
    await refused({ edge_cache_settings: on({ default: value }) }, 'options.edge_cache_settings.default', /1y/);
  });
});

describe('brotli_compression', () => {
  it('needs text/html', () =>
    refused({ brotli_compression: on({ value: ['text/css', 'text/plain'] }) }, 'options.brotli_compression.value', /text\/html is mandatory/));
  it('values are unique', () => refused({ brotli_compression: on({ value: ['text/html', 'text/html'] }) }, 'options.brotli_compression.value', /unique/));
  it('values come from the listed content types', () =>
    refused({ brotli_compression: on({ value: ['text/html', 'image/png'] }) }, 'options.brotli_compression.value.1', /one of/));
  it('not with fetch_compressed enabled', () =>
    refused({ brotli_compression: on({ value: ['text/html'] }), fetch_compressed: on({ value: true }) }, 'options.brotli_compression', /fetch_compressed/));
  it('not with slice enabled', () =>
    refused({ brotli_compression: on({ value: ['text/html'] }), slice: on({ value: true }) }, 'options.brotli_compression', /slice/));
  it('works with fetch_compressed: false in the same rule', async () => {
    const o = await accepted({ brotli_compression: on({ value: ['text/html'] }), fetch_compressed: on({ value: false }) });
    expect(o.fetch_compressed).toEqual({ enabled: true, value: false });
  });
});

describe('gzipOn and fetch_compressed', () => {
  it('gzipOn not with fetch_compressed enabled', () =>
    refused({ gzipOn: on({ value: true }), fetch_compressed: on({ value: true }) }, 'options.gzipOn', /fetch_compressed/));
  it('gzipOn not with slice enabled', () => refused({ gzipOn: on({ value: true }), slice: on({ value: true }) }, 'options.gzipOn', /slice/));
  it('fetch_compressed not with slice enabled', () =>
    refused({ fetch_compressed: on({ value: true }), slice: on({ value: true }) }, 'options.fetch_compressed', /slice/));
  it('an OFF option does not conflict', () =>
    accepted({ gzipOn: on({ value: true }), slice: { enabled: false, value: true }, fetch_compressed: { enabled: false, value: true } }));
});

describe('hostHeader and forward_host_header', () => {
  it('cannot both be enabled', () =>
    refused({ hostHeader: on({ value: 'a.com' }), forward_host_header: on({ value: true }) }, 'options.hostHeader', /forward_host_header/));
  it('hostHeader value at most 2048', async () => {
    await accepted({ hostHeader: on({ value: 'a'.repeat(2048) }) });
    await refused({ hostHeader: on({ value: 'a'.repeat(2049) }) }, 'options.hostHeader.value', /2048/);
  });
  it('hostHeader value pattern ^[a-z0-9.\\-_:]*$', async () => {
    await accepted({ hostHeader: on({ value: 'a-b_c.d:443' }) });
    await refused({ hostHeader: on({ value: 'a b' }) }, 'options.hostHeader.value', /pattern/);
  });
});

describe('edge_cache_settings', () => {
  it('value and default not together', () =>
    refused({ edge_cache_settings: on({ value: '1h', default: '1h' }) }, 'options.edge_cache_settings.default', /together/));
  it('only enabled is required', async () =>
    expect((await accepted({ edge_cache_settings: { enabled: false } })).edge_cache_settings).toEqual({ enabled: false }));
  it('custom_values keys are status codes or any', async () => {
    await accepted({ edge_cache_settings: on({ custom_values: { '200': '1h', '404': '0s', any: '5m' } }) });
    await refused({ edge_cache_settings: on({ custom_values: { '20': '1h' } }) }, 'options.edge_cache_settings.custom_values.20', /status codes/);
    await refused({ edge_cache_settings: on({ custom_values: { all: '1h' } }) }, 'options.edge_cache_settings.custom_values.all');
    await refused({ edge_cache_settings: on({ custom_values: { '404': 'soon' } }) }, 'options.edge_cache_settings.custom_values.404', /pattern/);
  });
});

describe('force_return', () => {
  it.each([99, 600])('code %d is out of 100-599', (code) => refused({ force_return: on({ code, body: '' }) }, 'options.force_return.code'));
  it.each([408, 444, 477, 494, 495, 496, 497, 499])('code %d is reserved', (code) =>
    refused({ force_return: on({ code, body: '' }) }, 'options.force_return.code', /reserved/),
  );
  it.each([100, 200, 301, 404, 503, 599])('code %d is accepted', (code) => accepted({ force_return: on({ code, body: 'x' }) }));
  it('body at most 255', async () => {
    await accepted({ force_return: on({ code: 200, body: 'b'.repeat(255) }) });
    await refused({ force_return: on({ code: 200, body: 'b'.repeat(256) }) }, 'options.force_return.body', /255/);
  });
  it('time_interval: 24-hour times and a valid time zone, default UTC', async () => {
    const o = await accepted({ force_return: on({ code: 200, body: '', time_interval: { start_time: '22:30', end_time: '06:00' } }) });
    expect(o.force_return.time_interval).toEqual({ start_time: '22:30', end_time: '06:00', time_zone: 'UTC' });
    await accepted({ force_return: on({ code: 200, body: '', time_interval: { start_time: '09:00', end_time: '18:00', time_zone: 'America/New_York' } }) });
    await refused(
      { force_return: on({ code: 200, body: '', time_interval: { start_time: '24:00', end_time: '06:00' } }) },
      'options.force_return.time_interval.start_time',
      /24-hour/,
    );
    await refused(
      { force_return: on({ code: 200, body: '', time_interval: { start_time: '09:00', end_time: '9am' } }) },
      'options.force_return.time_interval.end_time',
      /24-hour/,
    );
    await refused(
      { force_return: on({ code: 200, body: '', time_interval: { start_time: '09:00', end_time: '10:00', time_zone: 'Moon/Base' } }) },
      'options.force_return.time_interval.time_zone',
      /time zone/,
    );
    await refused(
      { force_return: on({ code: 200, body: '', time_interval: { start_time: '09:00' } }) },
      'options.force_return.time_interval.end_time',
      /required/,
    );
  });
  it('time_interval may be null', async () =>
    expect((await accepted({ force_return: on({ code: 200, body: '', time_interval: null }) })).force_return.time_interval).toBeNull());
});

describe('country_acl', () => {
  const codes = [...COUNTRY_CODES];
  it('policy_type is allow or deny', () =>
    refused({ country_acl: on({ policy_type: 'block', excepted_values: ['GB'] }) }, 'options.country_acl.policy_type', /one of/));
  it('codes are ISO 3166-1 alpha-2', () =>
    refused({ country_acl: on({ policy_type: 'deny', excepted_values: ['UK'] }) }, 'options.country_acl.excepted_values.0', /ISO 3166-1/));
  it('codes are unique', () =>
    refused({ country_acl: on({ policy_type: 'deny', excepted_values: ['GB', 'GB'] }) }, 'options.country_acl.excepted_values', /unique/));
  it('at most 600 codes', async () => {
    expect(codes).toHaveLength(249);
    await accepted({ country_acl: on({ policy_type: 'allow', excepted_values: codes }) });
    const tooMany = Array.from({ length: 601 }, (_, i) => `X${i}`);
    await refused({ country_acl: on({ policy_type: 'allow', excepted_values: tooMany }) }, 'options.country_acl.excepted_values', /600/);
  });
});

describe('follow_origin_redirect', () => {
  it('at least one code', () => refused({ follow_origin_redirect: on({ codes: [] }) }, 'options.follow_origin_redirect.codes'));
  it('codes from 301, 302, 303, 307, 308', () =>
    refused({ follow_origin_redirect: on({ codes: [301, 304] }) }, 'options.follow_origin_redirect.codes.1', /one of/));
  it('codes are unique', () => refused({ follow_origin_redirect: on({ codes: [301, 301] }) }, 'options.follow_origin_redirect.codes', /unique/));
  it('all five together', () => accepted({ follow_origin_redirect: on({ codes: [301, 302, 303, 307, 308] }) }));
});

describe('other options', () => {
  it('allowedHttpMethods values are unique', () =>
    refused({ allowedHttpMethods: on({ value: ['GET', 'GET'] }) }, 'options.allowedHttpMethods.value', /unique/));
  it('cors: "*", "$http_origin" alone, or domains', async () => {
    await accepted({ cors: on({ value: ['$http_origin'] }) });
    await accepted({ cors: on({ value: ['example.com', 'second.example.com'], always: false }) });
    await refused({ cors: on({ value: ['$http_origin', 'example.com'] }) }, 'options.cors.value');
    await refused({ cors: on({ value: ['http://example.com'] }) }, 'options.cors.value.0');
    await refused({ cors: on({ value: ['*'], always: 'yes' }) }, 'options.cors.always', /boolean/);
  });
  it('cache_http_headers: each header at most 1024, unique', async () => {
    await refused({ cache_http_headers: on({ value: ['h'.repeat(1025)] }) }, 'options.cache_http_headers.value.0', /1024/);
    await refused({ cache_http_headers: on({ value: ['vary', 'vary'] }) }, 'options.cache_http_headers.value', /unique/);
  });
  it('redirect_http_to_https and redirect_https_to_http not both enabled', () =>
    refused(
      { redirect_http_to_https: on({ value: true }), redirect_https_to_http: on({ value: true }) },
      'options.redirect_https_to_http',
      /redirect_http_to_https/,
    ));
  it('ignoreQueryString, query_params_whitelist and query_params_blacklist are exclusive', async () => {
    await refused(
      { ignoreQueryString: on({ value: true }), query_params_blacklist: on({ value: ['a'] }) },
      'options.query_params_blacklist',
      /ignoreQueryString/,
    );
    await refused(
      { query_params_whitelist: on({ value: ['a'] }), query_params_blacklist: on({ value: ['b'] }) },
      'options.query_params_blacklist',
      /query_params_whitelist/,
    );
  });
  it('proxy_read_timeout at most 20s with websockets', async () => {
    await accepted({ proxy_read_timeout: on({ value: '20s' }), websockets: on({ value: true }) });
    await refused({ proxy_read_timeout: on({ value: '21s' }), websockets: on({ value: true }) }, 'options.proxy_read_timeout.value', /20s with websockets/);
  });
  it('image_stack quality 1-100', () => refused({ image_stack: on({ quality: 101 }) }, 'options.image_stack.quality', /<= 100/));
  it('limit_bandwidth speed and buffer limits', async () => {
    await refused({ limit_bandwidth: on({ limit_type: 'static', speed: 0 }) }, 'options.limit_bandwidth.speed', />= 1/);
    await refused({ limit_bandwidth: on({ limit_type: 'dynamic', buffer: 1_000_000_001 }) }, 'options.limit_bandwidth.buffer');
  });
  it('static_response_headers at most 50, each value at most 512', async () => {
    const header = (i: number) => ({ name: `X-H${i}`, value: ['v'] });
    await accepted({ static_response_headers: on({ value: Array.from({ length: 50 }, (_, i) => header(i)) }) });
    await refused({ static_response_headers: on({ value: Array.from({ length: 51 }, (_, i) => header(i)) }) }, 'options.static_response_headers.value', /50/);
    await refused(
      { static_response_headers: on({ value: [{ name: 'X-A', value: ['v'.repeat(513)] }] }) },
      'options.static_response_headers.value.0.value.0',
      /512/,
    );
  });
  it('staticRequestHeaders at most 50 headers', async () => {
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`H${i}`, 'v']));
    await refused({ staticRequestHeaders: on({ value: many }) }, 'options.staticRequestHeaders.value', /50/);
  });
  it('response_headers_hiding_policy at most 256 headers of 128 characters', async () => {
    await refused(
      { response_headers_hiding_policy: on({ mode: 'hide', excepted: ['h'.repeat(129)] }) },
      'options.response_headers_hiding_policy.excepted.0',
      /128/,
    );
  });
  it('rewrite flag is one of break, last, redirect, permanent', () =>
    refused({ rewrite: on({ body: '/a /b', flag: 'stop' }) }, 'options.rewrite.flag', /one of/));
  it('secure_key key is required (may be null), at most 255', async () => {
    await refused({ secure_key: on({ type: 0 }) }, 'options.secure_key.key', /required/);
    await refused({ secure_key: on({ key: 'k'.repeat(256) }) }, 'options.secure_key.key');
  });
  it('an option is an object or null', () => refused({ gzipOn: true }, 'options.gzipOn', /object or null/));
});
