// Every option over HTTP: its three states (inherit, ON, OFF), PATCH moving it between them, and at
// least one refused value whose error names the field, with nothing stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { RULE_OPTION_NAMES as OPTION_NAMES } from '../options/catalogue.js';

const BASE = '/cdn/resources/rule_templates';
const ITEM = `${BASE}/{rule_template_id}`;

let t: TestApp;
let a: TestAccount;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
});
afterAll(async () => t.close());

type Case = { valid: Record<string, unknown>; invalid: Record<string, unknown>; field: string; message?: RegExp };
const bool = (): Case => ({ valid: { value: true }, invalid: { value: 'yes' }, field: 'value', message: /boolean/ });

const CASES: Record<string, Case> = {
  allowedHttpMethods: { valid: { value: ['GET', 'HEAD'] }, invalid: { value: ['GET', 'TRACE'] }, field: 'value.1', message: /one of/ },
  brotli_compression: { valid: { value: ['text/html', 'text/css'] }, invalid: { value: ['text/css'] }, field: 'value', message: /text\/html is mandatory/ },
  browser_cache_settings: { valid: { value: '3600s' }, invalid: { value: '1h30m' }, field: 'value', message: /pattern/ },
  cache_http_headers: { valid: { value: ['vary', 'x'.repeat(1024)] }, invalid: { value: ['x'.repeat(1025)] }, field: 'value.0', message: /1024/ },
  cors: { valid: { value: ['*'], always: true }, invalid: { value: ['*', 'example.com'] }, field: 'value', message: /only value/ },
  country_acl: {
    valid: { policy_type: 'allow', excepted_values: ['GB', 'DE'] },
    invalid: { policy_type: 'allow', excepted_values: ['GB', 'XX'] },
    field: 'excepted_values.1',
    message: /ISO 3166-1/,
  },
  disable_cache: bool(),
  disable_proxy_force_ranges: bool(),
  edge_cache_settings: {
    valid: { value: '43200s', custom_values: { '404': '10s', any: '1m' } },
    invalid: { value: '1d', default: '2d' },
    field: 'default',
    message: /together/,
  },
  fastedge: { valid: { on_request_headers: { app_id: '1001' } }, invalid: {}, field: '', message: /At least one trigger/ },
  fetch_compressed: bool(),
  follow_origin_redirect: { valid: { codes: [301, 308] }, invalid: { codes: [] }, field: 'codes', message: /fewer than 1/ },
  force_return: {
    valid: { code: 301, body: 'http://example.com/new', time_interval: { start_time: '09:00', end_time: '20:00', time_zone: 'Europe/Luxembourg' } },
    invalid: { code: 444, body: '' },
    field: 'code',
    message: /reserved/,
  },
  forward_host_header: { valid: { value: true }, invalid: {}, field: 'value', message: /required/ },
  gzipOn: bool(),
  hostHeader: { valid: { value: 'host.example.com:8080' }, invalid: { value: 'Host.Example.com' }, field: 'value', message: /pattern/ },
  ignore_cookie: bool(),
  ignoreQueryString: bool(),
  image_stack: { valid: { avif_enabled: true, quality: 80 }, invalid: { quality: 0 }, field: 'quality', message: />= 1/ },
  ip_address_acl: {
    valid: { policy_type: 'deny', excepted_values: ['192.168.1.100/32', '2a03:d000:2980:7::8/128'] },
    invalid: { policy_type: 'deny', excepted_values: ['10.0.0.1'] },
    field: 'excepted_values.0',
    message: /mask/,
  },
  limit_bandwidth: { valid: { limit_type: 'static', speed: 100, buffer: 200 }, invalid: { limit_type: 'fast' }, field: 'limit_type', message: /one of/ },
  proxy_cache_key: { valid: { value: '$scheme$uri' }, invalid: { value: '$host$uri' }, field: 'value', message: /Unsupported variables \$host/ },
  proxy_cache_methods_set: bool(),
  proxy_connect_timeout: { valid: { value: '4s' }, invalid: { value: '6s' }, field: 'value', message: /between 1s and 5s/ },
  proxy_read_timeout: { valid: { value: '10s' }, invalid: { value: '31s' }, field: 'value', message: /between 1s and 30s/ },
  query_params_blacklist: { valid: { value: ['utm_source'] }, invalid: { value: 'utm_source' }, field: 'value', message: /array/ },
  query_params_whitelist: { valid: { value: ['id'] }, invalid: { value: [1] }, field: 'value.0', message: /string/ },
  query_string_forwarding: {
    valid: { forward_from_file_types: ['m3u8'], forward_to_file_types: ['ts'], forward_only_keys: ['token'] },
    invalid: { forward_from_file_types: ['m3u8'] },
    field: 'forward_to_file_types',
    message: /required/,
  },
  redirect_http_to_https: bool(),
  redirect_https_to_http: bool(),
  referrer_acl: {
    valid: { policy_type: 'deny', excepted_values: ['example.com', '*.example.net'] },
    invalid: { policy_type: 'deny', excepted_values: ['https://example.com'] },
    field: 'excepted_values.0',
    message: /without protocol/,
  },
  response_headers_hiding_policy: {
    valid: { mode: 'hide', excepted: ['my-header'] },
    invalid: { mode: 'show', excepted: ['Content-Type'] },
    field: 'excepted.0',
    message: /cannot be hidden/,
  },
  rewrite: { valid: { body: '/(.*) /media/$1', flag: 'last' }, invalid: { body: '/(.* /media/$1' }, field: 'body', message: /regular expression/ },
  secure_key: { valid: { key: 'secretkey', type: 2 }, invalid: { key: 'secretkey', type: 1 }, field: 'type', message: /one of/ },
  slice: bool(),
  sni: {
    valid: { sni_type: 'custom', custom_hostname: 'origin.example.com' },
    invalid: { sni_type: 'custom', custom_hostname: '' },
    field: 'custom_hostname',
    message: /Required when sni_type is custom/,
  },
  stale: { valid: { value: ['http_404', 'updating'] }, invalid: { value: ['http_418'] }, field: 'value.0', message: /one of/ },
  static_response_headers: {
    valid: { value: [{ name: 'X-Example', value: ['Value_1', '{json}'], always: true }] },
    invalid: { value: [{ name: 'X Example', value: ['v'] }] },
    field: 'value.0.name',
    message: /pattern/,
  },
  staticHeaders: {
    valid: { value: { 'X-Example': 'Value_1', 'X-Multi': ['Value_2', 'Value_3'] } },
    invalid: { value: { 'X Bad': 'v' } },
    field: 'value.X Bad',
    message: /Header name/,
  },
  staticRequestHeaders: {
    valid: { value: { 'Header-One': 'Value 1' } },
    invalid: { value: { 'Header-One': ' leading space' } },
    field: 'value.Header-One',
    message: /Header value/,
  },
  user_agent_acl: {
    valid: { policy_type: 'allow', excepted_values: ['UserAgent Value', '~*.*bot.*', ''] },
    invalid: { policy_type: 'allow', excepted_values: ['~(unclosed'] },
    field: 'excepted_values.0',
    message: /regular expression/,
  },
  waap: bool(),
  websockets: bool(),
};

