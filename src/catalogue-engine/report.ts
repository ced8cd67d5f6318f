// The time range and step of a report request, read from the query (or the body of a POST report):
// `from`/`to`, `date_from`/`date_to`, `start`/`end` and the like; `granularity`, `interval`, `step`,
// `resolution` or `bucket_size` for the step. The answer holds one point per step of that range.
import type { Series } from './fill.js';

const FROM = ['from', 'date_from', 'start', 'time_from', 'from_timestamp', 'min_requested_at', 'start_time', 'from_created'];
const TO = ['to', 'date_to', 'end', 'time_to', 'to_timestamp', 'max_requested_at', 'end_time', 'to_created'];
const STEP = ['granularity', 'interval', 'step', 'resolution', 'bucket_size', 'period', 'group_by_time'];
const DAY = 86_400_000;

const NAMED_STEPS: Record<string, number> = {
  minute: 60_000,
  '1m': 60_000,
  '5m': 300_000,
  '10m': 600_000,
  '15m': 900_000,
  '30m': 1_800_000,
  hour: 3_600_000,
  hourly: 3_600_000,
  '1h': 3_600_000,
  '3h': 10_800_000,
  '6h': 21_600_000,
  '12h': 43_200_000,
  day: DAY,
  daily: DAY,
  '1d': DAY,
  P1D: DAY,
  week: 7 * DAY,
  weekly: 7 * DAY,
  '1w': 7 * DAY,
  month: 30 * DAY,
  monthly: 30 * DAY,
};

export function seriesFor(query: Record<string, unknown>, body: unknown, now: number): Series {
  const source = { ...(typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {}), ...query };
  const from = instant(pick(source, FROM));
  const to = instant(pick(source, TO));
  const end = to ?? now;
  const start = from ?? end - DAY;
  const span = Math.max(0, end - start);
  let stepMs = stepOf(pick(source, STEP)) ?? (span > 7 * DAY ? DAY : 3_600_000);
  // At most 500 points: a long range with a fine step gets a coarser one.
  if (span / stepMs > 500) stepMs = Math.ceil(span / 500 / 60_000) * 60_000;
  return { from: Math.min(start, end), to: Math.max(start, end), stepMs };
}

function pick(source: Record<string, unknown>, names: string[]): unknown {
  for (const name of names) if (source[name] !== undefined && source[name] !== null && source[name] !== '') return source[name];
  return undefined;
}

function instant(value: unknown): number | undefined {
  if (typeof value === 'number') return value > 1e12 ? value : value * 1000;
  if (typeof value !== 'string') return undefined;
  if (/^\d+$/.test(value)) return instant(Number(value));
  const ms = Date.parse(/(Z|[+-]\d\d:?\d\d)$/i.test(value) || /^\d{4}-\d\d-\d\d$/.test(value) ? value : `${value}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

function stepOf(value: unknown): number | undefined {
  if (typeof value === 'number') return value > 0 ? value * 1000 : undefined;
  if (typeof value !== 'string') return undefined;
  if (NAMED_STEPS[value] !== undefined) return NAMED_STEPS[value];
  const match = /^(\d+)\s*(s|sec|m|min|h|hour|d|day)s?$/i.exec(value);
  if (!match) return undefined;
  const unit = match[2].toLowerCase()[0];
  return Number(match[1]) * (unit === 's' ? 1000 : unit === 'm' ? 60_000 : unit === 'h' ? 3_600_000 : DAY);
}
