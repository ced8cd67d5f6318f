// Bulk ingestion: newline-delimited JSON records, each validated on its own, written in batches. A bad
// line is reported with its number and never costs the good lines around it.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../platform/clock.js';
import { ajvErrorsToFields } from '../../platform/validation.js';
import { IngestRecord, type IngestReport } from './schemas.js';
import type { EventRow } from './block-format.js';
import type { EventStore } from './store.js';
import { parseInstant, RETENTION_MS } from './time.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => void;
let validator: ValidateFunction | undefined;

/** The record validator, compiled on first use: compiling it takes tens of milliseconds of start-up. */
export function recordValidator(): ValidateFunction {
  if (!validator) {
    const ajv = new Ajv({ allErrors: false, strict: false });
    addFormats(ajv);
    validator = ajv.compile(IngestRecord as object);
  }
  return validator;
}

/** Rows per transaction: counters are summed per batch, so bigger batches write fewer counter rows. */
export const BATCH = 20_000;
const MAX_REPORTED = 100;

/**
 * Lets other requests in between batches: SQLite writes synchronously, and awaiting a settled promise
 * alone never leaves the microtask queue, so a large body would otherwise hold the server until done.
 */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface DomainInfo {
  client_id: number;
  name: string;
}

export interface DomainLookup {
  owner(id: number): Promise<{ client_id: number; name: string } | undefined>;
}

const ACTIONS: Record<string, string> = { blocked: 'block', monitored: 'allow', allowed: 'allow', passed: 'allow' };
const RESULTS: Record<string, string> = { blocked: 'blocked', monitored: 'suppressed', allowed: 'passed', passed: 'passed' };

let counter = 0;
let pool = '';
/**
 * A request id in the provider's form: 32 hex characters, a dash, six digits. The first 12 hex digits
 * are the time of ingestion, so new ids land at the end of the id index instead of at random pages (a
 * random-order index costs several times more per insert at millions of rows); the rest is random.
 */
export function newRequestId(now: number): string {
  counter = (counter + 1) % 1_000_000;
  if (pool.length < 20) pool = randomBytes(4096).toString('hex');
  const random = pool.slice(0, 20);
  pool = pool.slice(20);
  return `${now.toString(16).padStart(12, '0').slice(-12)}${random}-${String(counter).padStart(6, '0')}`;
}

/** A validated record as a stored row of the domain's client. */
export function toRow(record: IngestRecord, domain: DomainInfo): EventRow {
  const time = typeof record.request_time === 'number' ? record.request_time : parseInstant(record.request_time)!;
  const ua = record.user_agent ?? {};
  const userAgent = ua.full_string ?? '';
  const optional = record.optional_action ?? '';
  const tags = [...(record.pattern_matched_tags ?? []), ...(record.common_tags ?? [])].map((t) => t.tag.toLowerCase());
  return {
    client_id: domain.client_id,
    request_time: time,
    id: record.id ?? newRequestId(Date.now()),
    domain_id: record.domain_id,
    domain: domain.name,
    decision: record.decision,
    optional_action: optional,
    action: record.action ?? (optional === 'captcha' ? 'captcha' : optional === 'challenge' ? 'handshake' : ACTIONS[record.decision]),
    result: record.result ?? RESULTS[record.decision],
    client_ip: record.network.client_ip,
    country: record.network.country,
    method: record.method,
    path: record.path,
    status_code: record.http_status_code,
    rule_id: record.rule_id ?? '',
    rule_name: record.rule_name ?? '',
    reference_id: record.reference_id ?? '',
    session_id: record.session_id ?? '',
    user_agent: userAgent,
    user_agent_client: ua.client ?? '',
    user_agent_device: ua.device ?? '',
    organization: record.network.organization?.name ?? '',
    traffic_types: (record.traffic_types ?? []).join(','),
    tags: tags.length ? `,${tags.join(',')},` : '',
    scheme: record.scheme ?? 'https',
    http_version: record.http_version ?? '1.1',
    ja3: (record.ja3 ?? '').toLowerCase(),
    ja4: record.ja4 ?? '',
    ua_client_version: ua.client_version ?? '',
    ua_base_browser: ua.base_browser ?? '',
    ua_base_browser_version: ua.base_browser_version ?? '',
    ua_os: ua.os ?? '',
    ua_device_type: ua.device_type ?? '',
    ua_cpu: ua.cpu ?? '',
    ua_rendering_engine: ua.rendering_engine ?? '',
    ua_client_type: ua.client_type ?? '',
    subnet: record.network.organization?.subnet ?? '',
    content_type: record.content_type ?? '',
    response_time: record.response_time ?? '',
    request_headers: headersText(record.request_headers ?? {}, userAgent),
    incident_id: record.incident_id ?? '',
    request_type: record.request_type ?? '',
    session_request_count: record.session_request_count ?? '',
    requested_domain: record.requested_domain ?? domain.name,
    query_string: record.query_string ?? '',
    pattern_matched_tags: jsonList(record.pattern_matched_tags),
    common_tags: jsonList(record.common_tags),
    detector: jsonList(record.detector),
  };
}

