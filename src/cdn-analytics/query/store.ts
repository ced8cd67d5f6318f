// SQL of the analytics: one client's access records in a window, filtered, grouped by dimensions and
// time bucket. Unique visitors are COUNT(DISTINCT visitor) in each group (and over the whole window for
// the totals), never a sum of smaller groups. No rules here: the service has checked every argument.
import { type Expression, type ExpressionBuilder, type Kysely, type SelectQueryBuilder, sql, type SqlBool } from 'kysely';
import type { AccessRecordTables } from '../records/store.js';
import type { Readers } from '../../platform/db/readers.js';

export const DIMENSION_COLUMNS = ['country', 'directory', 'browser', 'device', 'os'] as const;
export type DimensionColumn = (typeof DIMENSION_COLUMNS)[number];
export type SortKey = 'bucket' | 'requests' | 'traffic' | 'unique_visitors';

export interface TrafficSelection {
  clientId: number;
  from: number;
  /** Exclusive. */
  to: number;
  resourceIds: number[];
  hosts: string[];
  countries: string[];
  directories: string[];
  browsers: string[];
  devices: string[];
  operatingSystems: string[];
}

export interface Grouping {
  dimensions: DimensionColumn[];
  bucketMs: number | null;
  sort: { key: SortKey; descending: boolean };
  limit: number;
  offset: number;
}

export interface Totals {
  requests: number;
  traffic: number;
  uniqueVisitors: number;
}

export interface GroupRow extends Totals {
  bucket: number | null;
  country?: string;
  directory?: string;
  browser?: string;
  device?: string;
  os?: string;
}

type Db = Kysely<AccessRecordTables>;
type Eb = ExpressionBuilder<AccessRecordTables, 'cdn_access_records'>;

export class AnalyticsStore {
  private readonly db: Db;

  /** Kysely builds the SQL; `readers` runs it (off the main thread when it can). */
  constructor(
    db: Kysely<any>,
    private readonly readers: Readers,
  ) {
    this.db = db as Db;
  }

  private selection(s: TrafficSelection) {
    let q = this.db.selectFrom('cdn_access_records').where('client_id', '=', s.clientId).where('ts', '>=', s.from).where('ts', '<', s.to);
    if (s.resourceIds.length > 0) q = q.where('resource_id', 'in', s.resourceIds);
    if (s.hosts.length > 0) q = q.where('host', 'in', s.hosts);
    if (s.countries.length > 0) q = q.where('country', 'in', s.countries);
    if (s.browsers.length > 0) q = q.where('browser', 'in', s.browsers);
    if (s.devices.length > 0) q = q.where('device', 'in', s.devices);
    if (s.operatingSystems.length > 0) q = q.where('os', 'in', s.operatingSystems);
    // A directory filter is a path prefix; substr compares literally where LIKE would treat % and _ specially.
    if (s.directories.length > 0) q = q.where((eb: Eb) => eb.or(s.directories.map((prefix) => prefixMatch(eb, prefix))));
    return q;
  }

  async totals(s: TrafficSelection): Promise<Totals> {
    const query = this.selection(s).select([
      sql<number>`count(*)`.as('requests'),
      sql<number>`coalesce(sum(bytes), 0)`.as('traffic'),
      sql<number>`count(distinct visitor)`.as('unique_visitors'),
    ]);
    const [row] = await this.readers.all<{ requests: number; traffic: number; unique_visitors: number }>(query.compile());
    return { requests: Number(row.requests), traffic: Number(row.traffic), uniqueVisitors: Number(row.unique_visitors) };
  }

  private grouped(s: TrafficSelection, g: Pick<Grouping, 'dimensions' | 'bucketMs'>) {
    const keys: string[] = [...(g.bucketMs ? ['bucket'] : []), ...g.dimensions];
    let q = this.selection(s).select([
      sql<number>`count(*)`.as('requests'),
      sql<number>`sum(bytes)`.as('traffic'),
      sql<number>`count(distinct visitor)`.as('unique_visitors'),
    ]) as unknown as SelectQueryBuilder<AccessRecordTables, 'cdn_access_records', Record<string, unknown>>;
    if (g.bucketMs) q = q.select(sql<number>`ts - (ts % ${sql.lit(g.bucketMs)})`.as('bucket'));
    for (const column of g.dimensions) q = q.select(sql.ref(column).as(column) as never);
    return { q: keys.length > 0 ? q.groupBy(keys.map((k) => sql.ref(k)) as never) : q, keys };
  }

  /** How many rows the grouping yields before limit and offset. */
  async countGroups(s: TrafficSelection, g: Pick<Grouping, 'dimensions' | 'bucketMs'>): Promise<number> {
    const { q } = this.grouped(s, g);
    const query = this.db.selectFrom(q.as('groups') as never).select(sql<number>`count(*)`.as('n'));
    const [row] = await this.readers.all<{ n: number }>(query.compile());
    return Number(row.n);
  }

  async groups(s: TrafficSelection, g: Grouping): Promise<GroupRow[]> {
    const { q, keys } = this.grouped(s, g);
    const direction = g.sort.descending ? 'desc' : 'asc';
    // The keys break ties, so equal counts always come back in the same order on both engines.
    let ordered = q.orderBy(sql.ref(g.sort.key), direction);
    for (const key of keys) if (key !== g.sort.key) ordered = ordered.orderBy(sql.ref(key), 'asc');
    const rows = await this.readers.all<Record<string, unknown>>(ordered.limit(g.limit).offset(g.offset).compile());
    return rows.map((row) => {
      const out: GroupRow = {
        bucket: row.bucket === undefined ? null : Number(row.bucket),
        requests: Number(row.requests),
        traffic: Number(row.traffic),
        uniqueVisitors: Number(row.unique_visitors),
      };
      for (const column of g.dimensions) out[column] = String(row[column]);
      return out;
    });
  }
}

function prefixMatch(eb: Eb, prefix: string): Expression<SqlBool> {
  return eb(sql`substr(path, 1, ${sql.lit(prefix.length)})`, '=', prefix);
}
