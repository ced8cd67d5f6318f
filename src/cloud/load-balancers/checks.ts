// The rules across fields of listeners, pools, health monitors, members and L7 rules (pure functions).
// Each answers the fields at fault, `at` being where the object sits in the request body.
import type { FieldError } from '../../platform/errors.js';
import { bodyField } from '../common/errors.js';
import { isAddress, parseNetwork } from '../common/ip.js';
import type { ListenerProtocol, MonitorType, PoolProtocol } from './enums.js';

type Path = (string | number)[];

/** The pool protocols a listener of each protocol can send traffic to (as the provider's Octavia has it). */
export const POOLS_OF_LISTENER: Record<ListenerProtocol, readonly PoolProtocol[]> = {
  HTTP: ['HTTP', 'PROXY', 'PROXYV2'],
  HTTPS: ['HTTPS', 'PROXY', 'PROXYV2', 'TCP'],
  TCP: ['TCP', 'HTTP', 'HTTPS', 'PROXY', 'PROXYV2'],
  TERMINATED_HTTPS: ['HTTP', 'PROXY', 'PROXYV2'],
  UDP: ['UDP'],
  PROMETHEUS: [],
};

/** Two listeners of a balancer may not share a port of one transport: UDP, or TCP (every other protocol). */
export const transportOf = (protocol: ListenerProtocol): 'udp' | 'tcp' => (protocol === 'UDP' ? 'udp' : 'tcp');

/** The listener protocols L7 policies can act on: those that read HTTP requests. */
export const L7_LISTENERS: readonly ListenerProtocol[] = ['HTTP', 'TERMINATED_HTTPS'];

export function poolProtocolMisfit(listener: ListenerProtocol, pool: PoolProtocol, at: Path): FieldError[] {
  const allowed = POOLS_OF_LISTENER[listener];
  if (allowed.includes(pool)) return [];
  const message =
    allowed.length === 0 ? `a ${listener} listener has no pools` : `a ${listener} listener sends traffic to ${allowed.join(', ')} pools, not ${pool}`;
  return [bodyField(at, message)];
}

export interface ListenerFields {
  protocol: ListenerProtocol;
  secret_id?: string | null;
  sni_secret_id?: string[] | null;
  insert_x_forwarded?: boolean;
  user_list?: { username: string }[] | null;
  allowed_cidrs?: string[] | null;
  timeout_client_data?: number | null;
  timeout_member_connect?: number | null;
  timeout_member_data?: number | null;
}

const TLS_LISTENERS: readonly ListenerProtocol[] = ['TERMINATED_HTTPS', 'PROMETHEUS'];
const AUTH_LISTENERS: readonly ListenerProtocol[] = ['HTTP', 'TERMINATED_HTTPS', 'PROMETHEUS'];

export function listenerMisfits(l: ListenerFields, at: Path): FieldError[] {
  const out: FieldError[] = [];
  const field = (name: string, message: string) => out.push(bodyField([...at, name], message));
  if (l.protocol === 'TERMINATED_HTTPS' && !l.secret_id) field('secret_id', 'a TERMINATED_HTTPS listener needs the secret of its certificate');
  if (l.secret_id && !TLS_LISTENERS.includes(l.protocol))
    field('secret_id', `only TERMINATED_HTTPS and PROMETHEUS listeners take a certificate, not ${l.protocol}`);
  if ((l.sni_secret_id ?? []).length > 0 && !TLS_LISTENERS.includes(l.protocol))
    field('sni_secret_id', `only TERMINATED_HTTPS and PROMETHEUS listeners take SNI certificates, not ${l.protocol}`);
  if (l.insert_x_forwarded && !['HTTP', 'TERMINATED_HTTPS'].includes(l.protocol))
    field('insert_x_forwarded', `X-Forwarded headers are added by HTTP and TERMINATED_HTTPS listeners only, not ${l.protocol}`);
  if ((l.user_list ?? []).length > 0 && !AUTH_LISTENERS.includes(l.protocol))
    field('user_list', `basic authentication needs an HTTP, TERMINATED_HTTPS or PROMETHEUS listener, not ${l.protocol}`);
  const names = (l.user_list ?? []).map((u) => u.username);
  const repeated = names.findIndex((n, i) => names.indexOf(n) !== i);
  if (repeated >= 0) out.push(bodyField([...at, 'user_list', repeated, 'username'], `user ${names[repeated]} is listed twice`));
  (l.allowed_cidrs ?? []).forEach((cidr, i) => {
    if (!parseNetwork(cidr)) out.push(bodyField([...at, 'allowed_cidrs', i], `${cidr} is not an IPv4 or IPv6 network`));
  });
  if (l.protocol === 'UDP') {
    for (const name of ['timeout_client_data', 'timeout_member_connect', 'timeout_member_data'] as const) {
      if (l[name] !== undefined && l[name] !== null) field(name, 'UDP listeners have no connection timeouts');
    }
  }
  return out;
}

