// The per-rule CDN options object: one schema per option, field for field as the reference spells them.
// Each option is a nullable object: null or absent = inherit from the CDN resource, `enabled: true` = ON,
// `enabled: false` = OFF. Single-field limits live here; rules that span fields or options, or that need
// data (country codes, time zones, durations), live in options-rules.ts.
//
// Options are declared with `type: ['object', 'null']` rather than an anyOf with null, because Ajv only
// fills `default` values outside anyOf branches: this way cors.always, image_stack.quality and the other
// documented defaults are stored and returned.
import { type Static, type TProperties, Type } from 'typebox';
import { IntegerEnum, StringEnum } from '../../platform/schema.js';

export const NGINX_TIME_PATTERN = '^\\d+(ms|s|m|h|d|w|M|y)?$';

const NginxTime = (description: string) => Type.String({ pattern: NGINX_TIME_PATTERN, description: `${description} (nginx time, e.g. 3600s, 12h, 1y)` });
const Enabled = Type.Boolean({ description: 'Option state: true = ON (overrides the resource value), false = OFF' });
const Flag = (description = 'true = on, false = off') => Type.Boolean({ description });

function option<T extends TProperties>(properties: T, description: string, extra: Record<string, unknown> = {}) {
  const inner = Type.Object(properties, { additionalProperties: false });
  return Type.Unsafe<Static<typeof inner> | null>({ ...inner, ...extra, type: ['object', 'null'], description });
}

const valueOption = (description: string, extra: Record<string, unknown> = {}) =>
  option({ enabled: Enabled, value: Flag() }, description, extra);

const ACL_POLICY = StringEnum(['allow', 'deny'] as const, {
  description: 'allow: everything is allowed except excepted_values; deny: everything is denied except excepted_values',
});

const aclOption = (what: string, description: string) =>
  option(
    {
      enabled: Enabled,
      policy_type: ACL_POLICY,
      excepted_values: Type.Array(Type.String({ maxLength: 255 }), { uniqueItems: true, maxItems: 600, description: what }),
    },
    description,
  );

export const BROTLI_TYPES = [
  'application/javascript', 'application/json', 'application/vnd.ms-fontobject', 'application/wasm', 'application/x-font-ttf',
  'application/x-javascript', 'application/xml', 'application/xml+rss', 'image/svg+xml', 'image/x-icon', 'text/css', 'text/html',
  'text/javascript', 'text/plain', 'text/xml',
] as const;

export const STALE_ERRORS = [
  'error', 'http_403', 'http_404', 'http_429', 'http_500', 'http_502', 'http_503', 'http_504', 'invalid_header', 'timeout', 'updating',
] as const;

const Trigger = (description: string) =>
  Type.Object(
    {
      enabled: Type.Boolean({ default: true, description: 'Whether the application is called in this phase' }),
      app_id: Type.String({ minLength: 1, description: 'FastEdge application ID' }),
      interrupt_on_error: Type.Boolean({ default: true, description: 'Interrupt the request when the application fails' }),
      execute_on_edge: Type.Boolean({ default: true, description: 'Run on edge nodes' }),
      execute_on_shield: Type.Boolean({ default: false, description: 'Run on shield nodes' }),
    },
    { additionalProperties: false, description },
  );

const TimeInterval = Type.Unsafe<{ start_time: string; end_time: string; time_zone?: string } | null>({
  ...Type.Object(
    {
      start_time: Type.String({ description: 'Start, 24-hour HH:MM' }),
      end_time: Type.String({ description: 'End, 24-hour HH:MM' }),
      time_zone: Type.String({ default: 'UTC', description: 'IANA time zone' }),
    },
    { additionalProperties: false },
  ),
  type: ['object', 'null'],
  description: 'When the forced response applies; null = at any time',
});

const StaticResponseHeader = Type.Object(
  {
    name: Type.String({ maxLength: 128, pattern: '^[A-Za-z0-9]+([_\\-]*[A-Za-z0-9]+)*$', description: 'Header name' }),
    value: Type.Array(Type.String({ maxLength: 512 }), { uniqueItems: true, description: 'Header values, each at most 512 characters' }),
    always: Type.Boolean({ default: false, description: 'true = added on any response code' }),
  },
  { additionalProperties: false },
);

