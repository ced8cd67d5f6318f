// One NDJSON line of an ingestion as a record, and a record as a stored row: parsing and validating a
// line, checking its time and building its row need nothing but the line, so large bodies do this in a
// thread of their own (ingest-thread.ts) and small ones on the main thread (ingest.ts), both through
// parseLines: both refuse and keep the same lines. What needs the database (the domain's owner,
// duplicate ids) stays with the ingestor, which places each row under its domain.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { randomBytes } from 'node:crypto';
import { ajvErrorsToFields, FULL_FORMATS_CODE, safeIntegers, unstorableErrors } from '../../platform/validation.js';
import type { SchemaCode } from '../../platform/schema-code.js';
import { IngestRecord } from './schemas.js';
import { headersText } from './headers.js';
import type { EventRow } from './log/index.js';
import { parseInstant } from './time.js';

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
/** Refused lines an ingestion describes; the rest are counted. */
export const MAX_REPORTED = 100;

/** What a row takes from its domain. */
export interface DomainInfo {
  client_id: number;
  name: string;
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

const timeOf = (record: IngestRecord) => (typeof record.request_time === 'number' ? record.request_time : parseInstant(record.request_time)!);

/** A validated record as a stored row of the domain's client (`time`: its request time in ms, when known). */
export function toRow(record: IngestRecord, domain: DomainInfo, time = timeOf(record)): EventRow {
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

/** Why a line naming a domain that does not exist is refused (checked before its time). */
export const unknownDomain = (domainId: number) => `domain_id: domain ${domainId} does not exist`;

/** A valid record's time in ms, or why it is refused (not a date-time, older than the retention, too far ahead). */
export function checkedTime(record: IngestRecord, cutoff: number, latest: number): number | string {
  const time = typeof record.request_time === 'number' ? record.request_time : parseInstant(record.request_time);
  if (time === undefined) return 'request_time: not a valid ISO 8601 date-time';
  if (time < cutoff) return 'request_time: older than the 30-day retention';
  if (time > latest) return 'request_time: more than a day after the server clock';
  return time;
}

/** A row whose domain is not known yet: `place` fills what comes from the domain. */
export type UnplacedRow = Omit<EventRow, 'client_id' | 'domain' | 'requested_domain'> & { requested_domain: string | null };

/**
 * A refused line. `domainId` is set when the line is valid but its time is refused: the domain is
 * checked first, so an unknown domain is what the caller reports for it.
 */
export interface Refusal {
  line: number;
  detail: string;
  domainId?: number;
}

/** Lines parsed from one place of a body to the next: rows and refusals, each in line order. */
export interface ParsedLines {
  rows: UnplacedRow[];
  /** The line of each row. */
  rowLines: number[];
  refusals: Refusal[];
  /**
   * Lines refused once this body had described MAX_REPORTED refusals of its own: counted only (the
   * caller, whose count of refusals includes these, reports no more details by then).
   */
  undescribed: number;
  /** Where the next call starts (the body's length once all is read). */
  next: number;
}

/** Where a body is read from, and how many refusals it has described so far. */
export interface LineCursor {
  position: number;
  line: number;
  described: number;
}

export const newCursor = (): LineCursor => ({ position: 0, line: 1, described: 0 });

export interface TimeWindow {
  /** Oldest accepted request time (the retention's start), ms. */
  cutoff: number;
  /** Latest accepted request time, ms. */
  latest: number;
}

/** How much one call of parseLines reads at most. */
export interface LineLimits {
  maxRows: number;
  maxLines: number;
}

const NEWLINE = 0x0a;

/** What a row gets before its domain is known; `place` overwrites all of it. */
const PENDING_DOMAIN = { client_id: 0, name: '' };

/**
 * Parses lines from the cursor until `maxRows` rows or `maxLines` lines, or the end of the body; moves
 * the cursor. Blank lines are skipped. The body stays bytes and each line is decoded on its own (a
 * newline byte is never inside a UTF-8 character, so lines split safely).
 */
export function parseLines(body: Uint8Array, cursor: LineCursor, validate: ValidateFunction, window: TimeWindow, limits: LineLimits): ParsedLines {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const out: ParsedLines = { rows: [], rowLines: [], refusals: [], undescribed: 0, next: 0 };
  const refuse = (line: number, detail: string, domainId?: number) => {
    if (cursor.described >= MAX_REPORTED) {
      out.undescribed += 1;
      return;
    }
    cursor.described += 1;
    out.refusals.push(domainId === undefined ? { line, detail } : { line, detail, domainId });
  };
  let start = cursor.position;
  let line = cursor.line;
  for (let read = 0; start < bytes.length && read < limits.maxLines && out.rows.length < limits.maxRows; line += 1, read += 1) {
    let end = bytes.indexOf(NEWLINE, start);
    if (end < 0) end = bytes.length;
    const source = bytes.toString('utf8', start, end).trim();
    start = end + 1;
    if (source === '') continue;
    const record = parseRecord(source, validate, cursor.described < MAX_REPORTED);
    if (typeof record === 'string') {
      refuse(line, record);
      continue;
    }
    const time = checkedTime(record, window.cutoff, window.latest);
    if (typeof time === 'string') {
      refuse(line, time, record.domain_id);
      continue;
    }
    const row = toRow(record, PENDING_DOMAIN, time) as unknown as UnplacedRow;
    row.requested_domain = record.requested_domain ?? null;
    out.rows.push(row);
    out.rowLines.push(line);
  }
  cursor.position = Math.min(start, bytes.length);
  cursor.line = line;
  out.next = cursor.position;
  return out;
}

/** The row of `unplaced` under its domain (the row is changed in place and returned). */
export function place(unplaced: UnplacedRow, domain: { client_id: number; name: string }): EventRow {
  const row = unplaced as unknown as EventRow;
  row.client_id = domain.client_id;
  row.domain = domain.name;
  row.requested_domain = unplaced.requested_domain ?? domain.name;
  return row;
}