async function count(): Promise<number> {
  return (await t.request('GET', BASE, { headers: a.headers })).json().count;
}

it('covers every option of the reference', () => {
  expect(Object.keys(CASES).sort()).toEqual([...OPTION_NAMES].sort());
  expect(OPTION_NAMES).toHaveLength(43);
});

describe.each(Object.entries(CASES))('option %s', (name, c) => {
  const side = name === 'waap' ? 'websockets' : 'waap';

  it('ON -> OFF -> inherit -> OFF -> ON by PATCH, inherit again by PUT; other options untouched', async () => {
    const created = await t.request('POST', BASE, {
      headers: a.headers,
      body: { rule: '/opt/', ruleType: 0, options: { [name]: { enabled: true, ...c.valid }, [side]: { enabled: true, value: true } } },
    });
    expect(created.statusCode, created.body).toBe(201);
    expectConforms('POST', BASE, created);
    const { id, options } = created.json();
    expect(options[name]).toMatchObject({ enabled: true, ...c.valid });
    const url = `${BASE}/${id}`;

    const off = await t.request('PATCH', url, { headers: a.headers, body: { options: { [name]: { enabled: false, ...c.valid } } } });
    expect(off.statusCode, off.body).toBe(200);
    expectConforms('PATCH', ITEM, off);
    expect(off.json().options[name]).toMatchObject({ enabled: false, ...c.valid });
    expect(off.json().options[side]).toEqual({ enabled: true, value: true });

    const inherit = await t.request('PATCH', url, { headers: a.headers, body: { options: { [name]: null } } });
    expect(inherit.json().options[name]).toBeNull();
    expect(inherit.json().options[side]).toEqual({ enabled: true, value: true });

    const offAgain = await t.request('PATCH', url, { headers: a.headers, body: { options: { [name]: { enabled: false, ...c.valid } } } });
    expect(offAgain.json().options[name]).toMatchObject({ enabled: false, ...c.valid });

    const back = await t.request('PATCH', url, { headers: a.headers, body: { options: { [name]: { enabled: true, ...c.valid } } } });
    expect(back.json().options[name]).toMatchObject({ enabled: true, ...c.valid });
    const read = await t.request('GET', url, { headers: a.headers });
    expectConforms('GET', ITEM, read);
    expect(read.json().options[name]).toEqual(back.json().options[name]);

    // Absent from a PUT = inherit again.
    const replaced = await t.request('PUT', url, { headers: a.headers, body: { rule: '/opt/', ruleType: 0 } });
    expectConforms('PUT', ITEM, replaced);
    expect(replaced.json().options[name]).toBeNull();
  });

  it('refuses an invalid value naming the field, and stores nothing', async () => {
    const before = await count();
    const res = await t.request('POST', BASE, {
      headers: a.headers,
      body: { rule: '/opt/', ruleType: 0, options: { [name]: { enabled: true, ...c.invalid } } },
    });
    expect(res.statusCode, res.body).toBe(400);
    const key = ['options', name, c.field].filter((p) => p !== '').join('.');
    expect(Object.keys(res.json().errors)).toEqual([key]);
    if (c.message) expect(res.json().errors[key].join(' ')).toMatch(c.message);
    expect(await count()).toBe(before);
  });
});

