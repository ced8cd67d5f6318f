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

export const FORMAT_VERSION = 1;
const TEXT = 1;
const TIME = 2;

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
    'ua_client_version', 'ua_base_browser', 'ua_base_browser_version', 'ua_os', 'ua_device_type', 'ua_cpu', 'ua_rendering_engine',
    'ua_client_type', 'subnet', 'content_type', 'response_time', 'request_headers', 'incident_id', 'request_type',
    'session_request_count', 'requested_domain', 'query_string', 'pattern_matched_tags', 'common_tags', 'detector',
  ],
];

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

// ---------------------------------------------------------------------------------------------------
// Encoding

export interface EncodedBlock {
  clientId: number;
  hour: number;
  n: number;
  firstTime: number;
  lastTime: number;
  /** JSON of the Summary. */
  summary: string;
  /** One buffer per entry of PARTS. */
  parts: Buffer[];
}

const ASCII = /^[\x00-\x7f]*$/;
const align4 = (n: number) => (n + 3) & ~3;
const TEXT_FIELDS = PARTS.flat().filter((f): f is FieldName => f !== 'request_time');

/**
 * One reader per field: `row[field]` with a varying field name is a megamorphic property load, a
 * measurable share of encoding; a function per field keeps each load monomorphic.
 */
const READERS = Object.fromEntries(
  TEXT_FIELDS.map((f) => [f, new Function('row', `return row.${f};`) as (row: EventRow) => string | number]),
) as Record<FieldName, (row: EventRow) => string | number>;

/** A field over a whole batch: its distinct values and, per row in block order, the value's index. */
interface BatchColumn {
  values: string[];
  codes: Uint32Array;
}

/**
 * Dictionaries are built once per batch and field (one Map over all rows), then narrowed to each block
 * with integer arrays: building one Map per block and field cost several times more at the small blocks
 * of a many-client batch (hundreds of events each).
 */
