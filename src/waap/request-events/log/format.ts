// How request events are stored: in blocks. A block holds the events of one client within one hour,
// sorted by time, column by column: every field is a dictionary of the distinct values in the block plus
// one small integer code per event. A block is written once and never changed (compaction and retention
// replace blocks whole), and each field group ("part") is its own row, so a query reads only the fields it
// filters, sorts or returns, and only for the hours it needs.
//
// Why: one row per event with four indexes and per-hour counter tables topped out near 20,000 events per
// second at ingestion (a bare 30-column insert alone, 74,000 rows/s here); a block is a handful of rows per
// thousands of events, and its per-block summary (counts per filter dimension) replaces the counters.
//
// Part layout (little-endian): u8 format version, u8 field count, u16 0, u32 events, then per field the
// u32 byte length of its section, then the sections, each 4-byte aligned:
//   text section: u8 kind=1, u8 code width (1, 2 or 4), u8 flags (bit 0: all ASCII), u8 0, u32 entries,
//                 u32 text bytes, u32 offsets[entries + 1], text bytes, padding, codes[events], padding
//   time section: u8 kind=2, u8 0, u16 0, u32 0, f64 the block's hour (epoch ms), u32 ms after it[events]
// Encoding is in encode.ts, decoding in decode.ts. Migration 008 writes version 1 with a frozen copy of
// the encoder (migrations/008_waap_blocks_encoder.ts): a new version must still decode version 1, or come
// with a migration that rewrites the stored blocks.

export const FORMAT_VERSION = 1;
/** Kinds of a part's sections. */
export const TEXT_SECTION = 1;
export const TIME_SECTION = 2;

/** Every stored field of an event, as ingestion builds it and the list and details read it back. */
export interface EventRow {
  client_id: number;
  request_time: number;
  id: string;
  domain_id: number;
  domain: string;
  decision: string;
  optional_action: string;
  action: string;
  result: string;
  client_ip: string;
  country: string;
  method: string;
  path: string;
  status_code: number;
  rule_id: string;
  rule_name: string;
  reference_id: string;
  session_id: string;
  user_agent: string;
  user_agent_client: string;
  user_agent_device: string;
  organization: string;
  /** Comma-separated. */
  traffic_types: string;
  /** Lower-case threat tags wrapped in commas (`,sql,xss,`) so one tag is an exact substring match. */
  tags: string;
  scheme: string;
  http_version: string;
  ja3: string;
  ja4: string;
  // Details only.
  ua_client_version: string;
  ua_base_browser: string;
  ua_base_browser_version: string;
  ua_os: string;
  ua_device_type: string;
  ua_cpu: string;
  ua_rendering_engine: string;
  ua_client_type: string;
  subnet: string;
  content_type: string;
  response_time: string;
  /** JSON object; a User-Agent header equal to `user_agent` is stored as null (it repeats the field). */
  request_headers: string;
  incident_id: string;
  request_type: string;
  session_request_count: string;
  requested_domain: string;
  query_string: string;
  /** JSON arrays. */
  pattern_matched_tags: string;
  common_tags: string;
  detector: string;
}

export type FieldName = Exclude<keyof EventRow, 'client_id' | 'request_time'>;
/** Fields whose values are integers (kept as their decimal text in dictionaries). */
export const INTEGER_FIELDS: ReadonlySet<FieldName> = new Set(['domain_id', 'status_code']);

/**
 * The parts of a block, in storage order (a part's number is its index). Fields that queries filter,
 * sort or count on are parts of their own; the rest of the list record shares one, the details-only
 * fields another.
 */
