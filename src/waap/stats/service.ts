// Statistics of the request log: top keys of one dimension split by decision, and the traffic series per
// time bucket. Both read counters kept at ingestion (hourly per dimension value, per minute for traffic)
// for the whole periods of the range and count the events of the partial periods at its edges, so they
// equal a count of the stored events exactly. A filter the counters do not carry (client IPs) reads the
// events of those IPs through their index instead.
import type { Condition, EventFilter } from '../request-events/filter.js';
import { ceilHour, ceilMinute, floorHour, floorMinute, STAT_COLUMNS, TRAFFIC_TYPE_BITS } from '../request-events/rollups.js';
import type { RequestEventService } from '../request-events/service.js';
import type { EventStore, KeyCount, TrafficCount } from '../request-events/store.js';
import { TRAFFIC_FIELDS, type StatDimension } from './schemas.js';

const TOP = 20;
const RESOLUTION_SECONDS = { daily: 86400, hourly: 3600, minutely: 60 } as const;
/** Columns both the events and the counter tables have, so their filters apply to either. */
const STAT_FILTER_COLUMNS = new Set(['domain_id', 'rule_name']);
const TRAFFIC_FILTER_COLUMNS = new Set(['domain_id']);
const STATUS_FIELDS: Record<number, string> = { 2: 'origin2xx', 3: 'origin3xx', 4: 'originError4xx', 5: 'originError5xx' };

type Pair = [string, number];

/** The filter's conditions when every one can be applied to a counter table, else undefined. */
function counterConditions(filter: EventFilter, columns: Set<string>): Condition[] | undefined {
  return filter.conditions.every((c) => c.kind === 'in' && columns.has(c.column)) ? filter.conditions : undefined;
}

export class StatsService {
  constructor(
    private readonly store: EventStore,
    private readonly events: RequestEventService,
  ) {}

  async simple(clientId: number, dimension: StatDimension, query: Record<string, unknown>) {
    const filter = this.events.filter(clientId, query);
    const counts = await this.countBy(filter, dimension);
    const totals = new Map<string, Record<string, number>>();
    const domainOf = new Map<string, number>();
    for (const r of counts) {
      if (r.key === '') continue;
      const entry = totals.get(r.key) ?? { total: 0, blocked: 0, monitored: 0, allowed: 0, passed: 0 };
      entry.total += r.n;
      entry[r.decision] = (entry[r.decision] ?? 0) + r.n;
      totals.set(r.key, entry);
      if (!domainOf.has(r.key) || r.domain_id < domainOf.get(r.key)!) domainOf.set(r.key, r.domain_id);
    }
    const rank = (e: Record<string, number>) => (query.order_by === 'threats.desc' ? e.blocked + e.monitored : e.total);
    const keys = [...totals.keys()].sort((a, b) => rank(totals.get(b)!) - rank(totals.get(a)!) || (a < b ? -1 : a > b ? 1 : 0)).slice(0, TOP);
    const series = (field: string): Pair[] =>
      keys.map((k) => [k, totals.get(k)![field] ?? 0] as Pair).filter(([, n]) => field === 'total' || n > 0).sort((a, b) => b[1] - a[1]);
    return {
      total: series('total'),
      blocked: series('blocked'),
      suppressed: series('monitored'),
      allowed: series('allowed'),
      reference: await this.reference(filter, dimension, keys, domainOf),
    };
  }

  /** Counts per key, decision and domain: counters for the whole hours, events for the partial ones. */
  private async countBy(filter: EventFilter, dimension: StatDimension): Promise<KeyCount[]> {
    const column = STAT_COLUMNS[dimension];
    const conditions = counterConditions(filter, STAT_FILTER_COLUMNS);
    const h0 = ceilHour(filter.from);
    const h1 = floorHour(filter.toExcl);
    if (!conditions || h0 >= h1) return this.store.countBy(filter, column, filter.from, filter.toExcl);
    const parts = await Promise.all([
      this.store.countBy(filter, column, filter.from, h0),
      this.store.countByFromCounters(filter, dimension, conditions, h0, h1),
      this.store.countBy(filter, column, h1, filter.toExcl),
    ]);
    return parts.flat();
  }

  private async reference(filter: EventFilter, dimension: StatDimension, keys: string[], domainOf: Map<string, number>) {
    if (dimension === 'target') return Object.fromEntries(keys.map((k) => [k, { domain_id: domainOf.get(k)! }]));
    if (dimension !== 'ip') return null;
    // The IPs' own rows, found through the (client, IP) index.
    const samples = await this.store.sampleBy(filter, 'client_ip', keys);
    return Object.fromEntries(samples.map((row) => [row.client_ip, { country: row.country, org: row.organization }]));
  }

  async traffic(clientId: number, query: Record<string, unknown> & { resolution: keyof typeof RESOLUTION_SECONDS; bucket_size?: number }) {
    const filter = this.events.filter(clientId, query);
    const bucketMs = (query.bucket_size ?? RESOLUTION_SECONDS[query.resolution]) * 1000;
    const buckets = new Map<number, Record<string, number>>();
    for (const r of await this.trafficCounts(filter, bucketMs)) {
      let b = buckets.get(r.bucket);
      if (!b) {
        b = { timestamp: r.bucket / 1000, ...Object.fromEntries(TRAFFIC_FIELDS.map((f) => [f, 0])) };
        buckets.set(r.bucket, b);
      }
      b.total += r.n;
      if (r.decision === 'blocked') {
        b.policyBlocked += r.n;
      } else {
        b.passedToOrigin += r.n;
        if (r.decision === 'passed') b.uncategorized += r.n;
        if (r.decision === 'monitored') b.monitored += r.n;
        if (r.decision === 'allowed') b.customAllowed += r.n;
        const cls = STATUS_FIELDS[r.status_class];
        if (cls) b[cls] += r.n;
      }
      for (const [type, bit] of Object.entries(TRAFFIC_TYPE_BITS)) if (r.types & bit) b[type] += r.n;
    }
    return [...buckets.values()].sort((a, b) => a.timestamp - b.timestamp);
  }

  /** Counts per bucket: per-minute counters for the whole minutes, events for the partial ones. */
  private async trafficCounts(filter: EventFilter, bucketMs: number): Promise<TrafficCount[]> {
    const conditions = counterConditions(filter, TRAFFIC_FILTER_COLUMNS);
    const m0 = ceilMinute(filter.from);
    const m1 = floorMinute(filter.toExcl);
    if (!conditions || m0 >= m1) return this.store.trafficBuckets(filter, bucketMs, filter.from, filter.toExcl);
    const parts = await Promise.all([
      this.store.trafficBuckets(filter, bucketMs, filter.from, m0),
      this.store.trafficFromCounters(filter, bucketMs, conditions, m0, m1),
      this.store.trafficBuckets(filter, bucketMs, m1, filter.toExcl),
    ]);
    return parts.flat();
  }
}