describe('option details', () => {
  it('fills the documented defaults', async () => {
    const res = await t.request('POST', BASE, {
      headers: a.headers,
      body: {
        rule: '/d/',
        ruleType: 0,
        options: {
          cors: { enabled: true, value: ['*'] },
          image_stack: { enabled: true },
          rewrite: { enabled: true, body: '/(.*) /m/$1' },
          secure_key: { enabled: true, key: null },
          sni: { enabled: true, custom_hostname: '' },
          force_return: { enabled: true, code: 503, body: 'down', time_interval: { start_time: '01:00', end_time: '02:00' } },
          fastedge: { enabled: true, on_response_body: { app_id: '7' } },
        },
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const o = res.json().options;
    expect(o.cors.always).toBe(false);
    expect(o.image_stack).toEqual({ enabled: true, avif_enabled: false, webp_enabled: false, quality: 95, png_lossless: false });
    expect(o.rewrite.flag).toBe('break');
    expect(o.secure_key).toEqual({ enabled: true, key: null, type: 0 });
    expect(o.sni.sni_type).toBe('dynamic');
    expect(o.force_return.time_interval.time_zone).toBe('UTC');
    expect(o.fastedge.on_response_body).toEqual({ enabled: true, app_id: '7', interrupt_on_error: true, execute_on_edge: true, execute_on_shield: false });
  });

  it('accepts the seed name edge_app for fastedge, and refuses both at once', async () => {
    const ok = await t.request('POST', BASE, {
      headers: a.headers,
      body: { rule: '/e/', ruleType: 0, options: { edge_app: { enabled: true, on_request_body: { app_id: '1' } } } },
    });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().options.fastedge.on_request_body.app_id).toBe('1');
    expect(ok.json().options).not.toHaveProperty('edge_app');
    const both = await t.request('POST', BASE, {
      headers: a.headers,
      body: {
        rule: '/e/',
        ruleType: 0,
        options: { edge_app: { enabled: true, on_request_body: { app_id: '1' } }, fastedge: { enabled: true, on_request_body: { app_id: '2' } } },
      },
    });
    expect(both.statusCode).toBe(400);
    expect(both.json().errors).toHaveProperty(['options.edge_app']);
  });

  it('ignores unknown options and unknown fields inside an option (the reference leaves them open)', async () => {
    const res = await t.request('POST', BASE, {
      headers: a.headers,
      body: { rule: '/u/', ruleType: 0, options: { turbo: { enabled: true }, gzipOn: { enabled: true, value: true, level: 9 } } },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().options).not.toHaveProperty('turbo');
    expect(res.json().options.gzipOn).toEqual({ enabled: true, value: true });
  });

  it('requires enabled on every option', async () => {
    const res = await t.request('POST', BASE, { headers: a.headers, body: { rule: '/u/', ruleType: 0, options: { waap: { value: true } } } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual({ 'options.waap.enabled': ['Field required'] });
  });
});