/** Allowed CIDRs in canonical form, each once, sorted (the provider treats them as a set). */
export function canonicalCidrs(cidrs: string[] | null | undefined): string[] | null {
  if (!cidrs) return null;
  return [...new Set(cidrs.map((c) => parseNetwork(c)!.text))].sort();
}

export interface PoolFields {
  protocol: PoolProtocol;
  session_persistence?: { type: string; cookie_name?: string | null; persistence_granularity?: string | null; persistence_timeout?: number | null } | null;
  secret_id?: string | null;
  ca_secret_id?: string | null;
  crl_secret_id?: string | null;
}

export function poolMisfits(p: PoolFields, at: Path): FieldError[] {
  const out: FieldError[] = [];
  const sp = p.session_persistence;
  if (sp) {
    const where = (name: string) => [...at, 'session_persistence', name];
    if (sp.type === 'APP_COOKIE' && !sp.cookie_name)
      out.push(bodyField(where('cookie_name'), "APP_COOKIE persistence needs the name of the application's cookie"));
    if (sp.type !== 'APP_COOKIE' && sp.cookie_name) out.push(bodyField(where('cookie_name'), `${sp.type} persistence takes no cookie name`));
    if (sp.type !== 'SOURCE_IP' && ['TCP', 'UDP'].includes(p.protocol))
      out.push(bodyField(where('type'), `${p.protocol} pools cannot read cookies: use SOURCE_IP`));
    const udpOnly = sp.persistence_timeout != null || sp.persistence_granularity != null;
    if (udpOnly && (p.protocol !== 'UDP' || sp.type !== 'SOURCE_IP'))
      out.push(
        bodyField(
          where(sp.persistence_timeout != null ? 'persistence_timeout' : 'persistence_granularity'),
          'only UDP pools with SOURCE_IP persistence take a timeout and granularity',
        ),
      );
    if (sp.persistence_granularity != null && !isNetmask(sp.persistence_granularity))
      out.push(bodyField(where('persistence_granularity'), `${sp.persistence_granularity} is not a netmask such as 255.255.255.0`));
  }
  for (const name of ['secret_id', 'ca_secret_id', 'crl_secret_id'] as const) {
    if (p[name] && p.protocol !== 'HTTPS') out.push(bodyField([...at, name], `TLS towards members needs an HTTPS pool, not ${p.protocol}`));
  }
  if (p.crl_secret_id && !p.ca_secret_id) out.push(bodyField([...at, 'crl_secret_id'], 'a revocation list needs the CA it revokes for (ca_secret_id)'));
  return out;
}

function isNetmask(text: string): boolean {
  if (!isAddress(text) || text.includes(':')) return false;
  const bits = text
    .split('.')
    .map((o) => Number(o).toString(2).padStart(8, '0'))
    .join('');
  return /^1*0*$/.test(bits);
}

export interface MonitorFields {
  type: MonitorType;
  delay: number;
  timeout: number;
  domain_name?: string | null;
  expected_codes?: string | null;
  http_method?: string | null;
  http_version?: string | null;
  url_path?: string | null;
}

const HTTP_MONITORS: readonly MonitorType[] = ['HTTP', 'HTTPS'];

