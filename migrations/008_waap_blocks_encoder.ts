// The block encoder of format version 1, frozen for migration 008: the migration must write what it wrote
// when it was made, whatever the live encoder (src/waap/request-events/log/) becomes. The live decoder
// reads these blocks like any other of version 1; a later format must keep reading version 1, or come
// with a migration that rewrites them. Nothing here imports src/: change this file only to fix a bug in
// what the migration writes.
//
// Part layout (little-endian): u8 format version, u8 field count, u16 0, u32 events, then per field the
// u32 byte length of its section, then the sections, each 4-byte aligned:
//   text section: u8 kind=1, u8 code width (1, 2 or 4), u8 flags (bit 0: all ASCII), u8 0, u32 entries,
//                 u32 text bytes, u32 offsets[entries + 1], text bytes, padding, codes[events], padding
//   time section: u8 kind=2, u8 0, u16 0, u32 0, f64 the block's hour (epoch ms), u32 ms after it[events]

const FORMAT_VERSION = 1;
const TEXT_SECTION = 1;
const TIME_SECTION = 2;
const HOUR_MS = 3_600_000;
const MAX_BLOCK_EVENTS = 16_384;
const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;

/** Every stored field of an event, as format version 1 has them. */
export interface BlockRow {
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
  traffic_types: string;
  tags: string;
  scheme: string;
  http_version: string;
  ja3: string;
  ja4: string;
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
  request_headers: string;
  incident_id: string;
  request_type: string;
  session_request_count: string;
  requested_domain: string;
  query_string: string;
  pattern_matched_tags: string;
  common_tags: string;
  detector: string;
}

type FieldName = Exclude<keyof BlockRow, 'client_id' | 'request_time'>;

/** The parts of a block of version 1, in storage order (a part's number is its index). */
const PARTS: readonly (readonly (FieldName | 'request_time')[])[] = [
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
const TEXT_FIELDS = PARTS.flat().filter((f): f is FieldName => f !== 'request_time');

type Dimension = 'domain_id' | 'decision' | 'optional_action' | 'country' | 'method' | 'status_code' | 'path_prefix';
const DIMENSIONS: readonly Dimension[] = ['domain_id', 'decision', 'optional_action', 'country', 'method', 'status_code', 'path_prefix'];
const ROLLUPS: readonly { name: string; dims: readonly [Dimension, Dimension] }[] = [
  { name: 'decision', dims: ['decision', 'optional_action'] },
  { name: 'geo', dims: ['country', 'method'] },
  { name: 'domain', dims: ['domain_id', 'decision'] },
  { name: 'status', dims: ['status_code', 'decision'] },
  { name: 'prefix', dims: ['path_prefix', 'decision'] },
];

export interface EncodedBlock {
  clientId: number;
  hour: number;
  n: number;
  firstTime: number;
  lastTime: number;
  /** JSON: distinct values per dimension, and per rollup flat triples (first value, second value, events). */
  summary: string;
  /** One buffer per entry of PARTS. */
  parts: Buffer[];
}

function pathPrefix(path: string): string {
  const second = path.indexOf('/', 1);
  return path.startsWith('/') && second > 0 ? path.slice(0, second + 1) : '';
}

class Interner {
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

const ASCII = /^[\x00-\x7f]*$/;
const align4 = (n: number) => (n + 3) & ~3;

/** A field's distinct values and each event's index into them (over a batch, then over one block). */
interface Dictionary {
  values: string[];
  codes: Uint32Array;
}

function batchColumn(rows: readonly BlockRow[], order: Uint32Array, field: FieldName): Dictionary {
  const codes = new Uint32Array(order.length);
  if (field === 'id') {
    // Ids are unique within a client: the dictionary is the column.
    const values = new Array<string>(order.length);
    for (let i = 0; i < order.length; i += 1) {
      values[i] = rows[order[i]].id;
      codes[i] = i;
    }
    return { values, codes };
  }
  const seen = new Map<string | number, number>();
  const values: string[] = [];
  for (let i = 0; i < order.length; i += 1) {
    const value = rows[order[i]][field];
    let code = seen.get(value);
    if (code === undefined) {
      code = values.length;
      seen.set(value, code);
      values.push(typeof value === 'number' ? String(value) : value);
    }
    codes[i] = code;
  }
  return { values, codes };
}

/** The batch dictionary narrowed to the events [start, end), values in the order first met. */
function narrow(column: Dictionary, start: number, end: number): Dictionary {
  const local = new Map<number, number>();
  const values: string[] = [];
  const codes = new Uint32Array(end - start);
  for (let i = start; i < end; i += 1) {
    const batchCode = column.codes[i];
    let code = local.get(batchCode);
    if (code === undefined) {
      code = values.length;
      local.set(batchCode, code);
      values.push(column.values[batchCode]);
    }
    codes[i - start] = code;
  }
  return { values, codes };
}

interface Section {
  size: number;
  write(out: Buffer, at: number): void;
}

function textSection({ values, codes }: Dictionary): Section {
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
      out[at] = TEXT_SECTION;
      out[at + 1] = width;
      out[at + 2] = ascii ? 1 : 0;
      out.writeUInt32LE(entries, at + 4);
      out.writeUInt32LE(textBytes, at + 8);
      let offset = 0;
      for (let i = 0; i < entries; i += 1) {
        out.writeUInt32LE(offset, at + offsetsAt + 4 * i);
        offset += ascii ? values[i].length : Buffer.byteLength(values[i], 'utf8');
      }
      out.writeUInt32LE(offset, at + offsetsAt + 4 * entries);
      out.write(joined, at + textAt, textBytes, ascii ? 'latin1' : 'utf8');
      for (let i = 0; i < codes.length; i += 1) {
        const to = at + codesAt + width * i;
        if (width === 1) out.writeUInt8(codes[i], to);
        else if (width === 2) out.writeUInt16LE(codes[i], to);
        else out.writeUInt32LE(codes[i], to);
      }
    },
  };
}

