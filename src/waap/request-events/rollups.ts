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

export type Counters = Map<string, { key: unknown[]; n: number }>;

export type CounterColumnType = 'bigint' | 'integer' | 'text';

/**
 * A table of counters maintained at ingestion and by retention: `columns` is its key in primary-key
 * order (client first); `add` adds one event to the batch's in-memory counters of this table.
 */
export interface CounterTable {
  table: string;
  columns: readonly { name: string; type: CounterColumnType }[];
  add(row: CountedRow, counters: Counters): void;
  /**
   * The same counting in SQL over rows of waap_events: per source, one expression per column and an
   * optional condition. SQLite counts a freshly written batch this way, in C, several times faster.
   */
  sources: readonly { select: readonly string[]; where?: string }[];
}

const HOUR_SQL = '(request_time / 3600000) * 3600000';
/** Traffic types as TRAFFIC_TYPE_BITS, matched exactly (case-sensitive) between commas. */
const TYPES_SQL = "(case when instr(',' || traffic_types || ',', ',api,') > 0 then 1 else 0 end) + (case when instr(',' || traffic_types || ',', ',ajax,') > 0 then 2 else 0 end) + (case when instr(',' || traffic_types || ',', ',static,') > 0 then 4 else 0 end)";

/** The columns of an event that counters read. */
export interface CountedRow {
  client_id: number;
  request_time: number;
  domain_id: number;
  domain: string;
  decision: string;
  optional_action: string;
  country: string;
  method: string;
  status_code: number;
  path_prefix: string;
  client_ip: string;
  organization: string;
  rule_name: string;
  user_agent: string;
  traffic_types: string;
}

/** Adds one to the counter `id`, making its key only for its first event of the batch. */
function bump(counters: Counters, id: string, key: () => unknown[]): void {
  const entry = counters.get(id);
  if (entry) entry.n += 1;
  else counters.set(id, { key: key(), n: 1 });
}

const columnType = (dim: Dimension): CounterColumnType => (dim === 'domain_id' ? 'bigint' : dim === 'status_code' ? 'integer' : 'text');

function rollupCounter(r: Rollup): CounterTable {
  const dims = r.dims;
  return {
    table: r.table,
    columns: [{ name: 'client_id', type: 'bigint' }, ...dims.map((d) => ({ name: d, type: columnType(d) })), { name: 'hour', type: 'bigint' }],
    add(row, counters) {
      const hour = floorHour(row.request_time);
      let id = `${row.client_id}\u0001${hour}`;
      for (let d = 0; d < dims.length; d += 1) id += `\u0001${row[dims[d]]}`;
      bump(counters, id, () => [row.client_id, ...dims.map((d) => row[d]), hour]);
    },
    sources: [{ select: ['client_id', ...dims, HOUR_SQL] }],
  };
}

/** The statistics dimensions and the event column each one counts. */
export const STAT_COLUMNS = {
  country: 'country',
  rule: 'rule_name',
  org: 'organization',
  ip: 'client_ip',
  useragent: 'user_agent',
  target: 'domain',
} as const satisfies Record<string, keyof CountedRow>;
export type StatDimension = keyof typeof STAT_COLUMNS;
const STAT_DIMS = Object.entries(STAT_COLUMNS) as [StatDimension, keyof CountedRow][];

/**
 * Hourly counts per statistics dimension value, with the columns statistics filter on (domain, rule
 * name) and split by decision. Empty values (no rule, no organisation) are never listed, so not counted.
 */
export const STAT_COUNTERS: CounterTable = {
  table: 'waap_stat_counters',
  columns: [
    { name: 'client_id', type: 'bigint' },
    { name: 'dim', type: 'text' },
    { name: 'hour', type: 'bigint' },
    { name: 'key', type: 'text' },
    { name: 'domain_id', type: 'bigint' },
    { name: 'rule_name', type: 'text' },
    { name: 'decision', type: 'text' },
  ],
  add(row, counters) {
    const hour = floorHour(row.request_time);
    const tail = `\u0001${row.domain_id}\u0001${row.rule_name}\u0001${row.decision}`;
    for (const [dim, column] of STAT_DIMS) {
      const key = String(row[column]);
      if (key === '') continue;
      bump(counters, `${row.client_id}\u0001${dim}\u0001${hour}\u0001${key}${tail}`, () => [row.client_id, dim, hour, key, row.domain_id, row.rule_name, row.decision]);
    }
  },
  sources: STAT_DIMS.map(([dim, column]) => ({ select: ['client_id', `'${dim}'`, HOUR_SQL, column, 'domain_id', 'rule_name', 'decision'], where: `${column} <> ''` })),
};

export const MINUTE_MS = 60_000;
export const floorMinute = (ms: number) => Math.floor(ms / MINUTE_MS) * MINUTE_MS;
export const ceilMinute = (ms: number) => Math.ceil(ms / MINUTE_MS) * MINUTE_MS;

/** The traffic types the traffic series counts, as bits of one integer. */
export const TRAFFIC_TYPE_BITS = { api: 1, ajax: 2, static: 4 } as const;

export function trafficTypeMask(types: string): number {
  let mask = 0;
  for (const t of types.split(',')) mask |= TRAFFIC_TYPE_BITS[t as keyof typeof TRAFFIC_TYPE_BITS] ?? 0;
  return mask;
}

/** Per-minute counts for the traffic series (its smallest bucket is a minute), by what the series splits on. */
export const TRAFFIC_COUNTERS: CounterTable = {
  table: 'waap_traffic_counters',
  columns: [
    { name: 'client_id', type: 'bigint' },
    { name: 'minute', type: 'bigint' },
    { name: 'domain_id', type: 'bigint' },
    { name: 'decision', type: 'text' },
    { name: 'status_class', type: 'integer' },
    { name: 'types', type: 'integer' },
  ],
  add(row, counters) {
    const minute = floorMinute(row.request_time);
    const statusClass = Math.trunc(row.status_code / 100);
    const types = row.traffic_types === '' ? 0 : trafficTypeMask(row.traffic_types);
    bump(counters, `${row.client_id}\u0001${minute}\u0001${row.domain_id}\u0001${row.decision}\u0001${statusClass}\u0001${types}`, () => [
      row.client_id, minute, row.domain_id, row.decision, statusClass, types,
    ]);
  },
  sources: [{ select: ['client_id', '(request_time / 60000) * 60000', 'domain_id', 'decision', 'status_code / 100', TYPES_SQL] }],
};

/** Every counter table ingestion maintains. */
export const COUNTER_TABLES: readonly CounterTable[] = [...ROLLUPS.map(rollupCounter), STAT_COUNTERS, TRAFFIC_COUNTERS];

/**
 * Adds the rows of one ingested batch to in-memory counters, ready to be written once per batch: one
 * string key per row and counter, and a key array only for a counter's first event (building arrays
 * per row cost more than the database writes).
 */
export function accumulate(rows: readonly CountedRow[]): Map<CounterTable, Counters> {
  const maps: Counters[] = COUNTER_TABLES.map(() => new Map());
  for (const row of rows) for (let t = 0; t < COUNTER_TABLES.length; t += 1) COUNTER_TABLES[t].add(row, maps[t]);
  return new Map(COUNTER_TABLES.map((t, i) => [t, maps[i]]));
}
