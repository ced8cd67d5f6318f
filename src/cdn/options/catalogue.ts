// The CDN options object, one schema per option, field for field as the reference spells them. One
// catalogue for rule templates, resource rules and resources: rules take the 43 rule options, a resource
// takes those and 7 more of its own. Each option is a nullable object: null or absent = inherit (for a
// rule: the resource's value), `enabled: true` = ON, `enabled: false` = OFF. Single-field limits live
// here; rules that span fields or options, or that need data (countries, time zones, durations), live in
// rules.ts.
//
// The reference leaves every object here open, so unknown fields are accepted and dropped (prune.ts),
// not refused. Every string has a maximum length and every list a maximum size (the reference's where it
// states one, otherwise src/cdn/limits.ts). Options are declared with `type: ['object', 'null']` rather
// than an anyOf with null, because Ajv only fills `default` values outside anyOf branches: this way
// cors.always, image_stack.quality and the other documented defaults are stored and returned.
import { type Static, type TProperties, type TSchema, Type } from 'typebox';
import { IntegerEnum, StringEnum } from '../../platform/schema.js';
import { MAX_ITEMS, MAX_LENGTH } from '../limits.js';

export const NGINX_TIME_PATTERN = '^\\d+(ms|s|m|h|d|w|M|y)?$';

const NginxTime = (description: string) =>
  Type.String({ pattern: NGINX_TIME_PATTERN, maxLength: 32, description: `${description} (nginx time, e.g. 3600s, 12h, 1y)` });
const Enabled = Type.Boolean({ description: 'Option state: true = ON (overrides the inherited value), false = OFF' });
const Flag = (description = 'true = on, false = off') => Type.Boolean({ description });
const Short = (description?: string) => Type.String({ maxLength: MAX_LENGTH.short, ...(description ? { description } : {}) });
const List = <T extends TSchema>(item: T, description?: string, extra: Record<string, unknown> = {}) =>
  Type.Array(item, { maxItems: MAX_ITEMS, ...(description ? { description } : {}), ...extra });

function option<T extends TProperties>(properties: T, description: string, extra: Record<string, unknown> = {}) {
  const inner = Type.Object(properties);
  return Type.Unsafe<Static<typeof inner> | null>({ ...inner, ...extra, type: ['object', 'null'], description });
}

const valueOption = (description: string, extra: Record<string, unknown> = {}) => option({ enabled: Enabled, value: Flag() }, description, extra);

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
  'application/javascript',
  'application/json',
  'application/vnd.ms-fontobject',
  'application/wasm',
  'application/x-font-ttf',
  'application/x-javascript',
  'application/xml',
  'application/xml+rss',
  'image/svg+xml',
  'image/x-icon',
  'text/css',
  'text/html',
  'text/javascript',
  'text/plain',
  'text/xml',
] as const;

export const STALE_ERRORS = [
  'error',
  'http_403',
  'http_404',
  'http_429',
  'http_500',
  'http_502',
  'http_503',
  'http_504',
  'invalid_header',
  'timeout',
  'updating',
] as const;

