// Statistics computed from the stored events: top keys of one dimension split by decision, and the
// traffic series per time bucket.
import type { RequestEventService } from '../request-events/service.js';
import type { EventStore } from '../request-events/store.js';
import { TRAFFIC_FIELDS, type StatDimension } from './schemas.js';

const COLUMNS: Record<StatDimension, string> = {
  country: 'country',
  rule: 'rule_name',
  org: 'organization',
  ip: 'client_ip',
  useragent: 'user_agent',
  target: 'domain',
};

const TOP = 20;
const RESOLUTION_SECONDS = { daily: 86400, hourly: 3600, minutely: 60 } as const;

type Pair = [string, number];

export class StatsService {
  constructor(
    private readonly store: EventStore,
    private readonly events: RequestEventService,
  ) {}

  async simple(clientId: number, dimension: StatDimension, query: Record<string, unknown>) {
    const filter = this.events.filter(clientId, query);
    const column = COLUMNS[dimension];
    const rows = (await this.store.countBy(filter, column, TOP + 1, query.order_by === 'threats.desc')).filter((r) => r.key !== '');
    const totals = new Map<string, Record<string, number>>();
    for (const r of rows) {
      const entry = totals.get(r.key) ?? { total: 0, blocked: 0, monitored: 0, allowed: 0, passed: 0 };
      entry.total += r.n;
      entry[r.decision] = (entry[r.decision] ?? 0) + r.n;
      totals.set(r.key, entry);
    }
    const rank = (e: Record<string, number>) => (query.order_by === 'threats.desc' ? e.blocked + e.monitored : e.total);
    const keys = [...totals.keys()].sort((a, b) => rank(totals.get(b)!) - rank(totals.get(a)!) || a.localeCompare(b)).slice(0, TOP);
    const series = (field: string): Pair[] =>
      keys.map((k) => [k, totals.get(k)![field] ?? 0] as Pair).filter(([, n]) => field === 'total' || n > 0).sort((a, b) => b[1] - a[1]);
    return {
      total: series('total'),
      blocked: series('blocked'),
      suppressed: series('monitored'),
      allowed: series('allowed'),
      reference: await this.reference(filter, dimension, column, keys),
    };
  }

  private async reference(filter: ReturnType<RequestEventService['filter']>, dimension: StatDimension, column: string, keys: string[]) {
    if (dimension !== 'ip' && dimension !== 'target') return null;
    const samples = await this.store.sampleBy(filter, column, keys);
    const out: Record<string, { country: string; org: string } | { domain_id: number }> = {};
    for (const row of samples) {
      if (dimension === 'ip') out[row.client_ip] = { country: row.country, org: row.organization };
      else out[row.domain] = { domain_id: Number(row.domain_id) };
    }
    return out;
  }

  async traffic(clientId: number, query: Record<string, unknown> & { resolution: keyof typeof RESOLUTION_SECONDS; bucket_size?: number }) {
    const filter = this.events.filter(clientId, query);
    const bucketSeconds = query.bucket_size ?? RESOLUTION_SECONDS[query.resolution];
    const rows = await this.store.trafficBuckets(filter, bucketSeconds * 1000);
    const buckets = new Map<number, Record<string, number>>();
    for (const r of rows) {
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
        const cls = ({ 2: 'origin2xx', 3: 'origin3xx', 4: 'originError4xx', 5: 'originError5xx' } as Record<number, string>)[r.status_class];
        if (cls) b[cls] += r.n;
      }
      const types = r.traffic_types.split(',');
      for (const t of ['api', 'ajax', 'static']) if (types.includes(t)) b[t] += r.n;
    }
    return [...buckets.values()].sort((a, b) => a.timestamp - b.timestamp);
  }
}
