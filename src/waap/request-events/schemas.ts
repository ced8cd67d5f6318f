// Schemas of the request-event log: the list query and record, the details record, and the record the
// control API ingests (the details record plus its domain).
import { Type, type Static, type TSchema } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';

export const DECISIONS = ['blocked', 'monitored', 'allowed', 'passed'] as const;
export const OPTIONAL_ACTIONS = ['captcha', 'challenge'] as const;
export const HTTP_METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE'] as const;
export const RESULTS = ['passed', 'blocked', 'suppressed', ''] as const;

const REQUEST_ID = '^[a-f0-9]{32}-[0-9]{6}$';
const HEX32 = '^[a-f0-9]{32}$';
const RULE_NAME = '^[a-zA-Z0-9_ ~!@#$%^&*()+\\[\\]{}|.,;:<>?/-]*$';
const JA4 = '^[0-9a-zA-Z]{10}_[0-9a-fA-F]{12}_[0-9a-fA-F]{12}$';

const list = <T extends TSchema>(item: T, description: string, maxItems?: number) => Type.Array(item, { description, ...(maxItems ? { maxItems } : {}) });
const ip = Type.Unsafe<string>({ type: 'string', anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] });
const country = Type.String({ pattern: '^\\w{2}$' });
const statusCode = Type.Integer({ minimum: 100, maximum: 599 });
const ruleName = Type.String({ maxLength: 100, pattern: RULE_NAME });
// The reference bounds neither; these are Edgeplane's (docs/waap.md): a URL path, ten globs a filter.
const pathGlob = Type.String({ maxLength: 2048 });
const MAX_PATH_GLOBS = 10;

/** Filters shared by the list, the CSV export and the filtered statistics; each has an `exclude_` twin. */
export const filterQuery = {
  domains: list(Type.Integer({ exclusiveMinimum: 0 }), 'Domain IDs; omit for all domains of the account'),
  exclude_domains: list(Type.Integer(), 'Domain IDs to leave out'),
  decision: list(StringEnum(DECISIONS), 'Decisions to include'),
  exclude_decision: list(StringEnum(DECISIONS), 'Decisions to leave out'),
  optional_action: list(StringEnum(OPTIONAL_ACTIONS), 'Optional actions to include'),
  exclude_optional_action: list(StringEnum(OPTIONAL_ACTIONS), 'Optional actions to leave out'),
  ips: list(ip, 'Client IPs', 10),
  exclude_ips: list(ip, 'Client IPs to leave out'),
  countries: list(country, 'ISO 3166-1 alpha-2 country codes'),
  exclude_countries: list(country, 'Country codes to leave out'),
  path: list(pathGlob, "URL paths; '*' matches any characters", MAX_PATH_GLOBS),
  exclude_path: list(pathGlob, 'URL path globs to leave out', MAX_PATH_GLOBS),
  http_methods: list(StringEnum(HTTP_METHODS), 'HTTP methods'),
  exclude_http_methods: list(StringEnum(HTTP_METHODS), 'HTTP methods to leave out'),
  status_codes: list(statusCode, 'Response status codes'),
  exclude_status_codes: list(statusCode, 'Status codes to leave out'),
  request_ids: list(Type.String({ pattern: REQUEST_ID }), 'Request IDs'),
  exclude_request_ids: list(Type.String({ pattern: REQUEST_ID }), 'Request IDs to leave out'),
  reference_ids: list(Type.String({ pattern: HEX32 }), 'Reference IDs'),
  exclude_reference_ids: list(Type.String({ pattern: HEX32 }), 'Reference IDs to leave out'),
  session_ids: list(Type.String({ pattern: HEX32 }), 'Session IDs'),
  exclude_session_ids: list(Type.String({ pattern: HEX32 }), 'Session IDs to leave out'),
  security_rule_names: list(ruleName, 'Names of the matched security rules'),
  exclude_security_rule_names: list(ruleName, 'Rule names to leave out'),
  ja3: list(Type.String({ pattern: '^[0-9a-fA-F]{32}$' }), 'JA3 fingerprints', 10),
  exclude_ja3: list(Type.String({ pattern: '^[0-9a-fA-F]{32}$' }), 'JA3 fingerprints to leave out', 10),
  ja4: list(Type.String({ pattern: JA4 }), 'JA4 fingerprints', 10),
  exclude_ja4: list(Type.String({ pattern: JA4 }), 'JA4 fingerprints to leave out', 10),
  user_agent: list(Type.String({ maxLength: 300 }), 'User-agent substrings (case-insensitive)', 10),
  exclude_user_agent: list(Type.String({ maxLength: 300 }), 'User-agent substrings to leave out', 10),
  user_agent_clients: list(Type.String({ maxLength: 50 }), 'Parsed user-agent clients', 10),
  exclude_user_agent_clients: list(Type.String({ maxLength: 50 }), 'User-agent clients to leave out', 10),
  user_agent_devices: list(Type.String({ maxLength: 50 }), 'Parsed user-agent devices', 10),
  exclude_user_agent_devices: list(Type.String({ maxLength: 50 }), 'User-agent devices to leave out', 10),
  tags: list(Type.String({ maxLength: 50 }), 'Threat tags', 5),
  exclude_tags: list(Type.String({ maxLength: 50 }), 'Threat tags to leave out', 5),
  organizations: list(Type.String({ maxLength: 100 }), 'Client IP owners', 10),
  exclude_organizations: list(Type.String({ maxLength: 100 }), 'Organizations to leave out', 10),
};

