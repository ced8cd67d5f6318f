// Rules of the request-event log: query parameters become an EventFilter; counts come from hourly
// counters where the filters allow it (exact, never estimated); deep pages jump straight to the hour
// that holds the requested offset; details are looked up within the caller's domain.
import { invalid, notFound, queryField } from '../../platform/errors.js';
import type { Clock } from '../../platform/clock.js';
import { asDimensions, type Condition, type EventFilter } from './filter.js';
import { ceilHour, chooseRollup, floorHour, HOUR_MS } from './rollups.js';
import { ORDERING_FIELDS, type EventDetails, type EventSummary, type ListQuery } from './schemas.js';
import { unpackExtra } from './extra.js';
import type { EventStore, Ordering, StoredEvent } from './store.js';
import { RETENTION_MS, timeRange } from './time.js';

/** From this offset on, pages are located through the hourly counters instead of skipping rows. */
const DEEP_OFFSET = 1000;

interface Segment {
  from: number;
  toExcl: number;
  n: number;
}

/** Query parameter -> column, for the plain include/exclude list filters. */
const LIST_FILTERS: Record<string, { column: string; normalise?: (v: string) => string }> = {
  domains: { column: 'domain_id' },
  decision: { column: 'decision' },
  optional_action: { column: 'optional_action' },
  ips: { column: 'client_ip' },
  countries: { column: 'country', normalise: (v) => v.toUpperCase() },
  http_methods: { column: 'method' },
  status_codes: { column: 'status_code' },
  request_ids: { column: 'id' },
  reference_ids: { column: 'reference_id' },
  session_ids: { column: 'session_id' },
  security_rule_names: { column: 'rule_name' },
  organizations: { column: 'organization' },
  user_agent_clients: { column: 'user_agent_client' },
  user_agent_devices: { column: 'user_agent_device' },
  ja3: { column: 'ja3', normalise: (v) => v.toLowerCase() },
  ja4: { column: 'ja4' },
};

export class RequestEventService {
  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
  ) {}

  /** The events a query selects for a client (time range, filters), shared by list, export and stats. */
  filter(clientId: number, query: Record<string, unknown>): EventFilter {
    const { from, toExcl } = timeRange(String(query.start), query.end as string | undefined, this.clock.now());
    const conditions: Condition[] = [];
    for (const [param, { column, normalise }] of Object.entries(LIST_FILTERS)) {
      for (const negate of [false, true]) {
        const raw = query[negate ? `exclude_${param}` : param] as (string | number)[] | undefined;
        if (!raw?.length) continue;
        const values = [...new Set(raw.map((v) => (normalise && typeof v === 'string' ? normalise(v) : v)))];
        conditions.push({ kind: 'in', column, values, negate });
      }
    }
    for (const negate of [false, true]) {
      const prefix = negate ? 'exclude_' : '';
      const paths = query[`${prefix}path`] as string[] | undefined;
      if (paths?.length) conditions.push({ kind: 'glob', patterns: paths, negate });
      const agents = query[`${prefix}user_agent`] as string[] | undefined;
      if (agents?.length) conditions.push({ kind: 'substring', values: agents, negate });
      const tags = query[`${prefix}tags`] as string[] | undefined;
      if (tags?.length) conditions.push({ kind: 'tag', values: tags.map((t) => t.toLowerCase()), negate });
    }
    return { clientId, from, toExcl, conditions };
  }

  async list(clientId: number, query: ListQuery): Promise<{ count: number; limit: number; offset: number; results: EventSummary[] }> {
    const ordering = parseOrdering(query.ordering);
    const filter = this.filter(clientId, query);
    const { total, segments } = await this.count(filter);
    const { limit, offset } = query;
    let rows: StoredEvent[] = [];
    if (limit > 0 && offset < total) {
      rows = segments && ordering.column === 'request_time' && offset >= DEEP_OFFSET
        ? await this.deepPage(filter, segments, ordering.descending, limit, offset)
        : await this.store.page(filter, filter.from, filter.toExcl, ordering, limit, offset);
    }
    return { count: total, limit, offset, results: rows.map(toSummary) };
  }

  /**
   * The exact number of matching events. With counters: the partial hours at both edges are counted
   * row by row, the whole hours in between are summed from the counters. Segments are newest first.
   */
  async count(filter: EventFilter): Promise<{ total: number; segments?: Segment[] }> {
    const mapped = asDimensions(filter);
    const rollup = mapped && chooseRollup(mapped.dims);
    const h0 = ceilHour(filter.from);
    const h1 = floorHour(filter.toExcl);
    if (!rollup || h0 >= h1) return { total: await this.store.countRaw(filter, filter.from, filter.toExcl) };
    const [head, hours, tail] = await Promise.all([
      this.store.countRaw(filter, h1, filter.toExcl),
      this.store.countHours(rollup, filter, mapped.conditions, h0, h1),
      this.store.countRaw(filter, filter.from, h0),
    ]);
    const segments: Segment[] = [
      { from: h1, toExcl: filter.toExcl, n: head },
      ...hours.map((h) => ({ from: h.hour, toExcl: h.hour + HOUR_MS, n: h.n })),
      { from: filter.from, toExcl: h0, n: tail },
    ].filter((s) => s.n > 0);
    return { total: segments.reduce((sum, s) => sum + s.n, 0), segments };
  }

  /** Skips whole segments by their counts, then pages within the time range that remains. */
  private async deepPage(filter: EventFilter, segments: Segment[], descending: boolean, limit: number, offset: number): Promise<StoredEvent[]> {
    const ordered = descending ? segments : [...segments].reverse();
    let skipped = 0;
    for (const segment of ordered) {
      if (skipped + segment.n > offset) {
        const from = descending ? filter.from : segment.from;
        const toExcl = descending ? segment.toExcl : filter.toExcl;
        return this.store.page(filter, from, toExcl, { column: 'request_time', descending }, limit, offset - skipped);
      }
      skipped += segment.n;
    }
    return [];
  }

  async details(clientId: number, domainId: number, requestId: string): Promise<EventDetails> {
    const row = await this.store.find(clientId, domainId, requestId, this.clock.now() - RETENTION_MS);
    if (!row) throw notFound('Request');
    return toDetails(row);
  }

  /** Matching events newest first, in chunks, without holding more than one chunk in memory. */
  async *stream(filter: EventFilter, chunkSize = 2000): AsyncGenerator<EventSummary> {
    let cursor: { time: number; seq: number } | null = null;
    for (;;) {
      const rows = await this.store.chunkAfter(filter, cursor, chunkSize);
      for (const row of rows) yield toSummary(row);
      if (rows.length < chunkSize) return;
      const last = rows[rows.length - 1];
      cursor = { time: Number(last.request_time), seq: Number(last.seq) };
    }
  }
}