function timeSection(times: Float64Array, hour: number): Section {
  return {
    size: 16 + 4 * times.length,
    write(out, at) {
      out[at] = TIME_SECTION;
      out.writeDoubleLE(hour, at + 8);
      for (let i = 0; i < times.length; i += 1) out.writeUInt32LE(times[i] - hour, at + 16 + 4 * i);
    },
  };
}

function writePart(sections: Section[], n: number): Buffer {
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

function summarise(dictionaries: Map<FieldName, Dictionary>, n: number): string {
  const path = dictionaries.get('path')!;
  const prefixes = new Interner();
  const prefixOfPath = path.values.map((p) => prefixes.id(pathPrefix(p)));
  const prefixCodes = Uint32Array.from(path.codes, (code) => prefixOfPath[code]);
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
  return JSON.stringify({ dims: Object.fromEntries(DIMENSIONS.map((d) => [d, dim(d).values])), rollups });
}

/** Rows grouped by client and hour (groups in the order first met), each in time order, equal times in arrival order. */
function blockOrder(rows: readonly BlockRow[]): { order: Uint32Array; starts: number[] } {
  const groups = new Map<string, number[]>();
  rows.forEach((row, i) => {
    const key = `${row.client_id}/${floorHour(row.request_time)}`;
    const group = groups.get(key);
    if (group) group.push(i);
    else groups.set(key, [i]);
  });
  const order = new Uint32Array(rows.length);
  const starts: number[] = [];
  let at = 0;
  for (const indices of groups.values()) {
    indices.sort((a, b) => rows[a].request_time - rows[b].request_time || a - b);
    for (let start = 0; start < indices.length; start += MAX_BLOCK_EVENTS) starts.push(at + start);
    order.set(indices, at);
    at += indices.length;
  }
  starts.push(rows.length);
  return { order, starts };
}

/** Encodes rows (any clients and times) as blocks of version 1: per client and hour, at most 16,384 each. */
export function encodeBlocks(rows: readonly BlockRow[]): EncodedBlock[] {
  if (rows.length === 0) return [];
  const { order, starts } = blockOrder(rows);
  const columns = new Map(TEXT_FIELDS.map((field) => [field, batchColumn(rows, order, field)]));
  const times = Float64Array.from(order, (i) => rows[i].request_time);
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
          if (field === 'request_time') return timeSection(times.subarray(start, end), hour);
          const dictionary = narrow(columns.get(field)!, start, end);
          dictionaries.set(field, dictionary);
          return textSection(dictionary);
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
      summary: summarise(dictionaries, n),
      parts,
    });
  }
  return blocks;
}
