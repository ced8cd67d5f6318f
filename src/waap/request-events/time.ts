// ISO 8601 instants of query parameters, and the 30-day retention window.
import { invalid, queryField } from '../../platform/errors.js';

export const RETENTION_MS = 30 * 24 * 3_600_000;
/** A start computed by a client as "now minus 30 days" arrives slightly late; this much is forgiven. */
export const RETENTION_GRACE_MS = 5 * 60_000;

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Epoch ms of an ISO 8601 date or date-time (no zone = UTC), or undefined when it is not one. */
export function parseInstant(text: string): number | undefined {
  const m = ISO.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone = 'Z'] = m;
  if (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  const days = new Date(Date.UTC(Number(y), Number(mo), 0)).getUTCDate();
  if (Number(d) > days) return undefined;
  let offset = zone.toUpperCase() === 'Z' ? 'Z' : zone;
  if (/^[+-]\d{2}$/.test(offset)) offset += ':00';
  else if (/^[+-]\d{4}$/.test(offset)) offset = `${offset.slice(0, 3)}:${offset.slice(3)}`;
  const ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${(frac || '.0').slice(0, 4).padEnd(4, '0')}${offset}`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The [from, toExcl) range of `start`/`end` query parameters, checked against retention. */
export function timeRange(start: string, end: string | undefined, now: number): { from: number; toExcl: number } {
  const from = parseInstant(start);
  if (from === undefined) throw invalid([queryField('start', 'Input should be a valid ISO 8601 date-time', 'datetime_parsing')]);
  const cutoff = now - RETENTION_MS;
  if (from < cutoff - RETENTION_GRACE_MS) {
    throw invalid([queryField('start', `Request history is kept for 30 days: start must not be before ${new Date(cutoff).toISOString()}`, 'value_error')]);
  }
  let to = now;
  if (end !== undefined && end !== '') {
    const parsed = parseInstant(end);
    if (parsed === undefined) throw invalid([queryField('end', 'Input should be a valid ISO 8601 date-time', 'datetime_parsing')]);
    to = parsed;
  }
  if (to < from) throw invalid([queryField('end', 'end must not be before start', 'value_error')]);
  // `end` is inclusive; events older than the retention window are never shown even before deletion.
  return { from: Math.max(from, cutoff), toExcl: to + 1 };
}
