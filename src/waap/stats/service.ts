// Statistics of the request log: top keys of one dimension split by decision, and the traffic series per
// time bucket, both aggregated by the block queries over exactly the events the filter selects.
import type { FieldName } from '../request-events/block-format.js';
import { TRAFFIC_TYPE_BITS } from '../request-events/block-stats.js';
import type { EventQueries } from '../request-events/queries.js';
import type { RequestEventService } from '../request-events/service.js';
import { TRAFFIC_FIELDS, type StatDimension } from './schemas.js';

const TOP = 20;
const RESOLUTION_SECONDS = { daily: 86400, hourly: 3600, minutely: 60 } as const;
const STATUS_FIELDS: Record<number, string> = { 2: 'origin2xx', 3: 'origin3xx', 4: 'originError4xx', 5: 'originError5xx' };

/** The event field each statistics dimension counts. */
const STAT_FIELDS: Record<StatDimension, FieldName> = {
  country: 'country',
  rule: 'rule_name',
  org: 'organization',
  ip: 'client_ip',
  useragent: 'user_agent',
  target: 'domain',
};

type Pair = [string, number];

export class StatsService {
  constructor(
    private readonly queries: EventQueries,
    private readonly events: RequestEventService,
  ) {}

  async simple(clientId: number, dimension: StatDimension, query: Record<string, unknown>) {
    const filter = this.events.filter(clientId, query);
    const { counts, described } = await this.queries.run('countBy', filter, STAT_FIELDS[dimension]);
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
      reference: reference(dimension, keys, domainOf, described),
    };
  }

  async traffic(clientId: number, query: Record<string, unknown> & { resolution: keyof typeof RESOLUTION_SECONDS; bucket_size?: number }) {
    const filter = this.events.filter(clientId, query);
    const bucketMs = (query.bucket_size ?? RESOLUTION_SECONDS[query.resolution]) * 1000;
    const buckets = new Map<number, Record<string, number>>();
    for (const r of await this.queries.run('traffic', filter, bucketMs)) {
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
}

/** What the keys are: the domain of a target, the country and organisation of an IP (null otherwise). */
function reference(dimension: StatDimension, keys: string[], domainOf: Map<string, number>, described: Record<string, { country: string; organization: string }>) {
  if (dimension === 'target') return Object.fromEntries(keys.map((k) => [k, { domain_id: domainOf.get(k)! }]));
  if (dimension !== 'ip') return null;
  return Object.fromEntries(keys.filter((k) => described[k]).map((k) => [k, { country: described[k].country, org: described[k].organization }]));
}
