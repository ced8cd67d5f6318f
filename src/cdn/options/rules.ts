// Rules on an options object that a JSON schema cannot say: conflicts between options, limits on
// durations, and values checked against data (country codes, time zones, networks). One set of rules for
// rule templates, resource rules and resources. Pure functions: options in, field errors out, so every
// rule is unit-tested on its own (rules.test.ts).
import { isIP } from 'node:net';
import { bodyField, type FieldError } from '../../platform/errors.js';
import { COUNTRY_CODES } from './countries.js';
import type { OptionName, OptionValue, StoredOptions } from './catalogue.js';

type Options = Partial<Record<string, OptionValue | null>>;

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400, w: 604_800, M: 2_592_000, y: 31_536_000 };
const ONE_YEAR_SECONDS = UNIT_SECONDS.y;

/** Seconds in an nginx time ("10", "90s", "12h", "1y"); undefined when the text is not one. */
export function nginxTimeSeconds(text: string): number | undefined {
  const match = /^(\d+)(ms|s|m|h|d|w|M|y)?$/.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * UNIT_SECONDS[match[2] ?? 's'];
}

const RESERVED_RETURN_CODES = new Set([408, 444, 477, 494, 495, 496, 497, 499]);
const NEVER_HIDDEN = new Set(['connection', 'content-length', 'content-type', 'date', 'server']);
const CACHE_KEY_VARIABLES = new Set(['$http_x_cdn_real_host', '$request_uri', '$scheme', '$uri']);
const HEADER_VALUE = /^[A-Za-z0-9*{][A-Za-z0-9 ~!@#%^&*()\-_=+/|\\";:?.,><{}[\]]*$/;
const HEADER_TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;
const CLOCK = /^([01]?\d|2[0-3]):[0-5]\d$/;
const TRIGGERS = ['on_request_headers', 'on_request_headers_after_cache', 'on_request_body', 'on_response_headers', 'on_response_body'];

const at = (name: string, ...rest: (string | number)[]) => ['options', name, ...rest];

/** ON: present with `enabled: true`. */
export function isOn(option: OptionValue | null | undefined): option is OptionValue {
  return !!option && typeof option === 'object' && option.enabled === true;
}

/** ON and, for the on/off options that carry `value`, switched on (`fetch_compressed: {enabled, value: false}` is a way of saying "off in this rule"). */
export function isActive(option: OptionValue | null | undefined): boolean {
  return isOn(option) && option.value !== false;
}

export function isValidTimeZone(zone: string): boolean {
  if (zone === 'UTC') return true;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return !/^[+-]/.test(zone);
  } catch {
    return false;
  }
}

export function isCidr(text: string): boolean {
  const [address, mask, ...rest] = text.split('/');
  if (rest.length > 0 || mask === undefined || !/^\d{1,3}$/.test(mask)) return false;
  const version = isIP(address);
  return version !== 0 && Number(mask) <= (version === 4 ? 32 : 128);
}

export function isValidRegex(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/** Pairs of options that cannot be active in one rule; the error is reported on the second of each pair. */
const CONFLICTS: [OptionName, OptionName][] = [
  ['fetch_compressed', 'gzipOn'],
  ['fetch_compressed', 'brotli_compression'],
  ['slice', 'gzipOn'],
  ['slice', 'brotli_compression'],
  ['slice', 'fetch_compressed'],
  ['forward_host_header', 'hostHeader'],
  ['redirect_http_to_https', 'redirect_https_to_http'],
  ['ignoreQueryString', 'query_params_whitelist'],
  ['ignoreQueryString', 'query_params_blacklist'],
  ['query_params_whitelist', 'query_params_blacklist'],
];

export function conflictErrors(options: Options): FieldError[] {
  const errors: FieldError[] = [];
  for (const [first, second] of CONFLICTS) {
    if (isActive(options[first]) && isActive(options[second])) {
      errors.push(bodyField(at(second), `Cannot be enabled together with ${first}`, 'conflict'));
    }
  }
  return errors;
}

/** An option a rule sets that conflicts with one it inherits (both active once merged). */
export interface InheritedConflict {
  /** The option the rule sets. */
  own: OptionName;
  /** The option the rule inherits. */
  inherited: OptionName;
}

/**
 * Conflicts between a rule's options and those it inherits from its resource: the seed's "fetch_compressed
 * at resource level overrides gzipOn, so enabling gzipOn in a rule needs fetch_compressed: false in that
 * rule". Pairs the rule sets both of, or inherits both of, are reported elsewhere (or are the resource's).
 */
export function inheritedConflicts(inherited: Options, rule: Options): InheritedConflict[] {
  const found: InheritedConflict[] = [];
  const setByRule = (name: OptionName) => rule[name] !== undefined && rule[name] !== null;
  const active = (name: OptionName) => isActive(setByRule(name) ? rule[name] : inherited[name]);
  for (const [first, second] of CONFLICTS) {
    if (!active(first) || !active(second) || setByRule(first) === setByRule(second)) continue;
    found.push(setByRule(first) ? { own: first, inherited: second } : { own: second, inherited: first });
  }
  return found;
}

function maxOneYear(name: string, field: string, value: unknown): FieldError[] {
  if (typeof value !== 'string') return [];
  const seconds = nginxTimeSeconds(value);
  return seconds !== undefined && seconds > ONE_YEAR_SECONDS ? [bodyField(at(name, field), 'The maximum duration is 1y')] : [];
}

function timeoutRange(name: string, value: unknown, max: number, why = ''): FieldError[] {
  const seconds = typeof value === 'string' ? nginxTimeSeconds(value) : undefined;
  if (seconds === undefined) return [bodyField(at(name, 'value'), 'Must be a duration such as 5s')];
  return seconds < 1 || seconds > max ? [bodyField(at(name, 'value'), `Must be between 1s and ${max}s${why}`)] : [];
}

function headerMapErrors(name: string, map: Record<string, unknown>, maxName: number): FieldError[] {
  const errors: FieldError[] = [];
  for (const [header, raw] of Object.entries(map)) {
    if (header.length > maxName || !/^[A-Za-z0-9_-]+$/.test(header)) {
      errors.push(bodyField(at(name, 'value', header), `Header name: at most ${maxName} Latin letters, digits, dashes and underscores`));
    }
    for (const value of Array.isArray(raw) ? raw : [raw]) {
      if (typeof value === 'string' && (value.length > 512 || !HEADER_VALUE.test(value))) {
        errors.push(
          bodyField(
            at(name, 'value', header),
            'Header value: at most 512 characters, starting with a letter, digit, * or {, from letters, digits, spaces and ~!@#%^&*()-_=+/|\\";:?.,><{}[]',
          ),
        );
      }
    }
  }
  return errors;
}

type Check = (option: OptionValue, options: Options) => FieldError[];

/** Per-option rules beyond the schema, keyed by option. */
const CHECKS: Partial<Record<OptionName, Check>> = {
  brotli_compression: (o) =>
    Array.isArray(o.value) && !o.value.includes('text/html') ? [bodyField(at('brotli_compression', 'value'), 'text/html is mandatory')] : [],
  browser_cache_settings: (o) => maxOneYear('browser_cache_settings', 'value', o.value),
  edge_cache_settings: (o) => {
    const errors = [...maxOneYear('edge_cache_settings', 'value', o.value), ...maxOneYear('edge_cache_settings', 'default', o.default)];
    if (o.value !== undefined && o.default !== undefined) {
      errors.push(bodyField(at('edge_cache_settings', 'default'), 'value and default cannot be used together', 'conflict'));
    }
    for (const key of Object.keys((o.custom_values as object) ?? {})) {
      if (key !== 'any' && !/^[1-5]\d\d$/.test(key)) {
        errors.push(bodyField(at('edge_cache_settings', 'custom_values', key), 'Keys are HTTP status codes (100-599) or "any"'));
      }
    }
    return errors;
  },
  fastedge: (o) =>
    TRIGGERS.some((t) => o[t] != null) ? [] : [bodyField(at('fastedge'), `At least one trigger is required: ${TRIGGERS.join(', ')}`, 'missing')],
  force_return: (o) => {
    const errors: FieldError[] = [];
    if (typeof o.code === 'number' && RESERVED_RETURN_CODES.has(o.code)) {
      errors.push(bodyField(at('force_return', 'code'), `${o.code} is reserved; reserved codes: ${[...RESERVED_RETURN_CODES].join(', ')}`));
    }
    const interval = o.time_interval as Record<string, unknown> | null | undefined;
    if (interval) {
      for (const field of ['start_time', 'end_time']) {
        const value = interval[field];
        if (typeof value === 'string' && !CLOCK.test(value)) errors.push(bodyField(at('force_return', 'time_interval', field), 'Must be a 24-hour time HH:MM'));
      }
      if (typeof interval.time_zone === 'string' && !isValidTimeZone(interval.time_zone)) {
        errors.push(bodyField(at('force_return', 'time_interval', 'time_zone'), 'Unknown time zone'));
      }
    }
    return errors;
  },
  country_acl: (o) =>
    ((o.excepted_values as unknown[]) ?? []).flatMap((code, i) =>
      typeof code === 'string' && !COUNTRY_CODES.has(code)
        ? [bodyField(at('country_acl', 'excepted_values', i), `${code} is not an ISO 3166-1 alpha-2 country code`)]
        : [],
    ),
  ip_address_acl: (o) =>
    ((o.excepted_values as unknown[]) ?? []).flatMap((net, i) =>
      typeof net === 'string' && !isCidr(net)
        ? [bodyField(at('ip_address_acl', 'excepted_values', i), 'Must be an IPv4 or IPv6 network with a mask, e.g. 192.168.3.2/32')]
        : [],
    ),
  referrer_acl: (o) =>
    ((o.excepted_values as unknown[]) ?? []).flatMap((domain, i) =>
      typeof domain === 'string' && !DOMAIN.test(domain.replace(/^\*\./, ''))
        ? [bodyField(at('referrer_acl', 'excepted_values', i), 'Must be a domain or wildcard domain without protocol')]
        : [],
    ),
  user_agent_acl: (o) =>
    ((o.excepted_values as unknown[]) ?? []).flatMap((ua, i) => {
      const regex = typeof ua === 'string' ? /^~\*?(.*)$/.exec(ua) : null;
      return regex && !isValidRegex(regex[1]) ? [bodyField(at('user_agent_acl', 'excepted_values', i), 'Invalid regular expression')] : [];
    }),
  cors: (o) => {
    const values = (o.value as unknown[]) ?? [];
    const special = values.filter((v) => v === '*' || v === '$http_origin');
    if (special.length > 0 && values.length > 1) return [bodyField(at('cors', 'value'), '"*" and "$http_origin" must be the only value')];
    return values.flatMap((v, i) =>
      typeof v === 'string' && v !== '*' && v !== '$http_origin' && !DOMAIN.test(v)
        ? [bodyField(at('cors', 'value', i), 'Must be "*", "$http_origin" or a domain')]
        : [],
    );
  },
  proxy_connect_timeout: (o) => timeoutRange('proxy_connect_timeout', o.value, 5),
  proxy_read_timeout: (o, all) =>
    isActive(all.websockets) ? timeoutRange('proxy_read_timeout', o.value, 20, ' with websockets enabled') : timeoutRange('proxy_read_timeout', o.value, 30),
  proxy_cache_key: (o) => {
    const value = String(o.value ?? '');
    if (value === '') return [bodyField(at('proxy_cache_key', 'value'), 'Must not be empty')];
    const unknown = (value.match(/\$[A-Za-z_]+/g) ?? []).filter((v) => !CACHE_KEY_VARIABLES.has(v));
    return unknown.length > 0
      ? [bodyField(at('proxy_cache_key', 'value'), `Unsupported variables ${unknown.join(', ')}; allowed: ${[...CACHE_KEY_VARIABLES].join(', ')}`)]
      : [];
  },
  response_headers_hiding_policy: (o) => {
    const excepted = (o.excepted as unknown[]) ?? [];
    const errors = excepted.flatMap((h, i) =>
      typeof h === 'string' && !HEADER_TOKEN.test(h) ? [bodyField(at('response_headers_hiding_policy', 'excepted', i), 'Not a valid HTTP header name')] : [],
    );
    if (o.mode === 'show') {
      excepted.forEach((h, i) => {
        if (typeof h === 'string' && NEVER_HIDDEN.has(h.toLowerCase()))
          errors.push(bodyField(at('response_headers_hiding_policy', 'excepted', i), `${h} cannot be hidden`));
      });
    }
    return errors;
  },
  rewrite: (o) => {
    const parts = String(o.body ?? '')
      .trim()
      .split(/\s+/);
    if (parts.length < 2 || parts[0] === '') return [bodyField(at('rewrite', 'body'), 'Must be "<regex> <replacement>", e.g. /(.*) /media/$1')];
    return isValidRegex(parts[0]) ? [] : [bodyField(at('rewrite', 'body'), 'The pattern is not a valid regular expression')];
  },
  sni: (o) => {
    const host = String(o.custom_hostname ?? '');
    if (o.sni_type === 'custom' && host === '') return [bodyField(at('sni', 'custom_hostname'), 'Required when sni_type is custom', 'missing')];
    return host !== '' && !DOMAIN.test(host) ? [bodyField(at('sni', 'custom_hostname'), 'Must be a domain name')] : [];
  },
  limit_bandwidth: (o) =>
    o.limit_type === 'static' && o.speed === undefined ? [bodyField(at('limit_bandwidth', 'speed'), 'Required when limit_type is static', 'missing')] : [],
  static_response_headers: (o) =>
    ((o.value as { value?: unknown[] }[]) ?? []).flatMap((header, i) =>
      (header.value ?? []).flatMap((v, j) =>
        typeof v === 'string' && !HEADER_VALUE.test(v)
          ? [
              bodyField(
                at('static_response_headers', 'value', i, 'value', j),
                'Header value must start with a letter, digit, * or { and use letters, digits, spaces and ~!@#%^&*()-_=+/|\\";:?.,><{}[]',
              ),
            ]
          : [],
      ),
    ),
  staticHeaders: (o) => headerMapErrors('staticHeaders', (o.value as Record<string, unknown>) ?? {}, 128),
  staticRequestHeaders: (o) => headerMapErrors('staticRequestHeaders', (o.value as Record<string, unknown>) ?? {}, 255),
};

/** What the rules of a resource's own options need to know of the resource. */
export interface ResourceContext {
  sslEnabled: boolean;
}

/** Rules that involve the resource's fields, not only its options. */
function resourceErrors(options: Options, resource: ResourceContext): FieldError[] {
  return isActive(options.http3_enabled) && !resource.sslEnabled
    ? [bodyField(at('http3_enabled'), 'HTTP/3 needs HTTPS delivery: set sslEnabled to true', 'conflict')]
    : [];
}

/**
 * Every rule on an options object. `skip` names options the schema already refused: their own rules
 * are not run (their shape is unknown) and they take part in no conflict.
 */
export function optionErrors(options: Options, skip: ReadonlySet<string> = new Set(), resource?: ResourceContext): FieldError[] {
  const clean: Options = Object.fromEntries(Object.entries(options).filter(([name]) => !skip.has(name)));
  const errors: FieldError[] = [];
  for (const [name, option] of Object.entries(clean)) {
    const check = CHECKS[name as OptionName];
    // OFF options are checked too: they are stored as sent, and switching one ON must not reveal a bad value.
    if (check && option && typeof option === 'object') errors.push(...check(option, clean));
  }
  return [...errors, ...conflictErrors(clean), ...(resource ? resourceErrors(clean, resource) : [])];
}

/** Deprecated features a rule or resource uses, each with its replacement (ruleType only for rules). */
export function deprecationsOf(options: StoredOptions, ruleType?: number): string[] {
  const used: string[] = [];
  if (options.cache_http_headers) used.push('options.cache_http_headers; use options.response_headers_hiding_policy');
  if (options.disable_cache) used.push('options.disable_cache; use options.edge_cache_settings');
  if (options.staticHeaders) used.push('options.staticHeaders; use options.static_response_headers');
  if (ruleType === 1) used.push('ruleType 1; use ruleType 0');
  return used;
}
