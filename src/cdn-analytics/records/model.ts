// The CDN access record: what one request served by the CDN leaves behind, as the control API ingests
// it and the analytics read it. Pure functions only (validation, derived columns), unit-tested beside.
import { isIP } from 'node:net';

export const RETENTION_DAYS = 90;
export const DAY_MS = 86_400_000;
export const RETENTION_MS = RETENTION_DAYS * DAY_MS;

export const DEVICES = ['desktop', 'mobile', 'tablet', 'tv', 'bot', 'other'] as const;
export type Device = (typeof DEVICES)[number];

/** A validated record, in the API's field names. */
export interface AccessRecord {
  clientId: number;
  /** Epoch milliseconds. */
  timestamp: number;
  resourceId: number;
  host: string;
  path: string;
  country: string;
  browser: string;
  device: Device;
  os: string;
  bytes: number;
  status: number;
  clientIp: string;
  visitorId: string | null;
}

/** An NDJSON line that is not JSON: kept in place so the report can name its index. */
export class UnparseableLine {
  constructor(readonly message: string) {}
}

export interface RecordProblem {
  field: string;
  message: string;
}

/**
 * The first-level directory a path belongs to: '/images/a/b.png' -> '/images/', '/index.html' -> '/'.
 * Query strings and fragments are not part of the path.
 */
export function directoryOf(path: string): string {
  const clean = path.split(/[?#]/, 1)[0];
  const second = clean.indexOf('/', 1);
  return second === -1 ? '/' : clean.slice(0, second + 1);
}

/** The identity a unique visitor is counted by. */
export function visitorKey(record: Pick<AccessRecord, 'visitorId' | 'clientIp'>): string {
  return record.visitorId ? `v:${record.visitorId}` : `ip:${record.clientIp}`;
}

const FIELDS = new Set([
  'clientId',
  'timestamp',
  'resourceId',
  'host',
  'path',
  'country',
  'browser',
  'device',
  'os',
  'bytes',
  'status',
  'clientIp',
  'visitorId',
]);
const HOST = /^[A-Za-z0-9.\-]{1,253}$/;
const COUNTRY = /^[A-Za-z]{2}$/;

function text(value: unknown, field: string, max: number, problems: RecordProblem[]): string {
  if (typeof value !== 'string' || value.length === 0) problems.push({ field, message: 'must be a non-empty string' });
  else if (value.length > max) problems.push({ field, message: `must be at most ${max} characters` });
  else return value;
  return '';
}

function integer(value: unknown, field: string, min: number, max: number, problems: RecordProblem[]): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    problems.push({ field, message: `must be an integer from ${min} to ${max}` });
    return 0;
  }
  return value;
}

function timestampOf(value: unknown, problems: RecordProblem[]): number {
  const ms = typeof value === 'number' ? value : typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms < 0) {
    problems.push({ field: 'timestamp', message: 'must be an ISO 8601 date-time or epoch milliseconds' });
    return 0;
  }
  return ms;
}

/**
 * Checks one raw record. `now` is the server clock: a record already past the retention window would be
 * deleted at once and never be visible, so it is refused rather than silently dropped.
 */
export function validateRecord(raw: unknown, now: number): { record: AccessRecord } | { problems: RecordProblem[] } {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { problems: [{ field: '', message: 'must be a JSON object' }] };
  const input = raw as Record<string, unknown>;
  const problems: RecordProblem[] = Object.keys(input)
    .filter((key) => !FIELDS.has(key))
    .map((key) => ({ field: key, message: 'unknown field' }));
  const clientId = integer(input.clientId, 'clientId', 1, Number.MAX_SAFE_INTEGER, problems);
  const timestamp = timestampOf(input.timestamp, problems);
  if (timestamp > 0 && timestamp < now - RETENTION_MS) problems.push({ field: 'timestamp', message: `is older than the ${RETENTION_DAYS}-day retention` });
  const resourceId = integer(input.resourceId, 'resourceId', 0, Number.MAX_SAFE_INTEGER, problems);
  const host = text(input.host, 'host', 253, problems);
  if (host && !HOST.test(host)) problems.push({ field: 'host', message: 'must be a host name' });
  const path = text(input.path, 'path', 2048, problems);
  if (path && !path.startsWith('/')) problems.push({ field: 'path', message: "must start with '/'" });
  const country = text(input.country, 'country', 2, problems);
  if (country && !COUNTRY.test(country)) problems.push({ field: 'country', message: 'must be an ISO 3166-1 alpha-2 code' });
  const browser = text(input.browser, 'browser', 64, problems);
  const os = text(input.os, 'os', 64, problems);
  const device = typeof input.device === 'string' ? input.device.toLowerCase() : '';
  if (!(DEVICES as readonly string[]).includes(device)) problems.push({ field: 'device', message: `must be one of ${DEVICES.join(', ')}` });
  const bytes = integer(input.bytes, 'bytes', 0, Number.MAX_SAFE_INTEGER, problems);
  const status = integer(input.status, 'status', 100, 599, problems);
  const clientIp = text(input.clientIp, 'clientIp', 45, problems);
  if (clientIp && isIP(clientIp) === 0) problems.push({ field: 'clientIp', message: 'must be an IPv4 or IPv6 address' });
  let visitorId: string | null = null;
  if (input.visitorId !== undefined && input.visitorId !== null) visitorId = text(input.visitorId, 'visitorId', 128, problems) || null;
  if (problems.length > 0) return { problems };
  return {
    record: {
      clientId,
      timestamp,
      resourceId,
      host: host.toLowerCase(),
      path,
      country: country.toUpperCase(),
      browser,
      device: device as Device,
      os,
      bytes,
      status,
      clientIp,
      visitorId,
    },
  };
}
