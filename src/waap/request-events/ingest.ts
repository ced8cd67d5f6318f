// Bulk ingestion: newline-delimited JSON records, each validated on its own, written in batches. A bad
// line is reported with its number and never costs the good lines around it.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../platform/clock.js';
import { ajvErrorsToFields, FULL_FORMATS_CODE, safeIntegers, unstorableErrors } from '../../platform/validation.js';
import { IngestRecord, type IngestReport } from './schemas.js';
import { headersText } from './headers.js';
import type { EventLog, EventRow } from './log/index.js';
import { parseInstant, RETENTION_MS } from './time.js';
import { TimeSlicer, yieldToLoop } from '../../platform/cooperative.js';
import type { SchemaCode } from '../../platform/schema-code.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => void;

/** What a record is checked against: integers within the safe range, as every API body (1e20 is not a time; JSON's 1e309 is Infinity). */
export const RECORD_SCHEMA = safeIntegers(IngestRecord);

/**
 * The record validator's compiler. `source` makes one whose validator the build writes into its pack of
 * compiled code (the same options, so the same validation). Without the meta-schema check: the schema is
 * TypeBox's and checked by the tests, and compiling the meta-schema first was a third of the first ingestion.
 */
export function makeRecordAjv(source = false): Ajv {
  const ajv = new Ajv({
    allErrors: false,
    strict: false,
    validateSchema: false,
    ...(source ? { code: { source: true, formats: FULL_FORMATS_CODE } } : {}),
  });
  addFormats(ajv);
  return ajv;
}

/**
 * The record validator, made on first use: loaded from the build's compiled code when there is some
 * (about a millisecond), else compiled (the first ingestion took 45-60 ms doing so).
 */
export function recordValidator(ahead?: SchemaCode): () => ValidateFunction {
  // The build's collector is told now: nothing ingests while it builds.
  if (ahead?.collects) ahead.validator('waap-record', RECORD_SCHEMA);
  let validate: ValidateFunction | undefined;
  return () => (validate ??= ahead?.validator('waap-record', RECORD_SCHEMA) ?? makeRecordAjv().compile(RECORD_SCHEMA));
}

/** Rows per transaction: a batch is encoded per client and hour, so bigger batches write fewer, fuller blocks. */
export const BATCH = 20_000;
const MAX_REPORTED = 100;
const NEWLINE = 0x0a;

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

/** Why a line was refused, when its detail will not be reported (past the first MAX_REPORTED errors). */
const UNREPORTED = 'refused';

/**
 * One line as a valid record, or why it is not one. Error details are built only for bad lines, and only
 * when `detailed`: a body of a million bad lines reports a hundred, and describing the rest cost more
 * than parsing them.
 */
export function parseRecord(source: string, validateRecord: ValidateFunction, detailed = true): IngestRecord | string {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    return detailed ? `invalid JSON: ${(error as Error).message}` : UNREPORTED;
  }
  const errors = validateRecord(value) ? unstorableErrors(value) : validateRecord.errors;
  if (errors)
    return detailed
      ? ajvErrorsToFields(errors, 'body')
          .map((f) => `${f.path.join('.') || 'record'}: ${f.message}`)
          .join('; ')
      : UNREPORTED;
  return value as IngestRecord;
}

/** How far ahead of the server clock an event may be stamped (clock skew between a log and its source). */
export const MAX_FUTURE_MS = 86_400_000;

/** The row of a valid record, or why it is refused (unknown domain, bad, expired or future time). */
export function checkedRow(record: IngestRecord, domain: DomainInfo | null, cutoff: number, latest: number): EventRow | string {
  if (!domain) return `domain_id: domain ${record.domain_id} does not exist`;
  const time = typeof record.request_time === 'number' ? record.request_time : parseInstant(record.request_time);
  if (time === undefined) return 'request_time: not a valid ISO 8601 date-time';
  if (time < cutoff) return 'request_time: older than the 30-day retention';
  if (time > latest) return 'request_time: more than a day after the server clock';
  return toRow(record, domain);
}

export class EventIngestor {
  constructor(
    private readonly log: Pick<EventLog, 'insert'>,
    private readonly domains: DomainLookup,
    private readonly clock: Clock,
    /** Told after each ingestion (compaction looks for hours left with many small blocks). */
    private readonly stored: () => void = () => {},
    private readonly validator: () => ValidateFunction = recordValidator(),
  ) {}

  /**
   * Ingests NDJSON; blank lines are skipped, every other line is accepted or reported. The body stays
   * bytes and each line is decoded on its own: turning a body of up to 256 MiB into one string held the
   * main thread in one piece (a newline byte is never inside a UTF-8 character, so lines split safely).
   */
  async ingest(body: Buffer): Promise<IngestReport> {
    const report: IngestReport = { accepted: 0, rejected: 0, errors: [] };
    const reject = (line: number, detail: string) => {
      report.rejected += 1;
      if (report.errors.length < MAX_REPORTED) report.errors.push({ line, detail });
    };
    const domains = new Map<number, DomainInfo | null>();
    let rows: EventRow[] = [];
    let lines: number[] = [];
    const flush = async () => {
      const inserted = await this.log.insert(rows);
      for (let i = 0; i < inserted.length; i += 1) {
        if (inserted[i]) report.accepted += 1;
        else reject(lines[i], `duplicate request id ${rows[i].id}`);
      }
      rows = [];
      lines = [];
      await yieldToLoop();
    };
    const now = this.clock.now();
    const cutoff = now - RETENTION_MS;
    // Lines are parsed and checked on the main thread: it yields to other requests between slices, not
    // only between batches (lines that are all refused never fill a batch; a million of them held the
    // server for seconds).
    const slicer = new TimeSlicer();
    const validateRecord = this.validator();
    let start = 0;
    for (let line = 1; start < body.length; line += 1) {
      if (slicer.spent()) await slicer.nextSlice();
      let end = body.indexOf(NEWLINE, start);
      if (end < 0) end = body.length;
      const source = body.toString('utf8', start, end).trim();
      start = end + 1;
      if (source === '') continue;
      const record = parseRecord(source, validateRecord, report.errors.length < MAX_REPORTED);
      if (typeof record === 'string') {
        reject(line, record);
        continue;
      }
      // Awaited only the first time a domain is met: a promise per line was a measurable cost.
      if (!domains.has(record.domain_id)) domains.set(record.domain_id, await this.lookUp(record.domain_id));
      const row = checkedRow(record, domains.get(record.domain_id)!, cutoff, now + MAX_FUTURE_MS);
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
      accepted += (await this.log.insert(rows.slice(i, i + BATCH))).filter(Boolean).length;
      await yieldToLoop();
    }
    this.stored();
    return accepted;
  }
}