export const TLS_VERSIONS = ['SSLv3', 'TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;

const Trigger = (description: string) =>
  Type.Object(
    {
      enabled: Type.Boolean({ default: true, description: 'Whether the application is called in this phase' }),
      app_id: Type.String({ minLength: 1, maxLength: MAX_LENGTH.short, description: 'FastEdge application ID' }),
      interrupt_on_error: Type.Boolean({ default: true, description: 'Interrupt the request when the application fails' }),
      execute_on_edge: Type.Boolean({ default: true, description: 'Run on edge nodes' }),
      execute_on_shield: Type.Boolean({ default: false, description: 'Run on shield nodes' }),
    },
    { description },
  );

const TimeInterval = Type.Unsafe<{ start_time: string; end_time: string; time_zone?: string } | null>({
  ...Type.Object({
    start_time: Type.String({ maxLength: 5, description: 'Start, 24-hour HH:MM' }),
    end_time: Type.String({ maxLength: 5, description: 'End, 24-hour HH:MM' }),
    time_zone: Type.String({ default: 'UTC', maxLength: 64, description: 'IANA time zone' }),
  }),
  type: ['object', 'null'],
  description: 'When the forced response applies; null = at any time',
});

const StaticResponseHeader = Type.Object({
  name: Type.String({ maxLength: 128, pattern: '^[A-Za-z0-9]+([_\\-]*[A-Za-z0-9]+)*$', description: 'Header name' }),
  value: Type.Array(Type.String({ maxLength: 512 }), { uniqueItems: true, maxItems: MAX_ITEMS, description: 'Header values, each at most 512 characters' }),
  always: Type.Boolean({ default: false, description: 'true = added on any response code' }),
});

const HeaderMap = <T extends TSchema>(value: T, description: string) =>
  Type.Record(Type.String(), value, { maxProperties: 50, propertyNames: { maxLength: MAX_LENGTH.short }, description });

/** Every option a rule (template or resource rule) takes, by its wire key. */
export const RULE_OPTION_SCHEMAS = {
  allowedHttpMethods: option(
    {
      enabled: Enabled,
      value: Type.Array(StringEnum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const), { uniqueItems: true, maxItems: 7 }),
    },
    'HTTP methods allowed for content requests',
  ),
  brotli_compression: option(
    {
      enabled: Enabled,
      value: Type.Array(StringEnum(BROTLI_TYPES), {
        uniqueItems: true,
        maxItems: BROTLI_TYPES.length,
        description: 'Content types to compress; text/html is mandatory',
      }),
    },
    'Brotli compression on the CDN side; not with fetch_compressed or slice enabled',
  ),
  browser_cache_settings: option({ enabled: Enabled, value: NginxTime('Browser cache lifetime, at most 1y; 0s disables') }, 'Browser cache lifetime'),
  cache_http_headers: option(
    { enabled: Enabled, value: Type.Array(Type.String({ maxLength: 1024 }), { uniqueItems: true, maxItems: MAX_ITEMS }) },
    'Deprecated: use response_headers_hiding_policy. HTTP headers kept in the response',
    { deprecated: true },
  ),
  cors: option(
    {
      enabled: Enabled,
      value: List(Short(), '["*"], ["$http_origin"] or a list of domains'),
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
        Type.Record(Type.String(), Type.String({ pattern: NGINX_TIME_PATTERN, maxLength: 32 }), {
          maxProperties: MAX_ITEMS,
          propertyNames: { maxLength: 3 },
          description: 'Status code or "any" to nginx time',
        }),
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
    { enabled: Enabled, codes: Type.Array(IntegerEnum([301, 302, 303, 307, 308] as const), { uniqueItems: true, minItems: 1, maxItems: 5 }) },
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
  proxy_connect_timeout: option({ enabled: Enabled, value: Type.String({ maxLength: 32, description: '1s to 5s' }) }, 'Origin connect timeout'),
  proxy_read_timeout: option(
    { enabled: Enabled, value: Type.String({ maxLength: 32, description: '1s to 30s (20s with websockets)' }) },
    'Origin read timeout',
  ),
  query_params_blacklist: option({ enabled: Enabled, value: List(Short()) }, 'Query parameters ignored in the cache key'),
  query_params_whitelist: option({ enabled: Enabled, value: List(Short()) }, 'Only these query parameters are in the cache key'),
  query_string_forwarding: option(
    {
      enabled: Enabled,
      forward_from_file_types: List(Short()),
      forward_to_file_types: List(Short()),
      forward_only_keys: Type.Optional(List(Short())),
      forward_except_keys: Type.Optional(List(Short())),
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
  stale: option(
    { enabled: Enabled, value: Type.Array(StringEnum(STALE_ERRORS), { uniqueItems: true, maxItems: STALE_ERRORS.length }) },
    'Serve stale content on these errors',
  ),
  static_response_headers: option({ enabled: Enabled, value: Type.Array(StaticResponseHeader, { maxItems: 50 }) }, 'Headers added to responses'),
  staticHeaders: option(
    {
      enabled: Enabled,
      value: HeaderMap(
        Type.Union([Type.String({ maxLength: 512 }), Type.Array(Type.String({ maxLength: 512 }), { maxItems: MAX_ITEMS })]),
        'Header name to value(s)',
      ),
    },
    'Deprecated: use static_response_headers. Header name to value(s)',
    { deprecated: true },
  ),
  staticRequestHeaders: option(
    { enabled: Enabled, value: HeaderMap(Type.String({ maxLength: 512 }), 'Header name to value') },
    'Headers added to requests toward the origin',
  ),
  user_agent_acl: aclOption('User-Agent strings, or regexes starting with ~ or ~*', 'Access by User-Agent'),
  waap: valueOption('Web application and API protection'),
  websockets: valueOption('WebSocket connections to the origin'),
};

/** Options only a CDN resource takes (a rule cannot set them). */
export const RESOURCE_ONLY_OPTION_SCHEMAS = {
  grpc_passthrough: valueOption('gRPC pass-through'),
  http3_enabled: valueOption('HTTP/3 delivery; needs sslEnabled'),
  network_error_logging: valueOption('Network Error Logging headers (NEL, Report-To)'),
  tls_versions: option(
    {
      enabled: Enabled,
      value: Type.Array(StringEnum(TLS_VERSIONS), {
        uniqueItems: true,
        maxItems: TLS_VERSIONS.length,
        description: 'Protocol versions allowed (case-sensitive)',
      }),
    },
    'SSL/TLS versions allowed toward end users; OFF or null = all',
  ),
  use_default_le_chain: valueOption("Let's Encrypt chain: true = default (for old Android), false = alternative"),
  use_dns01_le_challenge: valueOption("Let's Encrypt challenge: true = DNS-01, false = HTTP-01"),
  use_rsa_le_cert: valueOption("Let's Encrypt key type: true = RSA, false = ECDSA"),
};

export const RESOURCE_OPTION_SCHEMAS = { ...RULE_OPTION_SCHEMAS, ...RESOURCE_ONLY_OPTION_SCHEMAS };

export type OptionName = keyof typeof RESOURCE_OPTION_SCHEMAS;
export type RuleOptionName = keyof typeof RULE_OPTION_SCHEMAS;
export const RULE_OPTION_NAMES = Object.keys(RULE_OPTION_SCHEMAS) as RuleOptionName[];
export const RESOURCE_OPTION_NAMES = Object.keys(RESOURCE_OPTION_SCHEMAS) as OptionName[];

/** A stored option: the wire object of one option (loosely typed; the schema has checked it). */
export type OptionValue = Record<string, unknown>;
/** Options as stored: only set options (ON or OFF); absent = inherit (or, for a resource, not set). */
export type StoredOptions = Partial<Record<OptionName, OptionValue>>;

/** The seed's name for the FastEdge option; accepted on input as another name for `fastedge`. */
export const EDGE_APP_ALIAS = 'edge_app';

/** Options as sent: each a nullable object (the service reads them with readOptions). */
function inputOf(schemas: Record<string, TSchema>, description: string) {
  const object = Type.Object(
    { ...Object.fromEntries(Object.entries(schemas).map(([n, s]) => [n, Type.Optional(s)])), [EDGE_APP_ALIAS]: Type.Optional(RULE_OPTION_SCHEMAS.fastedge) },
    { description },
  );
  return Type.Unsafe<Record<string, Record<string, unknown> | null>>(object);
}

function outputOf(schemas: Record<string, TSchema>, description: string) {
  return Type.Object(Object.fromEntries(Object.entries(schemas).map(([n, s]) => [n, s])), { description });
}

/** Rule options as sent (templates and resource rules): every rule option, plus the seed's `edge_app`. */
export const RuleOptionsInput = inputOf(RULE_OPTION_SCHEMAS, 'Per-rule options; null or absent = inherit from the CDN resource; unknown options are ignored');
/** Rule options as returned: every rule option key, null when inherited. */
export const RuleOptionsOutput = outputOf(RULE_OPTION_SCHEMAS, 'Per-rule options; null = inherited from the CDN resource');
/** Resource options as sent. */
export const ResourceOptionsInput = inputOf(RESOURCE_OPTION_SCHEMAS, 'CDN resource options; null or absent = not set; unknown options are ignored');
/** Resource options as returned: every resource option key, null when not set. */
export const ResourceOptionsOutput = outputOf(RESOURCE_OPTION_SCHEMAS, 'CDN resource options; null = not set');