export const timeQuery = {
  start: Type.String({ description: 'Start of the range, ISO 8601; at most 30 days back' }),
  end: Type.Optional(Type.String({ description: 'End of the range, ISO 8601; default now' })),
};

export const ORDERING_FIELDS = ['request_time', 'client_ip', 'country', 'method', 'path', 'status_code', 'decision', 'domain_id', 'rule_name'] as const;

export const ListQuery = Type.Object({
  ...timeQuery,
  ...Object.fromEntries(Object.entries(filterQuery).map(([k, v]) => [k, Type.Optional(v)])),
  ordering: Type.Optional(Type.String({ description: `Sort field, '-' for descending: ${ORDERING_FIELDS.join(', ')}` })),
  limit: Type.Integer({ minimum: 0, maximum: 100, default: 100 }),
  offset: Type.Integer({ minimum: 0, maximum: 100000, default: 0 }),
});
export type ListQuery = Static<typeof ListQuery> & Record<string, unknown>;

export const EventSummary = Type.Object({
  id: Type.String(),
  path: Type.String(),
  client_ip: Type.String(),
  method: Type.String(),
  rule_name: Type.String(),
  country: Type.String(),
  action: Type.String(),
  rule_id: Type.String(),
  domain: Type.String(),
  domain_id: Type.Integer(),
  user_agent: Type.String(),
  user_agent_client: Type.String(),
  organization: Type.String(),
  request_time: Type.Integer({ description: 'Epoch milliseconds' }),
  reference_id: Type.String(),
  session_id: Type.String(),
  status_code: Type.Integer(),
  result: StringEnum(RESULTS),
  traffic_types: Type.String({ description: 'Comma-separated traffic types' }),
  decision: Type.String(),
  optional_action: Type.String(),
  scheme: Type.String(),
  http_version: Type.String(),
  ja3: Type.String(),
});
export type EventSummary = Static<typeof EventSummary>;

export const EventPage = Type.Object({
  count: Type.Integer({ minimum: 0, description: 'Total number of matching events' }),
  limit: Type.Integer(),
  offset: Type.Integer(),
  results: Type.Array(EventSummary),
});

const str = Type.String();
const UserAgent = Type.Object({
  full_string: str,
  client: str,
  client_version: str,
  base_browser: str,
  base_browser_version: str,
  os: str,
  device: str,
  device_type: str,
  cpu: str,
  rendering_engine: str,
  client_type: str,
});
const PatternTag = Type.Object({
  tag: str,
  display_name: str,
  description: str,
  field: str,
  field_name: str,
  pattern_name: str,
  pattern_value: str,
  execution_phase: str,
});
const CommonTag = Type.Object({ tag: str, display_name: str, description: str });
const Detector = Type.Object({ rule_name: str, rule_id: str, subject_field: Nullable(str), subject_type: str, matched_content: str });

