// Rules of the request-event log: query parameters become an EventFilter, which the block queries answer
// (exact counts, pages in any order, details within the caller's domain), and stored events become the
// API's records.
import { invalid, notFound, queryField } from '../../platform/errors.js';
import type { Clock } from '../../platform/clock.js';
import { headersFromText } from './headers.js';
import type { Condition, Cursor, EventFilter, EventLog, EventRow, Ordering, StoredEvent } from './log/index.js';
import { ORDERING_FIELDS, type EventDetails, type EventSummary, type ListQuery } from './schemas.js';
import { RETENTION_MS, timeRange } from './time.js';

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

/**
 * Events per read of an export: each chunk is copied from a reader thread to the main thread in one
 * message, and taken apart there in one turn of the event loop, so it is kept small enough for that turn
 * to stay short.
 */
export const EXPORT_CHUNK = 1000;

export class RequestEventService {
  constructor(
    private readonly log: EventLog,
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
    const { limit, offset } = query;
    const { count, rows } = await this.log.run('list', { filter, ordering, limit, offset });
    return { count, limit, offset, results: rows.map(toSummary) };
  }

  /** The exact number of events a filter selects. */
  count(filter: EventFilter): Promise<number> {
    return this.log.run('count', filter);
  }

  async details(clientId: number, domainId: number, requestId: string): Promise<EventDetails> {
    const row = await this.log.run('details', clientId, domainId, requestId, this.clock.now() - RETENTION_MS);
    if (!row) throw notFound('Request');
    return toDetails(row);
  }

  /**
   * Matching events newest first as CSV lines of `columns` (UTF-8), a chunk at a time: formatted where the
   * events are read (a reader thread), and the next chunk read only when the caller asks for it, so a
   * consumer that waits (a slow download) holds the reads back.
   */
  async *csvChunks(filter: EventFilter, columns: string[], chunkSize = EXPORT_CHUNK): AsyncGenerator<Buffer> {
    let cursor: Cursor | null = null;
    for (;;) {
      const chunk: { bytes: Uint8Array; count: number; cursor: Cursor | null } = await this.log.run('csvChunk', filter, cursor, chunkSize, columns);
      if (chunk.count > 0) yield Buffer.from(chunk.bytes.buffer, chunk.bytes.byteOffset, chunk.bytes.byteLength);
      if (chunk.count < chunkSize || !chunk.cursor) return;
      cursor = chunk.cursor;
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
    domain_id: row.domain_id,
    user_agent: row.user_agent,
    user_agent_client: row.user_agent_client,
    organization: row.organization,
    request_time: row.request_time,
    reference_id: row.reference_id,
    session_id: row.session_id,
    status_code: row.status_code,
    result: row.result as EventSummary['result'],
    traffic_types: row.traffic_types,
    decision: row.decision,
    optional_action: row.optional_action,
    scheme: row.scheme,
    http_version: row.http_version,
    ja3: row.ja3,
  };
}

export function toDetails(row: EventRow): EventDetails {
  return {
    id: row.id,
    path: row.path,
    method: row.method,
    action: row.action,
    rule_id: row.rule_id,
    rule_name: row.rule_name,
    user_agent: {
      full_string: row.user_agent,
      client: row.user_agent_client,
      client_version: row.ua_client_version,
      base_browser: row.ua_base_browser,
      base_browser_version: row.ua_base_browser_version,
      os: row.ua_os,
      device: row.user_agent_device,
      device_type: row.ua_device_type,
      cpu: row.ua_cpu,
      rendering_engine: row.ua_rendering_engine,
      client_type: row.ua_client_type,
    },
    network: { client_ip: row.client_ip, country: row.country, organization: { name: row.organization, subnet: row.subnet } },
    request_time: new Date(row.request_time).toISOString(),
    reference_id: row.reference_id,
    session_id: row.session_id,
    content_type: row.content_type,
    scheme: row.scheme,
    http_status_code: row.status_code,
    http_version: row.http_version,
    response_time: row.response_time,
    request_headers: headersFromText(row.request_headers, row.user_agent),
    incident_id: row.incident_id,
    request_type: row.request_type,
    session_request_count: row.session_request_count,
    domain: row.domain,
    requested_domain: row.requested_domain,
    query_string: row.query_string,
    result: row.result as EventDetails['result'],
    decision: row.decision,
    optional_action: row.optional_action,
    traffic_types: row.traffic_types === '' ? [] : row.traffic_types.split(','),
    pattern_matched_tags: JSON.parse(row.pattern_matched_tags) as EventDetails['pattern_matched_tags'],
    common_tags: JSON.parse(row.common_tags) as EventDetails['common_tags'],
    ja3: row.ja3,
    ja4: row.ja4,
    detector: JSON.parse(row.detector) as EventDetails['detector'],
  };
}
