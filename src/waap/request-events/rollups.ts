// Hourly counters of request events. Counting millions of rows per list call is what makes the log slow,
// so ingestion also adds each event to a few counter tables, each keyed by client, hour and a small set
// of filter dimensions. A count whose filters only touch one rollup's dimensions sums that rollup over
// the whole hours of the range and counts the rows of the partial hours at its edges.

export const HOUR_MS = 3_600_000;

/** Columns of waap_events that counters can be keyed by. */
export type Dimension = 'domain_id' | 'decision' | 'optional_action' | 'country' | 'method' | 'status_code' | 'path_prefix';

export interface Rollup {
  name: string;
  table: string;
  dims: readonly Dimension[];
}

const rollup = (name: string, dims: Dimension[]): Rollup => ({ name, table: `waap_rollup_${name}`, dims });

/**
 * In order of preference: the first rollup whose dimensions cover a query's filters is the smallest fit.
 * A rollup of every dimension at once was tried and dropped: per client and hour it had nearly one row
 * per two events, doubling ingestion cost while barely beating an indexed count.
 */
export const ROLLUPS: readonly Rollup[] = [
  rollup('total', []),
  rollup('decision', ['decision', 'optional_action']),
  rollup('geo', ['country', 'method']),
  rollup('domain', ['domain_id', 'decision']),
  rollup('status', ['status_code', 'decision']),
  rollup('prefix', ['path_prefix', 'decision']),
];

export function chooseRollup(filtered: ReadonlySet<Dimension>): Rollup | undefined {
  return ROLLUPS.find((r) => [...filtered].every((d) => r.dims.includes(d)));
}

export const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;
export const ceilHour = (ms: number) => Math.ceil(ms / HOUR_MS) * HOUR_MS;

/**
 * The first path segment with its slashes (`/api/` for `/api/v1/users`), or '' when the path has no
 * second slash. A glob `/api/*` matches exactly the paths whose prefix is `/api/`.
 */
export function pathPrefix(path: string): string {
  const second = path.indexOf('/', 1);
  return path.startsWith('/') && second > 0 ? path.slice(0, second + 1) : '';
}

/** The prefix a glob selects when it has the form `/segment/*`, else undefined. */
export function globPrefix(glob: string): string | undefined {
  const match = /^(\/[^/*]+\/)\*$/.exec(glob);
  return match ? match[1] : undefined;
}

/**
 * Adds the rows of one ingested batch to in-memory per-rollup counters, ready to be upserted. Rows are
 * first grouped by every dimension at once (one key per row), then each rollup folds those groups.
 */
export function accumulate(rows: readonly Record<string, unknown>[]): Map<Rollup, Map<string, { key: unknown[]; n: number }>> {
  const groups = new Map<string, { row: Record<string, unknown>; hour: number; n: number }>();
  for (const row of rows) {
    const hour = floorHour(row.request_time as number);
    const id = `${row.client_id}\u0001${hour}\u0001${row.domain_id}\u0001${row.decision}\u0001${row.optional_action}\u0001${row.country}\u0001${row.method}\u0001${row.status_code}\u0001${row.path_prefix}`;
    const group = groups.get(id);
    if (group) group.n += 1;
    else groups.set(id, { row, hour, n: 1 });
  }
  const out = new Map<Rollup, Map<string, { key: unknown[]; n: number }>>();
  for (const r of ROLLUPS) {
    const counters = new Map<string, { key: unknown[]; n: number }>();
    for (const { row, hour, n } of groups.values()) {
      const key = [row.client_id, ...r.dims.map((d) => row[d]), hour];
      const id = key.join('\u0001');
      const entry = counters.get(id);
      if (entry) entry.n += n;
      else counters.set(id, { key, n });
    }
    out.set(r, counters);
  }
  return out;
}
