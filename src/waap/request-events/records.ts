// One NDJSON line of an ingestion as a record, and a record as a stored row: parsing and validating a
// line, checking its time and building its row need nothing but the line, so large bodies do this in the
// parsing threads (ingest-thread.ts) and small ones on the main thread (ingest.ts), both through
// parseLines: both refuse and keep the same lines. What needs the database (the domain's owner,
// duplicate ids) stays with the ingestor, which places each row under its domain.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { randomBytes } from 'node:crypto';
import { ajvErrorsToFields, FULL_FORMATS_CODE, safeIntegers, unstorableErrors } from '../../platform/validation.js';
import type { SchemaCode } from '../../platform/schema-code.js';
import { IngestRecord } from './schemas.js';
import { headersText } from './headers.js';
import { type CodedColumn, type CodedColumns, toCodedColumns, valueAt } from '../../platform/columns.js';
import { type EventBatch, type EventRow, type FieldName, TEXT_FIELDS } from './log/index.js';
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
  // Every number of a valid record is a bounded integer (RECORD_SCHEMA), so none is infinite; a NUL
  // character can only come from a \u0000 escape. Walking each record for them was a tenth of the parsing.
  const errors = validateRecord(value) ? (source.includes('\\u0000') ? unstorableErrors(value) : null) : validateRecord.errors;
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
   * Lines refused once the body had described MAX_REPORTED refusals: counted only (the
   * caller, whose count of refusals includes these, reports no more details by then).
   */
  undescribed: number;
  /** Lines read, blank ones included. */
  lines: number;
}

/** How many more refusals a body describes: MAX_REPORTED in all, the rest only counted. */
export interface Descriptions {
  /** Whether a refusal may still be described (building a detail is then worth it). */
  open(): boolean;
  /** Takes one description; false when none is left. */
  take(): boolean;
}

/** Descriptions counted by one reader: `limit` of them. */
export function localDescriptions(limit = MAX_REPORTED): Descriptions {
  let taken = 0;
  return {
    open: () => taken < limit,
    take: () => {
      if (taken >= limit) return false;
      taken += 1;
      return true;
    },
  };
}

/**
 * Descriptions counted in memory the threads reading one body's stretches share (Atomics): the body
 * describes about MAX_REPORTED refusals in all, not that many per stretch. A thread takes its stretches
 * in order, so with one thread the described ones are exactly the body's first; the ingestor reads a
 * stretch again when threads reading at once took them out of order (see piecesFromThreads).
 */
export function sharedDescriptions(counter: Int32Array): Descriptions {
  // The count only grows: once past the limit, no atomic operation is needed for the lines after.
  let closed = false;
  return {
    open: () => !closed && !(closed = Atomics.load(counter, 0) >= MAX_REPORTED),
    take: () => !closed && !(closed = Atomics.add(counter, 0, 1) >= MAX_REPORTED),
  };
}

/** Where a body is read from, and how many refusals it may still describe. */
export interface LineCursor {
  position: number;
  line: number;
  descriptions: Descriptions;
}

export const newCursor = (descriptions = localDescriptions()): LineCursor => ({ position: 0, line: 1, descriptions });

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
  const out: ParsedLines = { rows: [], rowLines: [], refusals: [], undescribed: 0, lines: 0 };
  const refuse = (line: number, detail: string, domainId?: number) => {
    if (!cursor.descriptions.take()) {
      out.undescribed += 1;
      return;
    }
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
    const record = parseRecord(source, validate, cursor.descriptions.open());
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
  out.lines = line - cursor.line;
  cursor.line = line;
  return out;
}

/** Lines parsed, their rows as coded columns: how a piece crosses from the parsing thread, and what the ingestor takes. */
export type Piece = Omit<ParsedLines, 'rows'> & { columns: CodedColumns };

export const toPiece = ({ rows, ...rest }: ParsedLines): Piece => ({ ...rest, columns: toCodedColumns(rows) });

/** Fields a row's domain gives (or, for the id, that need no dictionary lookup): not copied. */
const PLACED: ReadonlySet<FieldName> = new Set(['id', 'domain', 'requested_domain']);