export function monitorMisfits(m: MonitorFields, pool: PoolProtocol, at: Path): FieldError[] {
  const out: FieldError[] = [];
  const field = (name: string, message: string) => out.push(bodyField([...at, name], message));
  if (m.type === 'UDP-CONNECT' && pool !== 'UDP') field('type', `UDP-CONNECT monitors check UDP pools, not ${pool}`);
  if (pool === 'UDP' && ['HTTPS', 'TLS-HELLO'].includes(m.type)) field('type', `a UDP pool cannot be checked with ${m.type}`);
  if (m.timeout >= m.delay) field('timeout', `must be less than delay (${m.delay})`);
  if (!HTTP_MONITORS.includes(m.type)) {
    for (const name of ['domain_name', 'expected_codes', 'http_method', 'http_version', 'url_path'] as const) {
      if (m[name] !== undefined && m[name] !== null) field(name, `only HTTP and HTTPS monitors take ${name}, not ${m.type}`);
    }
    return out;
  }
  if (m.domain_name && m.http_version !== '1.1') field('domain_name', 'a Host header needs http_version 1.1');
  if (m.expected_codes && !validCodes(m.expected_codes))
    field('expected_codes', `${m.expected_codes} is not a list of HTTP codes and ranges, e.g. 200,202,300-302`);
  if (m.url_path?.includes('//')) field('url_path', 'must not contain //');
  return out;
}

function validCodes(text: string): boolean {
  return text.split(',').every((part) => {
    const match = /^(\d{3})(?:-(\d{3}))?$/.exec(part);
    if (!match) return false;
    const [from, to] = [Number(match[1]), Number(match[2] ?? match[1])];
    return from >= 100 && to <= 599 && from <= to;
  });
}

export interface MemberFields {
  address: string;
  monitor_address?: string | null;
}

export function memberMisfits(m: MemberFields, at: Path): FieldError[] {
  const out: FieldError[] = [];
  if (!isAddress(m.address)) out.push(bodyField([...at, 'address'], `${m.address} is not an IP address`));
  if (m.monitor_address && !isAddress(m.monitor_address)) out.push(bodyField([...at, 'monitor_address'], `${m.monitor_address} is not an IP address`));
  return out;
}

export interface RuleFields {
  type: string;
  compare_type: string;
  value: string;
  key?: string | null;
}

const KEYED_RULES = ['COOKIE', 'HEADER'];

export function ruleMisfits(r: RuleFields, at: Path): FieldError[] {
  const out: FieldError[] = [];
  const field = (name: string, message: string) => out.push(bodyField([...at, name], message));
  if (KEYED_RULES.includes(r.type) && !r.key) field('key', `a ${r.type} rule needs the name of the ${r.type.toLowerCase()} it compares`);
  if (r.key && !KEYED_RULES.includes(r.type) && r.type !== 'SSL_DN_FIELD') field('key', `a ${r.type} rule takes no key`);
  if (r.type === 'FILE_TYPE' && !['EQUAL_TO', 'REGEX'].includes(r.compare_type)) field('compare_type', 'FILE_TYPE rules compare with EQUAL_TO or REGEX');
  if (r.type === 'SSL_CONN_HAS_CERT' && (r.compare_type !== 'EQUAL_TO' || r.value !== 'True')) field('value', 'SSL_CONN_HAS_CERT rules are EQUAL_TO True');
  if (r.type === 'SSL_VERIFY_RESULT' && (r.compare_type !== 'EQUAL_TO' || !/^\d+$/.test(r.value)))
    field('value', 'SSL_VERIFY_RESULT rules are EQUAL_TO a verification result code (0 = verified)');
  if (r.compare_type === 'REGEX' && !compiles(r.value)) field('value', `${r.value} is not a regular expression`);
  if (r.compare_type !== 'REGEX' && /\s/.test(r.value) && !['HEADER', 'COOKIE'].includes(r.type)) field('value', 'must not contain spaces');
  return out;
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/** An absolute http(s) URL, as redirects need. */
export function isRedirectUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