export const EventDetails = Type.Object({
  id: str,
  path: str,
  method: str,
  action: str,
  rule_id: str,
  rule_name: str,
  user_agent: UserAgent,
  network: Type.Object({ client_ip: str, country: str, organization: Type.Object({ name: str, subnet: str }) }),
  request_time: Type.String({ format: 'date-time' }),
  reference_id: str,
  session_id: str,
  content_type: str,
  scheme: str,
  http_status_code: Type.Integer(),
  http_version: str,
  response_time: str,
  request_headers: Type.Record(Type.String(), Type.String()),
  incident_id: str,
  request_type: str,
  session_request_count: str,
  domain: str,
  requested_domain: str,
  query_string: str,
  result: StringEnum(RESULTS),
  decision: str,
  optional_action: str,
  traffic_types: Type.Array(str),
  pattern_matched_tags: Type.Array(PatternTag),
  common_tags: Type.Array(CommonTag),
  ja3: str,
  ja4: str,
  detector: Type.Array(Detector),
});
export type EventDetails = Static<typeof EventDetails>;

export const DetailsParams = Type.Object({
  domain_id: Type.Integer({ exclusiveMinimum: 0 }),
  request_id: Type.String(),
});

/** One line of bulk ingestion: the details record plus `domain_id`; most fields may be left out. */
export const IngestRecord = Type.Object(
  {
    domain_id: Type.Integer({ exclusiveMinimum: 0 }),
    id: Type.Optional(Type.String({ pattern: REQUEST_ID })),
    request_time: Type.Union([Type.String({ format: 'date-time' }), Type.Integer({ minimum: 0 })]),
    decision: StringEnum(DECISIONS),
    optional_action: Type.Optional(StringEnum(['', ...OPTIONAL_ACTIONS])),
    action: Type.Optional(str),
    result: Type.Optional(StringEnum(RESULTS)),
    network: Type.Object({
      client_ip: ip,
      country: Type.String({ pattern: '^[A-Z]{2}$' }),
      organization: Type.Optional(Type.Object({ name: str, subnet: str })),
    }),
    method: StringEnum(HTTP_METHODS),
    path: Type.String({ pattern: '^/', maxLength: 2048 }),
    query_string: Type.Optional(str),
    http_status_code: statusCode,
    rule_id: Type.Optional(str),
    rule_name: Type.Optional(str),
    reference_id: Type.Optional(Type.String({ pattern: `${HEX32}|^$` })),
    session_id: Type.Optional(Type.String({ pattern: `${HEX32}|^$` })),
    user_agent: Type.Optional(Type.Partial(UserAgent)),
    request_headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    traffic_types: Type.Optional(Type.Array(str)),
    pattern_matched_tags: Type.Optional(Type.Array(PatternTag)),
    common_tags: Type.Optional(Type.Array(CommonTag)),
    detector: Type.Optional(Type.Array(Detector)),
    content_type: Type.Optional(str),
    scheme: Type.Optional(StringEnum(['http', 'https', ''])),
    http_version: Type.Optional(str),
    response_time: Type.Optional(str),
    incident_id: Type.Optional(str),
    request_type: Type.Optional(str),
    session_request_count: Type.Optional(str),
    requested_domain: Type.Optional(str),
    ja3: Type.Optional(Type.String({ pattern: '^([0-9a-fA-F]{32})?$' })),
    ja4: Type.Optional(Type.String({ pattern: `${JA4}|^$` })),
  },
  { additionalProperties: false },
);
export type IngestRecord = Static<typeof IngestRecord>;

export const IngestReport = Type.Object({
  accepted: Type.Integer(),
  rejected: Type.Integer(),
  errors: Type.Array(Type.Object({ line: Type.Integer(), detail: Type.String() }), { description: 'First 100 rejected lines' }),
});
export type IngestReport = Static<typeof IngestReport>;