const EMPTY_LIST = '[]';

/** A list as stored JSON; most events have none, and one shared string costs nothing to encode. */
function jsonList(list: readonly unknown[] | undefined): string {
  return list?.length ? JSON.stringify(list) : EMPTY_LIST;
}

/**
 * Request headers as stored: JSON, with a User-Agent header that repeats the event's user agent as null,
 * so the headers of one site repeat exactly and share one dictionary entry per block.
 */
export function headersText(headers: Record<string, string>, userAgent: string): string {
  if (headers['user-agent'] === undefined || headers['user-agent'] !== userAgent) return JSON.stringify(headers);
  return JSON.stringify({ ...headers, 'user-agent': null });
}

/** The stored headers back as the record's object. */
export function headersFromText(text: string, userAgent: string): Record<string, string> {
  const headers = JSON.parse(text) as Record<string, string | null>;
  for (const [name, value] of Object.entries(headers)) if (value === null) headers[name] = userAgent;
  return headers as Record<string, string>;
}

/** One line as a valid record, or why it is not one. Error details are built only for bad lines. */
export function parseRecord(source: string): IngestRecord | string {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    return `invalid JSON: ${(error as Error).message}`;
  }
  const validateRecord = recordValidator();
  if (!validateRecord(value)) {
    return ajvErrorsToFields(validateRecord.errors ?? [], 'body').map((f) => `${f.path.join('.') || 'record'}: ${f.message}`).join('; ');
  }
  return value as IngestRecord;
}

/** The row of a valid record, or why it is refused (unknown domain, bad or expired time). */
export function checkedRow(record: IngestRecord, domain: DomainInfo | null, cutoff: number): EventRow | string {
  if (!domain) return `domain_id: domain ${record.domain_id} does not exist`;
  const time = typeof record.request_time === 'number' ? record.request_time : parseInstant(record.request_time);
  if (time === undefined) return 'request_time: not a valid ISO 8601 date-time';
  if (time < cutoff) return 'request_time: older than the 30-day retention';
  return toRow(record, domain);
}

export class EventIngestor {
  constructor(
    private readonly store: EventStore,
    private readonly domains: DomainLookup,
    private readonly clock: Clock,
    /** Told after each ingestion (compaction looks for hours left with many small blocks). */
    private readonly stored: () => void = () => {},
  ) {}

  /** Ingests NDJSON text; blank lines are skipped, every other line is accepted or reported. */
  async ingestText(text: string): Promise<IngestReport> {
    const report: IngestReport = { accepted: 0, rejected: 0, errors: [] };
    const reject = (line: number, detail: string) => {
      report.rejected += 1;
      if (report.errors.length < MAX_REPORTED) report.errors.push({ line, detail });
    };
    const domains = new Map<number, DomainInfo | null>();
    let rows: EventRow[] = [];
    let lines: number[] = [];
    const flush = async () => {
      const inserted = await this.store.insertBatch(rows);
      for (let i = 0; i < inserted.length; i += 1) {
        if (inserted[i]) report.accepted += 1;
        else reject(lines[i], `duplicate request id ${rows[i].id}`);
      }
      rows = [];
      lines = [];
      await yieldToLoop();
    };
    const cutoff = this.clock.now() - RETENTION_MS;
    let start = 0;
    for (let line = 1; start < text.length; line += 1) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      const source = text.slice(start, end).trim();
      start = end + 1;
      if (source === '') continue;
      const record = parseRecord(source);
      if (typeof record === 'string') {
        reject(line, record);
        continue;
      }
      // Awaited only the first time a domain is met: a promise per line was a measurable cost.
      if (!domains.has(record.domain_id)) domains.set(record.domain_id, await this.lookUp(record.domain_id));
      const row = checkedRow(record, domains.get(record.domain_id)!, cutoff);
      if (typeof row === 'string') reject(line, row);
      else {
        rows.push(row);
        lines.push(line);
      }
      if (rows.length >= BATCH) await flush();
    }
    if (rows.length > 0) await flush();
    this.stored();
    return report;
  }

  private async lookUp(domainId: number): Promise<DomainInfo | null> {
    const owner = await this.domains.owner(domainId);
    return owner ? { client_id: Number(owner.client_id), name: owner.name } : null;
  }

  /** Ingests rows already built (the generator); returns how many were new. */
  async ingestRows(rows: EventRow[]): Promise<number> {
    let accepted = 0;
    for (let i = 0; i < rows.length; i += BATCH) {
      accepted += (await this.store.insertBatch(rows.slice(i, i + BATCH))).filter(Boolean).length;
      await yieldToLoop();
    }
    this.stored();
    return accepted;
  }
}