/** A field of a piece, as copied into a batch: each piece value's batch code, found when first needed. */
interface CopiedField extends CodedColumn {
  field: FieldName;
  batchCodes: Int32Array;
  target: Uint32Array;
}

/**
 * A piece's rows added to batches under their domains. Each value of the piece is looked up in a batch's
 * dictionary once (when its first row is added), not once per row. The domain gives the row its client
 * and domain name, and its requested domain when the record named none.
 */
export class PieceRows {
  private readonly copied: CopiedField[] = [];
  private readonly ids: CodedColumn;
  private readonly times: CodedColumn;
  private readonly domainIds: CodedColumn;
  private readonly requested: CodedColumn;
  private batch: EventBatch | undefined;
  /** The batch's layout the targets were taken from. */
  private layout = -1;

  constructor(
    columns: CodedColumns,
    private readonly domains: ReadonlyMap<number, DomainInfo | null>,
  ) {
    const at = new Map(columns.fields.map((field, f) => [field, f]));
    // A piece of no rows has no fields (nothing is read from it).
    const column = (field: FieldName | 'request_time'): CodedColumn => {
      const f = at.get(field);
      return f === undefined ? { values: [], codes: null } : { values: columns.values[f], codes: columns.codes[f] };
    };
    this.ids = column('id');
    this.times = column('request_time');
    this.domainIds = column('domain_id');
    this.requested = column('requested_domain');
    if (columns.count === 0) return;
    for (const field of TEXT_FIELDS)
      if (!PLACED.has(field)) this.copied.push({ field, ...column(field), batchCodes: new Int32Array(0), target: new Uint32Array(0) });
  }

  /** The distinct domains the piece's rows name. */
  distinctDomainIds(): Iterable<number> {
    const values = this.domainIds.values as number[];
    return this.domainIds.codes ? values : new Set(values);
  }

  /** The domain row i names. */
  domainId(i: number): number {
    return valueAt(this.domainIds, i) as number;
  }

  /** Row i's domain: null when it does not exist (the row is refused). */
  domain(i: number): DomainInfo | null {
    return this.domains.get(this.domainId(i)) ?? null;
  }

  /** Whether a domain the piece names (a row's, or a refused line's) exists. */
  knownDomain(domainId: number): boolean {
    return Boolean(this.domains.get(domainId));
  }

  /** Adds row i to the batch, as an event of `domain`'s client. */
  addTo(batch: EventBatch, i: number, domain: DomainInfo): void {
    batch.reserve();
    if (batch !== this.batch) this.startBatch(batch);
    else if (batch.layout !== this.layout) this.takeTargets(batch);
    const n = batch.n;
    batch.clientIds[n] = domain.client_id;
    batch.times[n] = valueAt(this.times, i) as number;
    for (const copied of this.copied) {
      if (!copied.codes) {
        copied.target[n] = batch.code(copied.field, copied.values[i] as string | number);
        continue;
      }
      const code = copied.codes[i];
      let batchCode = copied.batchCodes[code];
      if (batchCode < 0) batchCode = copied.batchCodes[code] = batch.code(copied.field, copied.values[code] as string | number);
      copied.target[n] = batchCode;
    }
    batch.codes.id[n] = batch.unique('id', valueAt(this.ids, i) as string);
    batch.codes.domain[n] = batch.code('domain', domain.name);
    const requested = valueAt(this.requested, i) as string | null;
    batch.codes.requested_domain[n] = batch.code('requested_domain', requested ?? domain.name);
    batch.n = n + 1;
  }

  private startBatch(batch: EventBatch): void {
    this.batch = batch;
    for (const copied of this.copied) if (copied.codes) copied.batchCodes = new Int32Array(copied.values.length).fill(-1);
    this.takeTargets(batch);
  }

  private takeTargets(batch: EventBatch): void {
    this.layout = batch.layout;
    for (const copied of this.copied) copied.target = batch.codes[copied.field];
  }
}
