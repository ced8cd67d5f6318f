// Every filter of GET /waap/v1/analytics/requests the log view offers (tests/console/filters.test.ts holds
// this list to the route's schema, so a filter added to the API and not here fails the suite). Each has
// an `exclude_` twin in the API: the view's "is not". No imports: the server's tests read this file too.

export interface FilterField {
  /** Query parameter name; `exclude_<param>` is its negation. */
  param: string;
  label: string;
  /** Values offered as checkboxes; free text (comma-separated) when absent. */
  choices?: string[];
  placeholder?: string;
  /** The API takes numbers. */
  numeric?: boolean;
}

export const FILTER_FIELDS: FilterField[] = [
  { param: 'decision', label: 'Decision', choices: ['blocked', 'monitored', 'allowed', 'passed'] },
  { param: 'optional_action', label: 'Optional action', choices: ['captcha', 'challenge'] },
  { param: 'domains', label: 'Domain IDs', placeholder: '12, 13', numeric: true },
  { param: 'ips', label: 'Client IPs', placeholder: '203.0.113.7, 2001:db8::1' },
  { param: 'countries', label: 'Countries', placeholder: 'US, DE' },
  { param: 'path', label: 'Path (glob)', placeholder: '/api/*' },
  { param: 'http_methods', label: 'HTTP methods', choices: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE'] },
  { param: 'status_codes', label: 'Status codes', placeholder: '403, 500', numeric: true },
  { param: 'security_rule_names', label: 'Rule names', placeholder: 'SQL injection' },
  { param: 'tags', label: 'Threat tags', placeholder: 'sqli' },
  { param: 'organizations', label: 'Organizations', placeholder: 'Example Networks' },
  { param: 'user_agent', label: 'User agent contains', placeholder: 'curl' },
  { param: 'user_agent_clients', label: 'User-agent clients', placeholder: 'Chrome' },
  { param: 'user_agent_devices', label: 'User-agent devices', placeholder: 'Smartphone' },
  { param: 'request_ids', label: 'Request IDs', placeholder: '<32 hex>-<6 digits>' },
  { param: 'reference_ids', label: 'Reference IDs', placeholder: '32 hex digits' },
  { param: 'session_ids', label: 'Session IDs', placeholder: '32 hex digits' },
  { param: 'ja3', label: 'JA3 fingerprints', placeholder: '32 hex digits' },
  { param: 'ja4', label: 'JA4 fingerprints', placeholder: 't13d1516h2_8daaf6152771_02713d6af862' },
];

/** Sort keys the API accepts in `ordering` (with `-` for descending), by table column. */
export const ORDERING_FIELDS: Record<string, string> = {
  request_time: 'request_time',
  client_ip: 'client_ip',
  country: 'country',
  method: 'method',
  path: 'path',
  status_code: 'status_code',
  decision: 'decision',
  domain_id: 'domain_id',
  rule_name: 'rule_name',
};

/** Everything in the query string that is not a filter: the time range, order and page. */
export const RANGE_PARAMS = ['start', 'end', 'ordering', 'limit', 'offset'];
