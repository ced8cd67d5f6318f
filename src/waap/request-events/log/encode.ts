// Encoding events as blocks (the format is described in format.ts). A batch holds one dictionary per
// field (batch.ts); it is narrowed to each block with integer arrays; a part is measured, then written
// into one buffer.
import type { EventBatch } from './batch.js';
import {
  type Dimension,
  DIMENSIONS,
  type FieldName,
  floorHour,
  FORMAT_VERSION,
  Interner,
  MAX_BLOCK_EVENTS,
  PARTS,
  pathPrefix,
  ROLLUPS,
  type Summary,
  TEXT_SECTION,
  TIME_SECTION,
} from './format.js';

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

/** A field within one block: the block's distinct values and each event's index into them. */
interface Dictionary {
  values: string[];
  codes: Uint32Array;
}

let local = new Int32Array(0);

/**
 * A batch's field narrowed to one block: the events `order[start..end)`. Dictionaries are built once per
 * batch and field, then narrowed with integer arrays: building one Map per block and field cost several
 * times more at the small blocks of a many-client batch (hundreds of events each).
 */
function narrow(batchValues: readonly string[], batchCodes: Uint32Array, order: Uint32Array, start: number, end: number): Dictionary {
  if (local.length < batchValues.length) local = new Int32Array(Math.max(batchValues.length, 2 * local.length)).fill(-1);
  const values: string[] = [];
  const touched: number[] = [];
  const codes = new Uint32Array(end - start);
  for (let i = start; i < end; i += 1) {
    const batchCode = batchCodes[order[i]];
    let code = local[batchCode];
    if (code < 0) {
      code = values.length;
      local[batchCode] = code;
      touched.push(batchCode);
      values.push(batchValues[batchCode]);
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
      out[at] = TEXT_SECTION;
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
      out[at] = TIME_SECTION;
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
 * Events in block order: grouped by client and hour, each group in time order (equal times in batch
 * order), cut into blocks of at most MAX_BLOCK_EVENTS; events not kept are left out. Returns the order and
 * where each block starts.
 */
function blockOrder(batch: EventBatch, keep?: readonly boolean[]): { order: Uint32Array; starts: number[] } {
  const { clientIds, times } = batch;
  const groups = new Map<string, number[]>();
  let kept = 0;
  for (let i = 0; i < batch.n; i += 1) {
    if (keep && !keep[i]) continue;
    kept += 1;
    const key = `${clientIds[i]}/${floorHour(times[i])}`;
    const group = groups.get(key);
    if (group) group.push(i);
    else groups.set(key, [i]);
  }
  const order = new Uint32Array(kept);
  const starts: number[] = [];
  let at = 0;
  for (const indices of groups.values()) {
    let sorted = true;
    for (let i = 1; i < indices.length && sorted; i += 1) sorted = times[indices[i - 1]] <= times[indices[i]];
    if (!sorted) indices.sort((a, b) => times[a] - times[b] || a - b);
    for (let start = 0; start < indices.length; start += MAX_BLOCK_EVENTS) {
      starts.push(at + start);
    }
    order.set(indices, at);
    at += indices.length;
  }
  starts.push(kept);
  return { order, starts };
}

/**
 * Encodes a batch's events (any clients and times), or those `keep` says, as blocks: per client and hour,
 * at most MAX_BLOCK_EVENTS each.
 */
export function encodeBlocks(batch: EventBatch, keep?: readonly boolean[]): EncodedBlock[] {
  const { order, starts } = blockOrder(batch, keep);
  if (order.length === 0) return [];
  const times = new Float64Array(order.length);
  for (let i = 0; i < order.length; i += 1) times[i] = batch.times[order[i]];
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
          const dictionary = narrow(batch.values[field], batch.codes[field], order, start, end);
          dictionaries.set(field, dictionary);
          return textLayout(dictionary);
        }),
        n,
      ),
    );
    blocks.push({
      clientId: batch.clientIds[order[start]],
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