export function parseOrdering(ordering: string | undefined): Ordering {
  const text = ordering?.trim() || '-request_time';
  const descending = text.startsWith('-');
  const column = text.replace(/^[-+]/, '');
  if (!(ORDERING_FIELDS as readonly string[]).includes(column)) {
    throw invalid([queryField('ordering', `Input should be one of: ${ORDERING_FIELDS.flatMap((f) => [f, `-${f}`]).join(', ')}`, 'enum')]);
  }
  return { column, descending };
}

export function toSummary(row: StoredEvent): EventSummary {
  return {
    id: row.id,
    path: row.path,
    client_ip: row.client_ip,
    method: row.method,
    rule_name: row.rule_name,
    country: row.country,
    action: row.action,
    rule_id: row.rule_id,
    domain: row.domain,
    domain_id: Number(row.domain_id),
    user_agent: row.user_agent,
    user_agent_client: row.user_agent_client,
    organization: row.organization,
    request_time: Number(row.request_time),
    reference_id: row.reference_id,
    session_id: row.session_id,
    status_code: Number(row.status_code),
    result: row.result as EventSummary['result'],
    traffic_types: row.traffic_types,
    decision: row.decision,
    optional_action: row.optional_action,
    scheme: row.scheme,
    http_version: row.http_version,
    ja3: row.ja3,
  };
}

export function toDetails(row: StoredEvent): EventDetails {
  const extra = unpackExtra(row.extra, { userAgent: row.user_agent, domain: row.domain });
  return {
    id: row.id,
    path: row.path,
    method: row.method,
    action: row.action,
    rule_id: row.rule_id,
    rule_name: row.rule_name,
    user_agent: { full_string: row.user_agent, client: row.user_agent_client, device: row.user_agent_device, ...extra.ua },
    network: { client_ip: row.client_ip, country: row.country, organization: { name: row.organization, subnet: extra.subnet } },
    request_time: new Date(Number(row.request_time)).toISOString(),
    reference_id: row.reference_id,
    session_id: row.session_id,
    content_type: extra.content_type,
    scheme: row.scheme,
    http_status_code: Number(row.status_code),
    http_version: row.http_version,
    response_time: extra.response_time,
    request_headers: extra.request_headers,
    incident_id: extra.incident_id,
    request_type: extra.request_type,
    session_request_count: extra.session_request_count,
    domain: row.domain,
    requested_domain: extra.requested_domain,
    query_string: extra.query_string,
    result: row.result as EventDetails['result'],
    decision: row.decision,
    optional_action: row.optional_action,
    traffic_types: row.traffic_types === '' ? [] : row.traffic_types.split(','),
    pattern_matched_tags: extra.pattern_matched_tags,
    common_tags: extra.common_tags,
    ja3: row.ja3,
    ja4: row.ja4,
    detector: extra.detector,
  };
}