/** Every option of the options object, by its wire key. */
export const OPTION_SCHEMAS = {
  allowedHttpMethods: option(
    { enabled: Enabled, value: Type.Array(StringEnum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const), { uniqueItems: true }) },
    'HTTP methods allowed for content requests',
  ),
  brotli_compression: option(
    { enabled: Enabled, value: Type.Array(StringEnum(BROTLI_TYPES), { uniqueItems: true, description: 'Content types to compress; text/html is mandatory' }) },
    'Brotli compression on the CDN side; not with fetch_compressed or slice enabled',
  ),
  browser_cache_settings: option({ enabled: Enabled, value: NginxTime('Browser cache lifetime, at most 1y; 0s disables') }, 'Browser cache lifetime'),
  cache_http_headers: option(
    { enabled: Enabled, value: Type.Array(Type.String({ maxLength: 1024 }), { uniqueItems: true }) },
    'Deprecated: use response_headers_hiding_policy. HTTP headers kept in the response',
    { deprecated: true },
  ),
  cors: option(
    {
      enabled: Enabled,
      value: Type.Array(Type.String(), { description: '["*"], ["$http_origin"] or a list of domains' }),
      always: Type.Boolean({ default: false, description: 'true = header added on any response code' }),
    },
    'Access-Control-Allow-Origin header',
  ),
  country_acl: aclOption('ISO 3166-1 alpha-2 country codes', 'Access by country'),
  disable_cache: valueOption('Deprecated: use edge_cache_settings. true = caching disabled', { deprecated: true }),
  disable_proxy_force_ranges: valueOption('Allow 206 responses regardless of the origin'),
  edge_cache_settings: option(
    {
      enabled: Enabled,
      value: Type.Optional(NginxTime('Cache time for 200, 206, 301, 302, at most 1y')),
      custom_values: Type.Optional(
        Type.Record(Type.String(), Type.String({ pattern: NGINX_TIME_PATTERN }), { description: 'Status code or "any" to nginx time' }),
      ),
      default: Type.Optional(NginxTime('Cache time when the origin sends no caching headers, at most 1y')),
    },
    'CDN cache lifetime; value and default are exclusive',
  ),
  fastedge: option(
    {
      enabled: Enabled,
      on_request_headers: Type.Optional(Trigger('Called on request headers, before cache')),
      on_request_headers_after_cache: Type.Optional(Trigger('Called on request headers, after cache')),
      on_request_body: Type.Optional(Trigger('Called on the request body')),
      on_response_headers: Type.Optional(Trigger('Called on response headers, before the response is sent')),
      on_response_body: Type.Optional(Trigger('Called on the response body, before the response is sent')),
    },
    'Edge applications (FastEdge) per request or response phase; at least one trigger',
  ),
  fetch_compressed: valueOption('Request compressed content from the origin; not with gzipOn, brotli_compression or slice enabled'),
  follow_origin_redirect: option(
    { enabled: Enabled, codes: Type.Array(IntegerEnum([301, 302, 303, 307, 308] as const), { uniqueItems: true, minItems: 1 }) },
    'Follow origin redirects with these codes',
  ),
  force_return: option(
    {
      enabled: Enabled,
      code: Type.Integer({ minimum: 100, maximum: 599, description: 'Status code; 408, 444, 477, 494-497, 499 are reserved' }),
      body: Type.String({ maxLength: 255, description: 'Redirect URL or text' }),
      time_interval: Type.Optional(TimeInterval),
    },
    'Answer with a fixed status code and body',
  ),
  forward_host_header: valueOption('Forward the end-user Host header; not with hostHeader enabled'),
  gzipOn: valueOption('gzip on the CDN side; not with fetch_compressed or slice enabled'),
  hostHeader: option(
    { enabled: Enabled, value: Type.String({ maxLength: 2048, pattern: '^[a-z0-9.\\-_:]*$' }) },
    'Host header used toward the origin; not with forward_host_header enabled',
  ),
  ignore_cookie: valueOption('Cache responses with Set-Cookie as one object'),
  ignoreQueryString: valueOption('Cache all query strings as one object; exclusive with the query parameter lists'),
  image_stack: option(
    {
      enabled: Enabled,
      avif_enabled: Type.Boolean({ default: false }),
      webp_enabled: Type.Boolean({ default: false }),
      quality: Type.Integer({ minimum: 1, maximum: 100, default: 95 }),
      png_lossless: Type.Boolean({ default: false }),
    },
    'Image conversion to WebP or AVIF',
  ),
  ip_address_acl: aclOption('IPv4 or IPv6 networks in CIDR form', 'Access by client IP'),
  limit_bandwidth: option(
    {
      enabled: Enabled,
      limit_type: StringEnum(['static', 'dynamic'] as const, { description: 'static: speed and buffer fields; dynamic: speed and buffer query arguments' }),
      speed: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000 })),
      buffer: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
    },
    'Download speed per connection',
  ),
  proxy_cache_key: option({ enabled: Enabled, value: Type.String({ maxLength: 255 }) }, 'Cache key from $http_x_cdn_real_host, $request_uri, $scheme, $uri'),
  proxy_cache_methods_set: valueOption('Cache POST as well as GET and HEAD'),
  proxy_connect_timeout: option({ enabled: Enabled, value: Type.String({ description: '1s to 5s' }) }, 'Origin connect timeout'),
  proxy_read_timeout: option({ enabled: Enabled, value: Type.String({ description: '1s to 30s (20s with websockets)' }) }, 'Origin read timeout'),
  query_params_blacklist: option({ enabled: Enabled, value: Type.Array(Type.String()) }, 'Query parameters ignored in the cache key'),
  query_params_whitelist: option({ enabled: Enabled, value: Type.Array(Type.String()) }, 'Only these query parameters are in the cache key'),
  query_string_forwarding: option(
    {
      enabled: Enabled,
      forward_from_file_types: Type.Array(Type.String()),
      forward_to_file_types: Type.Array(Type.String()),
      forward_only_keys: Type.Optional(Type.Array(Type.String())),
      forward_except_keys: Type.Optional(Type.Array(Type.String())),
    },
    'Forward playlist query parameters to media chunks',
  ),
  redirect_http_to_https: valueOption('Redirect HTTP to HTTPS; not with redirect_https_to_http enabled'),
  redirect_https_to_http: valueOption('Redirect HTTPS to HTTP; not with redirect_http_to_https enabled'),
  referrer_acl: aclOption('Domains or wildcard domains, without protocol', 'Access by Referer'),
  response_headers_hiding_policy: option(
    {
      enabled: Enabled,
      mode: StringEnum(['hide', 'show'] as const, { description: 'hide: hide all but excepted; show: hide only excepted' }),
      excepted: Type.Array(Type.String({ maxLength: 128 }), { uniqueItems: true, maxItems: 256 }),
    },
    'Hide origin response headers',
  ),
  rewrite: option(
    {
      enabled: Enabled,
      flag: StringEnum(['break', 'last', 'redirect', 'permanent'] as const, { default: 'break' }),
      body: Type.String({ maxLength: 255, description: '"<regex> <replacement>", e.g. /(.*) /media/$1' }),
    },
    'nginx rewrite',
  ),
  secure_key: option(
    {
      enabled: Enabled,
      key: Type.Union([Type.String({ maxLength: 255 }), Type.Null()]),
      type: IntegerEnum([0, 2] as const, { default: 0, description: '0: token includes the client IP; 2: it does not' }),
    },
    'Tokenized URLs',
  ),
  slice: valueOption('Fetch and cache large files in 10 MB parts; not with gzipOn, brotli_compression or fetch_compressed enabled'),
  sni: option(
    {
      enabled: Enabled,
      sni_type: StringEnum(['dynamic', 'custom'] as const, { default: 'dynamic' }),
      custom_hostname: Type.String({ maxLength: 255 }),
    },
    'SNI hostname toward an HTTPS origin',
  ),
  stale: option({ enabled: Enabled, value: Type.Array(StringEnum(STALE_ERRORS), { uniqueItems: true }) }, 'Serve stale content on these errors'),
  static_response_headers: option({ enabled: Enabled, value: Type.Array(StaticResponseHeader, { maxItems: 50 }) }, 'Headers added to responses'),
  staticHeaders: option(
    { enabled: Enabled, value: Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]), { maxProperties: 50 }) },
    'Deprecated: use static_response_headers. Header name to value(s)',
    { deprecated: true },
  ),
  staticRequestHeaders: option(
    { enabled: Enabled, value: Type.Record(Type.String(), Type.String(), { maxProperties: 50 }) },
    'Headers added to requests toward the origin',
  ),
  user_agent_acl: aclOption('User-Agent strings, or regexes starting with ~ or ~*', 'Access by User-Agent'),
  waap: valueOption('Web application and API protection'),
  websockets: valueOption('WebSocket connections to the origin'),
};

