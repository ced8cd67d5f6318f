// Test-only: a small, varied event set and a plain-JavaScript model of the list's filters, so every
// filter can be checked against an independent answer.
import { event, hex32, rid } from './waap.js';

export interface Sample {
  domain_id: number;
  id: string;
  time: number;
  decision: string;
  optional_action: string;
  client_ip: string;
  country: string;
  method: string;
  path: string;
  status: number;
  rule_name: string;
  reference_id: string;
  session_id: string;
  ua: string;
  ua_client: string;
  ua_device: string;
  org: string;
  tags: string[];
  traffic_types: string[];
  ja3: string;
  ja4: string;
  record: Record<string, unknown>;
}

const pick = <T>(xs: T[], i: number) => xs[i % xs.length];
const DECISIONS = ['passed', 'passed', 'passed', 'blocked', 'passed', 'monitored', 'passed', 'allowed', 'passed'];
const PATHS = ['/api/v1/users', '/api/v2/search', '/static/app.js', '/index.html', '/login', '/api', '/a_b%c'];
const AGENTS = [
  { full_string: 'Mozilla/5.0 Chrome/126', client: 'Chrome', device: 'Other' },
  { full_string: 'curl/8.8.0', client: 'curl', device: 'Other' },
  { full_string: 'Mozilla/5.0 (iPhone) Safari/604', client: 'Mobile Safari', device: 'iPhone' },
];

/** `n` events of one domain set, spread over the 29.5 days before `now` (id numbers from `base`). */
export function samples(domainIds: number[], n: number, now: number, base: number): Sample[] {
  const out: Sample[] = [];
  const span = 29.5 * 86_400_000;
  for (let i = 0; i < n; i += 1) {
    const k = base + i;
    const decision = pick(DECISIONS, i);
    const optional = decision === 'blocked' ? pick(['captcha', '', 'challenge'], i) : i % 17 === 0 ? 'challenge' : '';
    const agent = pick(AGENTS, i);
    const tags = decision === 'blocked' || decision === 'monitored' ? [pick(['sqli', 'xss'], i)] : [];
    const s: Sample = {
      domain_id: pick(domainIds, i),
      id: rid(k),
      time: now - 1000 - Math.floor((i * span) / n) - (i % 5) * 7,
      decision,
      optional_action: optional,
      client_ip: pick(['192.0.2.1', '192.0.2.2', '198.51.100.7', '2001:db8::1'], i),
      country: pick(['US', 'DE', 'FR', 'BR', 'US'], i),
      method: pick(['GET', 'POST', 'GET', 'PUT', 'DELETE'], i),
      path: pick(PATHS, i),
      status: decision === 'blocked' ? 403 : pick([200, 200, 404, 500, 301], i),
      rule_name: decision === 'passed' ? '' : pick(['SQL Injection', 'Rate Limit'], i),
      reference_id: hex32(k % 11),
      session_id: hex32(1000 + (k % 13)),
      ua: agent.full_string,
      ua_client: agent.client,
      ua_device: agent.device,
      org: pick(['Example ISP', 'Cloud Co'], i),
      tags,
      traffic_types: pick([['api'], [], ['static'], ['api', 'ajax'], ['ajax']], i),
      ja3: pick(['e7d705a3286e19ea42f587b344ee6865', 'A0E9F5D64349FB13191BC781F81F42E1'], i),
      ja4: pick(['t13d1516h2_8daaf6152771_b186095e22b6', ''], i),
      record: {},
    };
    s.record = event(s.domain_id, k, s.time, {
      decision,
      optional_action: optional,
      network: { client_ip: s.client_ip, country: s.country, organization: { name: s.org, subnet: '192.0.2.0/24' } },
      method: s.method,
      path: s.path,
      http_status_code: s.status,
      rule_name: s.rule_name,
      rule_id: s.rule_name ? 'S1' : '',
      reference_id: s.reference_id,
      session_id: s.session_id,
      user_agent: agent,
      pattern_matched_tags: tags.map((tag) => ({
        tag,
        display_name: tag.toUpperCase(),
        description: 'd',
        field: 'uri',
        field_name: 'q',
        pattern_name: 'p',
        pattern_value: 'v',
        execution_phase: 'access',
      })),
      ja3: s.ja3,
      ja4: s.ja4,
      traffic_types: s.traffic_types,
    });
    out.push(s);
  }
  return out;
}

const globMatch = (glob: string, path: string) =>
  new RegExp(
    `^${glob
      .split('*')
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  ).test(path);

type Query = Record<string, string[] | string | undefined>;
const arr = (v: string[] | string | undefined) => (v === undefined ? undefined : Array.isArray(v) ? v : v.split(','));

/** Which samples a query keeps (time range given separately). */
export function oracle(all: Sample[], q: Query, from: number, to: number): Sample[] {
  const incl = <T>(key: string, value: (s: Sample) => T, norm: (x: string) => unknown = (x) => x) => {
    const inc = arr(q[key])?.map(norm);
    const exc = arr(q[`exclude_${key}`])?.map(norm);
    return (s: Sample) => (!inc || inc.includes(value(s))) && (!exc || !exc.includes(value(s)));
  };
  const checks = [
    incl('domains', (s) => s.domain_id, Number),
    incl('decision', (s) => s.decision),
    incl('optional_action', (s) => s.optional_action),
    incl('ips', (s) => s.client_ip),
    incl(
      'countries',
      (s) => s.country,
      (x) => x.toUpperCase(),
    ),
    incl('http_methods', (s) => s.method),
    incl('status_codes', (s) => s.status, Number),
    incl('request_ids', (s) => s.id),
    incl('reference_ids', (s) => s.reference_id),
    incl('session_ids', (s) => s.session_id),
    incl('security_rule_names', (s) => s.rule_name),
    incl('organizations', (s) => s.org),
    incl('user_agent_clients', (s) => s.ua_client),
    incl('user_agent_devices', (s) => s.ua_device),
    incl(
      'ja3',
      (s) => s.ja3.toLowerCase(),
      (x) => x.toLowerCase(),
    ),
    incl('ja4', (s) => s.ja4),
    (s: Sample) => !arr(q.path) || arr(q.path)!.some((g) => globMatch(g, s.path)),
    (s: Sample) => !arr(q.exclude_path) || !arr(q.exclude_path)!.some((g) => globMatch(g, s.path)),
    (s: Sample) => !arr(q.user_agent) || arr(q.user_agent)!.some((u) => s.ua.toLowerCase().includes(u.toLowerCase())),
    (s: Sample) => !arr(q.exclude_user_agent) || !arr(q.exclude_user_agent)!.some((u) => s.ua.toLowerCase().includes(u.toLowerCase())),
    (s: Sample) => !arr(q.tags) || arr(q.tags)!.some((tag) => s.tags.includes(tag)),
    (s: Sample) => !arr(q.exclude_tags) || !arr(q.exclude_tags)!.some((tag) => s.tags.includes(tag)),
  ];
  return all.filter((s) => s.time >= from && s.time <= to && checks.every((c) => c(s))).sort((a, b) => b.time - a.time || (a.id < b.id ? 1 : -1));
}
