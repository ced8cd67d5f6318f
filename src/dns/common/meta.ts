// `meta` objects: free JSON the API stores and returns, with a size bound, and type checks on the keys
// the reference gives a meaning to (a record's balancing data, an RRset's health check). Unknown keys are
// kept as sent: newer clients send keys Edgeplane does not know.
import { isIP } from 'node:net';

/** Largest `meta` object, serialised. */
export const META_MAX_BYTES = 16_384;

export type Meta = Record<string, unknown>;

const isObject = (value: unknown): value is Meta => typeof value === 'object' && value !== null && !Array.isArray(value);
const strings = (value: unknown) => Array.isArray(value) && value.every((v) => typeof v === 'string' && v.length <= 255);
const isCidrOrIp = (text: unknown) => {
  if (typeof text !== 'string' || text.includes('%')) return false;
  const [address, prefix, ...rest] = text.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
};

/** Problems of a meta object: not an object, too large. */
export function metaProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'must be a JSON object';
  const bytes = Buffer.byteLength(JSON.stringify(value));
  return bytes > META_MAX_BYTES ? `is ${bytes} bytes long serialised; at most ${META_MAX_BYTES}` : undefined;
}

type KeyCheck = (value: unknown) => string | undefined;

const RECORD_KEYS: Record<string, KeyCheck> = {
  asn: (v) =>
    Array.isArray(v) && v.every((n) => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 4294967295) ? undefined : 'must be a list of AS numbers',
  continents: (v) => (strings(v) ? undefined : 'must be a list of continent codes'),
  countries: (v) => (strings(v) ? undefined : 'must be a list of country codes'),
  regions: (v) => (strings(v) ? undefined : 'must be a list of region codes'),
  latlong: (v) =>
    Array.isArray(v) && v.length === 2 && typeof v[0] === 'number' && typeof v[1] === 'number' && Math.abs(v[0]) <= 90 && Math.abs(v[1]) <= 180
      ? undefined
      : 'must be [latitude, longitude] in degrees',
  backup: (v) => (typeof v === 'boolean' ? undefined : 'must be true or false'),
  default: (v) => (typeof v === 'boolean' ? undefined : 'must be true or false'),
  fallback: (v) => (typeof v === 'boolean' ? undefined : 'must be true or false'),
  weight: (v) => (typeof v === 'number' && v >= 0 ? undefined : 'must be a number of at least 0'),
  notes: (v) => (typeof v === 'string' || strings(v) ? undefined : 'must be text or a list of texts'),
  ip: (v) => ((Array.isArray(v) ? v.length <= 100 && v.every(isCidrOrIp) : isCidrOrIp(v)) ? undefined : 'must be IP networks in CIDR form (at most 100)'),
};

const PROTOCOLS = ['HTTP', 'TCP', 'UDP', 'ICMP'];
const inRange = (v: unknown, min: number, max: number) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max;

/** A health check (`failover`, or `healthchecks` as newer clients call it) of an RRset. */
function healthCheckProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'must be an object';
  if (typeof value.protocol !== 'string' || !PROTOCOLS.includes(value.protocol)) return `protocol must be one of ${PROTOCOLS.join(', ')}`;
  if (value.port !== undefined && !inRange(value.port, 1, 65535)) return 'port must be from 1 to 65535';
  if (value.protocol !== 'ICMP' && value.port === undefined) return 'port is required';
  if (!inRange(value.frequency, 10, 3600)) return 'frequency must be from 10 to 3600 seconds';
  if (!inRange(value.timeout, 1, 10)) return 'timeout must be from 1 to 10 seconds';
  if (value.http_status_code !== undefined && value.http_status_code !== null && !inRange(value.http_status_code, 100, 599))
    return 'http_status_code must be from 100 to 599';
  if (typeof value.command === 'string' && value.command.length > 255) return 'command must be at most 255 characters';
  return undefined;
}

const RRSET_KEYS: Record<string, KeyCheck> = {
  failover: healthCheckProblem,
  healthchecks: healthCheckProblem,
  geodns_link: (v) => (typeof v === 'string' && v.length <= 255 ? undefined : 'must be text of at most 255 characters'),
};

function keyedProblems(meta: Meta, checks: Record<string, KeyCheck>): string | undefined {
  for (const [key, check] of Object.entries(checks)) {
    if (meta[key] === undefined || meta[key] === null) continue;
    const problem = check(meta[key]);
    if (problem) return `${key} ${problem}`;
  }
  return undefined;
}

export function recordMetaProblem(value: unknown): string | undefined {
  return metaProblem(value) ?? keyedProblems(value as Meta, RECORD_KEYS);
}

export function rrsetMetaProblem(value: unknown): string | undefined {
  return metaProblem(value) ?? keyedProblems(value as Meta, RRSET_KEYS);
}

/** Whether an RRset's meta asks for a health check. */
export function hasHealthCheck(meta: Meta): boolean {
  return isObject(meta.failover) || isObject(meta.healthchecks);
}

export function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
