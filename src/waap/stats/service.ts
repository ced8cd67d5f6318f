// Statistics of the request log: top keys of one dimension split by decision, and the traffic series per
// time bucket, both aggregated by the block queries over exactly the events the filter selects.
import { type EventLog, type FieldName, type KeyTotals, trafficSeriesJson } from '../request-events/log/index.js';
import type { RequestEventService } from '../request-events/service.js';
import { StatsQuery, TrafficQuery, type StatDimension } from './schemas.js';
import { piecesInSlices } from '../../platform/cooperative.js';

const TOP = 20;
const RESOLUTION_SECONDS = { daily: 86400, hourly: 3600, minutely: 60 } as const;

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

  /**
   * The traffic series' JSON (the buckets with events, oldest first): all its bytes when a reader thread
   * made them, or its pieces a time slice at a time when the query ran on the main thread (a minute's
   * resolution over 30 days is 43,200 buckets).
   */
  async trafficJson(clientId: number, query: Record<string, unknown> & { resolution: keyof typeof RESOLUTION_SECONDS; bucket_size?: number }) {
    const filter = this.events.filter(clientId, declared(query, TrafficQuery));
    const bucketMs = (query.bucket_size ?? RESOLUTION_SECONDS[query.resolution]) * 1000;
    if (this.log.offMainThread) {
      const bytes = await this.log.run('trafficJson', filter, bucketMs);
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }
    return piecesInSlices(trafficSeriesJson(await this.log.run('traffic', filter, bucketMs)));
  }
}

/** What the keys are: the domain of a target, the country and organisation of an IP (null otherwise). */
function reference(dimension: StatDimension, keys: KeyTotals[], described: Record<string, { country: string; organization: string }>) {
  if (dimension === 'target') return Object.fromEntries(keys.map((k) => [k.key, { domain_id: k.domain_id }]));
  if (dimension !== 'ip') return null;
  return Object.fromEntries(
    keys.filter((k) => described[k.key]).map((k) => [k.key, { country: described[k.key].country, org: described[k.key].organization }]),
  );
}