function batchColumn(rows: readonly EventRow[], order: Uint32Array, field: FieldName): BatchColumn {
  const codes = new Uint32Array(order.length);
  const read = READERS[field];
  if (field === 'id') {
    // Request ids are unique within a client (ingestion refuses duplicates): the dictionary is the column.
    const values = new Array<string>(order.length);
    for (let i = 0; i < order.length; i += 1) {
      values[i] = read(rows[order[i]]) as string;
      codes[i] = i;
    }
    return { values, codes };
  }
  const seen = new Map<string | number, number>();
  const values: string[] = [];
  // Neighbouring rows (one client and hour, one session) often repeat a value: comparing with the last
  // one spares hashing it, which for strings fresh from JSON.parse is most of a lookup's cost.
  let last: string | number | undefined;
  let lastCode = -1;
  for (let i = 0; i < order.length; i += 1) {
    const value = read(rows[order[i]]);
    if (value === last) {
      codes[i] = lastCode;
      continue;
    }
    let code = seen.get(value);
    if (code === undefined) {
      code = values.length;
      seen.set(value, code);
      values.push(typeof value === 'number' ? String(value) : value);
    }
    codes[i] = code;
    last = value;
    lastCode = code;
  }
  return { values, codes };
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

/** A field within one block: the block's distinct values and each event's index into them. */
interface Dictionary {
  values: string[];
  codes: Uint32Array;
}

let local = new Int32Array(0);

function narrow(column: BatchColumn, start: number, end: number): Dictionary {
  if (local.length < column.values.length) local = new Int32Array(Math.max(column.values.length, 2 * local.length)).fill(-1);
  const values: string[] = [];
  const touched: number[] = [];
  const codes = new Uint32Array(end - start);
  for (let i = start; i < end; i += 1) {
    const batchCode = column.codes[i];
    let code = local[batchCode];
    if (code < 0) {
      code = values.length;
      local[batchCode] = code;
      touched.push(batchCode);
      values.push(column.values[batchCode]);
    }
    codes[i - start] = code;
  }
  for (const batchCode of touched) local[batchCode] = -1;
  return { values, codes };
}

/** A text section, measured first so the part can be written into one buffer. */
function textLayout(dictionary: Dictionary): { size: number; write(out: Buffer, at: number): void } {
  const { values, codes } = dictionary;
  const entries = values.length;
  const width = entries <= 0x100 ? 1 : entries <= 0x10000 ? 2 : 4;
  const joined = values.join('');
  const ascii = ASCII.test(joined);
  const textBytes = ascii ? joined.length : Buffer.byteLength(joined, 'utf8');
  const offsetsAt = 16;
  const textAt = offsetsAt + 4 * (entries + 1);
  const codesAt = align4(textAt + textBytes);
  return {
    size: align4(codesAt + width * codes.length),
    write(out, at) {
      out[at] = TEXT;
      out[at + 1] = width;
      out[at + 2] = ascii ? 1 : 0;
      out.writeUInt32LE(entries, at + 4);
      out.writeUInt32LE(textBytes, at + 8);
      const offsets = new Uint32Array(out.buffer, out.byteOffset + at + offsetsAt, entries + 1);
      let offset = 0;
      for (let i = 0; i < entries; i += 1) {
        offsets[i] = offset;
        offset += ascii ? values[i].length : Buffer.byteLength(values[i], 'utf8');
      }
      offsets[entries] = offset;
      out.write(joined, at + textAt, textBytes, ascii ? 'latin1' : 'utf8');
      const target = out.byteOffset + at + codesAt;
      if (width === 1) new Uint8Array(out.buffer, target, codes.length).set(codes);
      else if (width === 2) new Uint16Array(out.buffer, target, codes.length).set(codes);
      else new Uint32Array(out.buffer, target, codes.length).set(codes);
    },
  };
}

function timeLayout(times: Float64Array, hour: number): { size: number; write(out: Buffer, at: number): void } {
  return {
    size: 16 + 4 * times.length,
    write(out, at) {
      out[at] = TIME;
      out.writeDoubleLE(hour, at + 8);
      const offsets = new Uint32Array(out.buffer, out.byteOffset + at + 16, times.length);
      for (let i = 0; i < times.length; i += 1) offsets[i] = times[i] - hour;
    },
  };
}

/** One part: its header, then its sections, in one zero-filled buffer (padding stays zero). */
function writePart(sections: { size: number; write(out: Buffer, at: number): void }[], n: number): Buffer {
  const head = 8 + 4 * sections.length;
  const out = Buffer.alloc(head + sections.reduce((sum, s) => sum + s.size, 0));
  out[0] = FORMAT_VERSION;
  out[1] = sections.length;
  out.writeUInt32LE(n, 4);
  let at = head;
  sections.forEach((section, i) => {
    out.writeUInt32LE(section.size, 8 + 4 * i);
    section.write(out, at);
    at += section.size;
  });
  return out;
}

/** The fields the summary is computed from (path gives the path prefix). */
function summarise(dictionaries: Map<FieldName, Dictionary>, n: number): Summary {
  const path = dictionaries.get('path')!;
  const prefixes = new Interner();
  const prefixOfPath = Uint32Array.from(path.values, (p) => prefixes.id(pathPrefix(p)));
  const prefixCodes = new Uint32Array(n);
  for (let i = 0; i < n; i += 1) prefixCodes[i] = prefixOfPath[path.codes[i]];
  const dim = (d: Dimension): Dictionary => (d === 'path_prefix' ? { values: prefixes.values, codes: prefixCodes } : dictionaries.get(d)!);
  const rollups: Record<string, number[]> = {};
  for (const rollup of ROLLUPS) {
    const [a, b] = rollup.dims.map(dim);
    const width = b.values.length;
    const counts = new Map<number, number>();
    for (let i = 0; i < n; i += 1) {
      const key = a.codes[i] * width + b.codes[i];
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const flat: number[] = [];
    for (const [key, count] of counts) flat.push(Math.floor(key / width), key % width, count);
    rollups[rollup.name] = flat;
  }
  return { dims: Object.fromEntries(DIMENSIONS.map((d) => [d, dim(d).values])) as Record<Dimension, string[]>, rollups };
}

/**
 * Rows in block order: grouped by client and hour, each group in time order (equal times in arrival
 * order), cut into blocks of at most MAX_BLOCK_EVENTS. Returns the order and where each block starts.
 */
function blockOrder(rows: readonly EventRow[]): { order: Uint32Array; starts: number[] } {
  const groups = new Map<string, number[]>();
  for (let i = 0; i < rows.length; i += 1) {
    const key = `${rows[i].client_id}/${floorHour(rows[i].request_time)}`;
    const group = groups.get(key);
    if (group) group.push(i);
    else groups.set(key, [i]);
  }
  const order = new Uint32Array(rows.length);
  const starts: number[] = [];
  let at = 0;
  for (const indices of groups.values()) {
    let sorted = true;
    for (let i = 1; i < indices.length && sorted; i += 1) sorted = rows[indices[i - 1]].request_time <= rows[indices[i]].request_time;
    if (!sorted) indices.sort((a, b) => rows[a].request_time - rows[b].request_time || a - b);
    for (let start = 0; start < indices.length; start += MAX_BLOCK_EVENTS) {
      starts.push(at + start);
    }
    order.set(indices, at);
    at += indices.length;
  }
  starts.push(rows.length);
  return { order, starts };
}

/** Encodes rows (any clients and times) as blocks: per client and hour, at most MAX_BLOCK_EVENTS each. */
export function encodeBlocks(rows: readonly EventRow[]): EncodedBlock[] {
  if (rows.length === 0) return [];
  const { order, starts } = blockOrder(rows);
  const columns = new Map(TEXT_FIELDS.map((field) => [field, batchColumn(rows, order, field)]));
  const times = new Float64Array(rows.length);
  for (let i = 0; i < order.length; i += 1) times[i] = rows[order[i]].request_time;
  const blocks: EncodedBlock[] = [];
  for (let b = 0; b + 1 < starts.length; b += 1) {
    const start = starts[b];
    const end = starts[b + 1];
    const n = end - start;
    const hour = floorHour(times[start]);
    const dictionaries = new Map<FieldName, Dictionary>();
    const parts = PARTS.map((fields) =>
      writePart(
        fields.map((field) => {
          if (field === 'request_time') return timeLayout(times.subarray(start, end), hour);
          const dictionary = narrow(columns.get(field)!, start, end);
          dictionaries.set(field, dictionary);
          return textLayout(dictionary);
        }),
        n,
      ),
    );
    blocks.push({
      clientId: rows[order[start]].client_id,
      hour,
      n,
      firstTime: times[start],
      lastTime: times[end - 1],
      summary: JSON.stringify(summarise(dictionaries, n)),
      parts,
    });
  }
  return blocks;
}

// ---------------------------------------------------------------------------------------------------
// Decoding

/** A buffer whose memory starts at a 4-byte boundary, so typed-array views over it are allowed. */
function aligned(buffer: Buffer): Buffer {
  if (buffer.byteOffset % 8 === 0) return buffer;
  const copy = Buffer.from(new ArrayBuffer(buffer.length));
  buffer.copy(copy);
  return copy;
}

/** One text field of one block: its dictionary and the code of each event. */
export class TextColumn {
  readonly entries: number;
  readonly codes: Uint8Array | Uint16Array | Uint32Array;
  private readonly offsets: Uint32Array;
  private readonly textAt: number;
  private readonly textEnd: number;
  private readonly ascii: boolean;
  private decoded: (string | undefined)[] | undefined;

  constructor(private readonly buffer: Buffer, at: number, n: number) {
    const width = buffer[at + 1];
    this.ascii = buffer[at + 2] === 1;
    this.entries = buffer.readUInt32LE(at + 4);
    const textBytes = buffer.readUInt32LE(at + 8);
    this.offsets = new Uint32Array(buffer.buffer, buffer.byteOffset + at + 16, this.entries + 1);
    this.textAt = at + 16 + 4 * (this.entries + 1);
    this.textEnd = this.textAt + textBytes;
    const codesAt = buffer.byteOffset + align4(this.textEnd);
    this.codes = width === 1 ? new Uint8Array(buffer.buffer, codesAt, n) : width === 2 ? new Uint16Array(buffer.buffer, codesAt, n) : new Uint32Array(buffer.buffer, codesAt, n);
  }

  /** The value of dictionary entry `code`. */
  text(code: number): string {
    const decoded = (this.decoded ??= new Array(this.entries));
    let value = decoded[code];
    if (value === undefined) {
      value = this.buffer.toString(this.ascii ? 'latin1' : 'utf8', this.textAt + this.offsets[code], this.textAt + this.offsets[code + 1]);
      decoded[code] = value;
    }
    return value;
  }

  /** The value of event `i`. */
  value(i: number): string {
    return this.text(this.codes[i]);
  }

  /** Every dictionary entry, in code order. */
  texts(): string[] {
    const out = new Array<string>(this.entries);
    for (let code = 0; code < this.entries; code += 1) out[code] = this.text(code);
    return out;
  }

  /**
   * The code of a value, or -1 when no event of the block has it: a native search of the dictionary's
   * bytes, so a block without the value costs no decoding at all.
   */
  find(value: Buffer): number {
    if (value.length === 0) {
      for (let code = 0; code < this.entries; code += 1) if (this.offsets[code + 1] === this.offsets[code]) return code;
      return -1;
    }
    let at = this.buffer.indexOf(value, this.textAt);
    while (at >= 0 && at + value.length <= this.textEnd) {
      const code = this.entryStartingAt(at - this.textAt);
      if (code >= 0 && this.offsets[code + 1] - this.offsets[code] === value.length) return code;
      at = this.buffer.indexOf(value, at + 1);
    }
    return -1;
  }

  private entryStartingAt(offset: number): number {
    let lo = 0;
    let hi = this.entries - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const start = this.offsets[mid];
      if (start === offset) {
        // Empty entries share their start with the next one: the entry with bytes is the last of them.
        let code = mid;
        while (code + 1 < this.entries && this.offsets[code + 1] === offset) code += 1;
        return code;
      }
      if (start < offset) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

/** The time field of one block: epoch ms per event, ascending. */
export class TimeColumn {
  readonly hour: number;
  readonly offsets: Uint32Array;

  constructor(buffer: Buffer, at: number, n: number) {
    this.hour = buffer.readDoubleLE(at + 8);
    this.offsets = new Uint32Array(buffer.buffer, buffer.byteOffset + at + 16, n);
  }

  at(i: number): number {
    return this.hour + this.offsets[i];
  }

  /** The first event at or after `time` (binary search; n when none). */
  lowerBound(time: number): number {
    const target = time - this.hour;
    let lo = 0;
    let hi = this.offsets.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.offsets[mid] < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

export type Column = TextColumn | TimeColumn;

/** A decoded part: its fields in PARTS order. */
export interface DecodedPart {
  n: number;
  columns: Column[];
  /** Bytes held, for cache accounting. */
  bytes: number;
}

export function decodePart(raw: Buffer | Uint8Array): DecodedPart {
  const buffer = aligned(Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
  if (buffer[0] !== FORMAT_VERSION) throw new Error(`unknown block part format ${buffer[0]}`);
  const count = buffer[1];
  const n = buffer.readUInt32LE(4);
  const columns: Column[] = [];
  let at = 8 + 4 * count;
  for (let i = 0; i < count; i += 1) {
    const kind = buffer[at];
    columns.push(kind === TIME ? new TimeColumn(buffer, at, n) : new TextColumn(buffer, at, n));
    at += buffer.readUInt32LE(8 + 4 * i);
  }
  return { n, columns, bytes: buffer.length };
}

export function parseSummary(text: string): Summary {
  return JSON.parse(text) as Summary;
}

/** Every event of a block as rows again (for a rewrite: retention trimming an hour, compaction). */
export function decodeRows(header: BlockHeader, parts: readonly DecodedPart[]): EventRow[] {
  const rows: Record<string, unknown>[] = Array.from({ length: header.n }, () => ({ client_id: header.clientId }));
  PARTS.forEach((fields, p) =>
    fields.forEach((field, index) => {
      const column = parts[p].columns[index];
      if (column instanceof TimeColumn) {
        for (let i = 0; i < header.n; i += 1) rows[i].request_time = column.at(i);
        return;
      }
      const numeric = INTEGER_FIELDS.has(field as FieldName);
      for (let i = 0; i < header.n; i += 1) rows[i][field] = numeric ? Number(column.value(i)) : column.value(i);
    }),
  );
  return rows as unknown as EventRow[];
}
