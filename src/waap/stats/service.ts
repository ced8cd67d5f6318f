// Statistics of the request log: top keys of one dimension split by decision, and the traffic series per
// time bucket, both aggregated by the block queries over exactly the events the filter selects.
import { type EventLog, type FieldName, type KeyTotals, TRAFFIC_TYPE_BITS } from '../request-events/log/index.js';
import type { RequestEventService } from '../request-events/service.js';
import { StatsQuery, TRAFFIC_FIELDS, TrafficQuery, type StatDimension } from './schemas.js';
import { TimeSlicer } from '../../platform/cooperative.js';
import { fixedShape } from '../../platform/fixed-shape.js';

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

/**
 * The parameters an endpoint declares. The others are ignored, as unknown parameters are everywhere: the
 * request log's filters (`path`, `decision`...) reached the shared filter as plain strings, where it
 * expects lists, and answered 500.
 */
function declared(query: Record<string, unknown>, schema: { properties: Record<string, unknown> }): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(schema.properties)
      .filter((key) => key in query)
      .map((key) => [key, query[key]]),
  );
}

export class StatsService {
  constructor(
    private readonly log: EventLog,
    private readonly events: RequestEventService,
  ) {}

  async simple(clientId: number, dimension: StatDimension, query: Record<string, unknown>) {
    const filter = this.events.filter(clientId, declared(query, StatsQuery));
    const { keys, described } = await this.log.run('topKeys', filter, STAT_FIELDS[dimension], TOP, query.order_by === 'threats.desc' ? 'threats' : 'total');
    const series = (field: 'total' | 'blocked' | 'monitored' | 'allowed'): Pair[] =>
      keys
        .map((k) => [k.key, k[field]] as Pair)
        .filter(([, n]) => field === 'total' || n > 0)
        .sort((a, b) => b[1] - a[1]);
    return {
      total: series('total'),
      blocked: series('blocked'),
      suppressed: series('monitored'),
      allowed: series('allowed'),
      reference: reference(dimension, keys, described),
    };
  }

  /** The traffic series, one object per bucket with events, oldest first. */
  async traffic(clientId: number, query: Record<string, unknown> & { resolution: keyof typeof RESOLUTION_SECONDS; bucket_size?: number }) {
    const filter = this.events.filter(clientId, declared(query, TrafficQuery));
    const bucketMs = (query.bucket_size ?? RESOLUTION_SECONDS[query.resolution]) * 1000;
    const counts = await this.log.run('traffic', filter, bucketMs);
    const series: Record<string, number>[] = [];
    let b: Record<string, number> | undefined;
    // A minute's resolution over 30 days is hundreds of thousands of combinations: other requests get a
    // turn of the event loop between slices of them.
    const slicer = new TimeSlicer();
    for (let i = 0; i < counts.bucket.length; i += 1) {
      if (slicer.spent()) await slicer.nextSlice();
      const n = counts.events[i];
      if (!b || b.timestamp !== counts.bucket[i] / 1000) {
        b = emptyBucket([counts.bucket[i] / 1000, ...NO_TRAFFIC]) as Record<string, number>;
        series.push(b);
      }
      b.total += n;
      const decision = counts.decisions[counts.decision[i]];
      if (decision === 'blocked') {
        b.policyBlocked += n;
      } else {
        b.passedToOrigin += n;
        if (decision === 'passed') b.uncategorized += n;
        if (decision === 'monitored') b.monitored += n;
        if (decision === 'allowed') b.customAllowed += n;
        const cls = STATUS_FIELDS[counts.statusClass[i]];
        if (cls) b[cls] += n;
      }
      for (const [type, bit] of TYPE_BITS) if (counts.types[i] & bit) b[type] += n;
    }
    return series;
  }
}

// A bucket of the traffic series: one object literal of a fixed shape (a series can have thousands).
const emptyBucket = fixedShape(['timestamp', ...TRAFFIC_FIELDS]);
const NO_TRAFFIC = TRAFFIC_FIELDS.map(() => 0);
const TYPE_BITS = Object.entries(TRAFFIC_TYPE_BITS);

/** What the keys are: the domain of a target, the country and organisation of an IP (null otherwise). */
function reference(dimension: StatDimension, keys: KeyTotals[], described: Record<string, { country: string; organization: string }>) {
  if (dimension === 'target') return Object.fromEntries(keys.map((k) => [k.key, { domain_id: k.domain_id }]));
  if (dimension !== 'ip') return null;
  return Object.fromEntries(
    keys.filter((k) => described[k.key]).map((k) => [k.key, { country: described[k.key].country, org: described[k.key].organization }]),
  );
}