export const PARTS: readonly (readonly (FieldName | 'request_time')[])[] = [
  ['request_time'],
  ['id'],
  ['domain_id'],
  ['decision'],
  ['optional_action'],
  ['client_ip'],
  ['country'],
  ['method'],
  ['path'],
  ['status_code'],
  ['rule_name'],
  ['reference_id'],
  ['session_id'],
  ['user_agent'],
  ['user_agent_client'],
  ['user_agent_device'],
  ['organization'],
  ['traffic_types'],
  ['tags'],
  ['ja3'],
  ['ja4'],
  ['domain', 'action', 'result', 'rule_id', 'scheme', 'http_version'],
  [
    'ua_client_version',
    'ua_base_browser',
    'ua_base_browser_version',
    'ua_os',
    'ua_device_type',
    'ua_cpu',
    'ua_rendering_engine',
    'ua_client_type',
    'subnet',
    'content_type',
    'response_time',
    'request_headers',
    'incident_id',
    'request_type',
    'session_request_count',
    'requested_domain',
    'query_string',
    'pattern_matched_tags',
    'common_tags',
    'detector',
  ],
];

/** Every field stored as text (all but the request time), in part order. */
export const TEXT_FIELDS: readonly FieldName[] = PARTS.flat().filter((f): f is FieldName => f !== 'request_time');

/** Where each field lives: its part and its position within the part. */
export const FIELD_PLACE: Readonly<Record<FieldName | 'request_time', { part: number; index: number }>> = Object.fromEntries(
  PARTS.flatMap((fields, part) => fields.map((field, index) => [field, { part, index }])),
) as Record<FieldName | 'request_time', { part: number; index: number }>;

/** A block as its row in waap_event_blocks describes it. */
export interface BlockHeader {
  blockId: number;
  clientId: number;
  hour: number;
  n: number;
  firstTime: number;
  lastTime: number;
  /** Random per block; with the id, what caches of decoded blocks are keyed by. */
  stamp: number;
}

export const HOUR_MS = 3_600_000;
export const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;

/** Most events a block holds; a larger hour gets several blocks. Keeps codes at two bytes at most. */
export const MAX_BLOCK_EVENTS = 16_384;

// ---------------------------------------------------------------------------------------------------
// Summaries: per block, the distinct values of the counted dimensions and the number of events of every
// combination of the dimensions of each rollup. A count whose filters fall within one rollup reads
// these instead of the events.

/** The dimensions block summaries count, and the event field each comes from. */
export type Dimension = 'domain_id' | 'decision' | 'optional_action' | 'country' | 'method' | 'status_code' | 'path_prefix';
export const DIMENSIONS: readonly Dimension[] = ['domain_id', 'decision', 'optional_action', 'country', 'method', 'status_code', 'path_prefix'];

export interface Rollup {
  name: string;
  dims: readonly [Dimension, Dimension];
}

/**
 * In order of preference: the first rollup whose dimensions cover a query's filters is used. An
 * unfiltered count is the block's event count.
 */
export const ROLLUPS: readonly Rollup[] = [
  { name: 'decision', dims: ['decision', 'optional_action'] },
  { name: 'geo', dims: ['country', 'method'] },
  { name: 'domain', dims: ['domain_id', 'decision'] },
  { name: 'status', dims: ['status_code', 'decision'] },
  { name: 'prefix', dims: ['path_prefix', 'decision'] },
];

export interface Summary {
  /** Distinct values per dimension (integers as decimal text). */
  dims: Record<Dimension, string[]>;
  /** Per rollup, flat triples: index into the first dimension's values, into the second's, events. */
  rollups: Record<string, number[]>;
}

/**
 * The first path segment with its slashes (`/api/` for `/api/v1/users`), or '' when the path has no
 * second slash. A glob `/api/*` matches exactly the paths whose prefix is `/api/`.
 */
export function pathPrefix(path: string): string {
  const second = path.indexOf('/', 1);
  return path.startsWith('/') && second > 0 ? path.slice(0, second + 1) : '';
}

/** The prefix a glob selects when it has the form `/segment/*`, else undefined. */
export function globPrefix(glob: string): string | undefined {
  const match = /^(\/[^/*]+\/)\*$/.exec(glob);
  return match ? match[1] : undefined;
}

/** Distinct values in the order first met, each with its index. */
export class Interner {
  readonly values: string[] = [];
  private readonly ids = new Map<string, number>();

  id(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.ids.set(value, id);
      this.values.push(value);
    }
    return id;
  }
}
