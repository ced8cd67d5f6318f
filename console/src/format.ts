// How values are shown: absolute UTC times (the server's clock may be moved; "3 minutes ago" would be
// measured against the wrong clock), grouped digits, short ids.
const numberFormat = new Intl.NumberFormat('en-US');

export const count = (value: number | undefined | null): string => (value == null ? '–' : numberFormat.format(value));

export function time(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '–';
  // Cloud times come without a zone designator and are UTC.
  const date = typeof value === 'number' ? new Date(value) : new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
  if (Number.isNaN(date.getTime())) return String(value);
  return date
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$|Z$/, '');
}

export const shortId = (id: string | null | undefined): string => (id ? (id.length > 12 ? `${id.slice(0, 8)}…` : id) : '–');

export const json = (value: unknown): string => JSON.stringify(value, null, 2);

/** `<input type="datetime-local">` value (UTC) for an instant, and back. */
export const toLocalInput = (ms: number): string => new Date(ms).toISOString().slice(0, 16);
export const fromLocalInput = (value: string): string | undefined => (value ? new Date(`${value}:00Z`).toISOString() : undefined);

/** A signed duration in its two largest units: `-4 d 22 h`, `3 min 5 s`, `0 s`. */
export function duration(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  let rest = Math.round(Math.abs(ms) / 1000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['min', 60],
    ['s', 1],
  ] as const) {
    const amount = Math.floor(rest / size);
    rest -= amount * size;
    if (amount > 0 || (unit === 's' && parts.length === 0)) parts.push(`${amount} ${unit}`);
  }
  return sign + parts.slice(0, 2).join(' ');
}
