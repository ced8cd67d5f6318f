// Decoding block parts (the format is described in format.ts): typed-array views over the stored
// bytes, dictionary entries decoded only when read.
import { type BlockHeader, type EventRow, type FieldName, FORMAT_VERSION, INTEGER_FIELDS, PARTS, type Summary, TIME_SECTION } from './format.js';

const align4 = (n: number) => (n + 3) & ~3;
const STRING_HEADER_BYTES = 24;

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

  /**
   * `charge` is told the memory each decoded entry takes (a cache counts it: decoded entries stay with
   * the column, and a column whose every entry is decoded holds several times its stored bytes).
   */
  constructor(
    private readonly buffer: Buffer,
    at: number,
    n: number,
    private readonly charge?: (bytes: number) => void,
  ) {
    const width = buffer[at + 1];
    this.ascii = buffer[at + 2] === 1;
    this.entries = buffer.readUInt32LE(at + 4);
    const textBytes = buffer.readUInt32LE(at + 8);
    this.offsets = new Uint32Array(buffer.buffer, buffer.byteOffset + at + 16, this.entries + 1);
    this.textAt = at + 16 + 4 * (this.entries + 1);
    this.textEnd = this.textAt + textBytes;
    const codesAt = buffer.byteOffset + align4(this.textEnd);
    this.codes =
      width === 1
        ? new Uint8Array(buffer.buffer, codesAt, n)
        : width === 2
          ? new Uint16Array(buffer.buffer, codesAt, n)
          : new Uint32Array(buffer.buffer, codesAt, n);
  }

  /** The value of dictionary entry `code`. */
  text(code: number): string {
    if (!this.decoded) {
      this.decoded = new Array(this.entries);
      this.charge?.(8 * this.entries);
    }
    let value = this.decoded[code];
    if (value === undefined) {
      value = this.buffer.toString(this.ascii ? 'latin1' : 'utf8', this.textAt + this.offsets[code], this.textAt + this.offsets[code + 1]);
      this.decoded[code] = value;
      // A string's header, and its characters at one byte each, two when not all ASCII.
      this.charge?.(STRING_HEADER_BYTES + (this.ascii ? value.length : 2 * value.length));
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
  /** Bytes held as read: the stored part (entries decoded later are charged as they are, see TextColumn). */
  bytes: number;
}

/** `charge`: told the memory of each entry decoded later (see TextColumn). */
export function decodePart(raw: Buffer | Uint8Array, charge?: (bytes: number) => void): DecodedPart {
  const buffer = aligned(Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
  if (buffer[0] !== FORMAT_VERSION) throw new Error(`unknown block part format ${buffer[0]}`);
  const count = buffer[1];
  const n = buffer.readUInt32LE(4);
  const columns: Column[] = [];
  let at = 8 + 4 * count;
  for (let i = 0; i < count; i += 1) {
    const kind = buffer[at];
    columns.push(kind === TIME_SECTION ? new TimeColumn(buffer, at, n) : new TextColumn(buffer, at, n, charge));
    at += buffer.readUInt32LE(8 + 4 * i);
  }
  return { n, columns, bytes: buffer.length };
}

export function parseSummary(text: string): Summary {
  return JSON.parse(text) as Summary;
}

/** Event `i` of a block as a row: every stored field, integers as numbers. */
export function decodeRow(header: BlockHeader, parts: readonly (DecodedPart | undefined)[], i: number): EventRow {
  const row: Record<string, unknown> = { client_id: header.clientId };
  PARTS.forEach((fields, p) =>
    fields.forEach((field, index) => {
      const column = parts[p]!.columns[index];
      if (column instanceof TimeColumn) row.request_time = column.at(i);
      else row[field] = INTEGER_FIELDS.has(field as FieldName) ? Number(column.value(i)) : column.value(i);
    }),
  );
  return row as unknown as EventRow;
}

/** Every event of a block as rows again (for a rewrite: retention trimming an hour, compaction). */
export function decodeRows(header: BlockHeader, parts: readonly DecodedPart[]): EventRow[] {
  return Array.from({ length: header.n }, (_, i) => decodeRow(header, parts, i));
}
