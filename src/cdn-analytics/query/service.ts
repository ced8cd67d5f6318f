// The rules of an analytics query: the window (at most 90 days back, from before to), the number of
// time buckets and rows, and what the answer holds. No SQL and no GraphQL here: the schema turns
// AnalyticsError into a GraphQL error, the store runs the SQL.
import type { Clock } from '../../platform/clock.js';
import { RETENTION_DAYS, RETENTION_MS } from '../records/model.js';
import type { AnalyticsStore, DimensionColumn, GroupRow, SortKey, Totals, TrafficSelection } from './store.js';

export const GRANULARITY_MS = {
  MINUTE: 60_000,
  FIVE_MINUTES: 300_000,
  FIFTEEN_MINUTES: 900_000,
  HOUR: 3_600_000,
  SIX_HOURS: 21_600_000,
  DAY: 86_400_000,
} as const;
export type Granularity = keyof typeof GRANULARITY_MS;

export const SORTS = {
  TIME_ASC: { key: 'bucket', descending: false },
  TIME_DESC: { key: 'bucket', descending: true },
  REQUESTS_DESC: { key: 'requests', descending: true },
  REQUESTS_ASC: { key: 'requests', descending: false },
  TRAFFIC_DESC: { key: 'traffic', descending: true },
  TRAFFIC_ASC: { key: 'traffic', descending: false },
  UNIQUE_VISITORS_DESC: { key: 'unique_visitors', descending: true },
  UNIQUE_VISITORS_ASC: { key: 'unique_visitors', descending: false },
} as const satisfies Record<string, { key: SortKey; descending: boolean }>;
export type RowOrder = keyof typeof SORTS;

export const MAX_LIMIT = 10_000;
export const DEFAULT_LIMIT = 1_000;
export const MAX_BUCKETS = 10_000;
export const MAX_FILTER_VALUES = 100;

/** A query argument the caller got wrong; `code` goes into the GraphQL error's extensions. */
export class AnalyticsError extends Error {
  constructor(
    message: string,
    readonly code: 'BAD_USER_INPUT' | 'RETENTION_EXCEEDED' = 'BAD_USER_INPUT',
  ) {
    super(message);
    this.name = 'AnalyticsError';
  }
}

export interface TrafficFilter {
  resourceIds?: number[] | null;
  hosts?: string[] | null;
  countries?: string[] | null;
  directories?: string[] | null;
  browsers?: string[] | null;
  devices?: string[] | null;
  operatingSystems?: string[] | null;
}

export interface StatisticsArgs {
  from: number;
  to: number;
  filter?: TrafficFilter | null;
  groupBy?: DimensionColumn[] | null;
  granularity?: Granularity | null;
  orderBy?: RowOrder | null;
  limit?: number | null;
  offset?: number | null;
}

/** A checked query; its parts are computed only when the GraphQL selection asks for them. */
export interface StatisticsReport {
  from: number;
  to: number;
  granularity: Granularity | null;
  groupBy: DimensionColumn[];
  totals(): Promise<Totals>;
  rows(): Promise<GroupRow[]>;
  rowCount(): Promise<number>;
}

export class AnalyticsService {
  constructor(
    private readonly store: AnalyticsStore,
    private readonly clock: Clock,
  ) {}

  /** The oldest instant a query may reach (and that stored records still cover). */
  oldestVisible(): number {
    return this.clock.now() - RETENTION_MS;
  }

  statistics(clientId: number, args: StatisticsArgs): StatisticsReport {
    const { from, to } = args;
    if (from >= to) throw new AnalyticsError('`from` must be earlier than `to`.');
    if (from < this.oldestVisible()) {
      throw new AnalyticsError(`\`from\` is more than ${RETENTION_DAYS} days back: statistics are kept for ${RETENTION_DAYS} days only.`, 'RETENTION_EXCEEDED');
    }
    const granularity = args.granularity ?? null;
    const bucketMs = granularity ? GRANULARITY_MS[granularity] : null;
    if (bucketMs && Math.ceil(to / bucketMs) - Math.floor(from / bucketMs) > MAX_BUCKETS) {
      throw new AnalyticsError(`The window holds more than ${MAX_BUCKETS} ${granularity} buckets: choose a coarser granularity or a shorter window.`);
    }
    const groupBy = [...new Set(args.groupBy ?? [])];
    const order = args.orderBy ?? (granularity ? 'TIME_ASC' : 'REQUESTS_DESC');
    if (SORTS[order].key === 'bucket' && !granularity) throw new AnalyticsError(`orderBy ${order} needs a granularity.`);
    const limit = args.limit ?? DEFAULT_LIMIT;
    if (limit < 1 || limit > MAX_LIMIT) throw new AnalyticsError(`limit must be from 1 to ${MAX_LIMIT}.`);
    const offset = args.offset ?? 0;
    if (offset < 0) throw new AnalyticsError('offset must not be negative.');
    const selection = this.selection(clientId, from, to, args.filter ?? {});
    const grouping = { dimensions: groupBy, bucketMs, sort: SORTS[order], limit, offset };
    return {
      from,
      to,
      granularity,
      groupBy,
      totals: once(() => this.store.totals(selection)),
      rows: once(() => this.store.groups(selection, grouping)),
      rowCount: once(() => this.store.countGroups(selection, grouping)),
    };
  }

  private selection(clientId: number, from: number, to: number, filter: TrafficFilter): TrafficSelection {
    const list = <T>(name: string, values: T[] | null | undefined): T[] => {
      if (!values) return [];
      if (values.length > MAX_FILTER_VALUES) throw new AnalyticsError(`filter.${name} takes at most ${MAX_FILTER_VALUES} values.`);
      return [...new Set(values)];
    };
    const directories = list('directories', filter.directories);
    const bad = directories.find((d) => !d.startsWith('/'));
    if (bad !== undefined) throw new AnalyticsError(`filter.directories: ${JSON.stringify(bad)} must start with '/'.`);
    return {
      clientId,
      // Records past the retention are invisible even before the retention job has deleted them.
      from: Math.max(from, this.oldestVisible()),
      to,
      resourceIds: list('resourceIds', filter.resourceIds),
      hosts: list('hosts', filter.hosts).map((h) => h.toLowerCase()),
      countries: list('countries', filter.countries).map((c) => c.toUpperCase()),
      directories,
      browsers: list('browsers', filter.browsers),
      devices: list('devices', filter.devices),
      operatingSystems: list('operatingSystems', filter.operatingSystems),
    };
  }
}

function once<T>(compute: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => (result ??= compute());
}