export type OptionName = keyof typeof OPTION_SCHEMAS;
export const OPTION_NAMES = Object.keys(OPTION_SCHEMAS) as OptionName[];

/** A stored option: the wire object of one option (loosely typed; the schema has checked it). */
export type OptionValue = Record<string, unknown>;
/** Options as stored: only set options (ON or OFF); absent = inherit. */
export type StoredOptions = Partial<Record<OptionName, OptionValue>>;

/** The seed's name for the FastEdge option; accepted on input as an alias of `fastedge`. */
export const EDGE_APP_ALIAS = 'edge_app';

/** Options as sent: every option, plus the seed's `edge_app` alias. */
export const OptionsInput = Type.Object(
  { ...Object.fromEntries(OPTION_NAMES.map((n) => [n, Type.Optional(OPTION_SCHEMAS[n])])), [EDGE_APP_ALIAS]: Type.Optional(OPTION_SCHEMAS.fastedge) },
  { additionalProperties: false, description: 'Per-rule options; null or absent = inherit from the CDN resource' },
);

/** Options as returned: every option key, null when inherited. */
export const OptionsOutput = Type.Object(
  Object.fromEntries(OPTION_NAMES.map((n) => [n, OPTION_SCHEMAS[n]])),
  { description: 'Per-rule options; null = inherited from the CDN resource' },
);
