// Where the journal keeps its entries: a column per field (typed arrays for numbers, UTF-8 bytes for the
// request's own strings), one slot per entry, reused in turn. Keeping the last 1,000 requests as objects
// (an entry, the request's header and query objects, the parser's header strings) held thousands of young
// objects that every collection copied and then promoted: over 200,000 `GET /iam/clients/me`, scavenges
// took 261-288 ms and a full collection ran, against 77-90 ms and none with entries kept here, the same as
// with the journal off (bench/README.md). An entry holds no object of its own; the strings it points to
// are the route's operation ID and the method, which live as long as the server.

/** Bytes of request ID, URL and headers an entry keeps in its slot; a longer request keeps them on the heap. */
export const SLOT_BYTES = 2048;
/** Slots whose bytes are allocated together, when the journal first reaches them. */
const SLOTS_PER_PAGE = 256;

/** The texts of an entry, in their order in its slot. */
export const REQUEST_ID_PART = 0;
export const URL_PART = 1;
export const HEADERS_PART = 2;
export type TextPart = typeof REQUEST_ID_PART | typeof URL_PART | typeof HEADERS_PART;

/** The per-request strings of an entry: its request ID, URL (path and query) and raw headers. */
export interface EntryText {
  requestId: string;
  url: string;
  /** Node's `rawHeaders`: names and values in turn, as received. */
  rawHeaders: readonly string[];
}

/** An entry's fields, as record() takes them and read() gives them back. */
export interface SlotEntry extends EntryText {
  seq: number;
  timeMs: number;
  clientId: number | null;
  operationId: string | null;
  method: string;
  status: number;
  /** Real time spent answering, unrounded. */
  elapsedMs: number;
}

export class EntrySlots {
  private readonly seq: Float64Array;
  private readonly timeMs: Float64Array;
  /** NaN: no client. */
  private readonly clientId: Float64Array;
  private readonly status: Uint16Array;
  private readonly elapsedMs: Float64Array;
  private readonly operationId: (string | null)[];
  private readonly method: string[];
  /** Byte lengths of the request ID, URL and joined headers in the slot (unless spilled). */
  private readonly lengths: Int32Array;
  private readonly pages: Buffer[] = [];
  /** Texts of requests too long for a slot. */
  private readonly spilled = new Map<number, readonly [string, string, string]>();

  constructor(readonly size: number) {
    this.seq = new Float64Array(size);
    this.timeMs = new Float64Array(size);
    this.clientId = new Float64Array(size);
    this.status = new Uint16Array(size);
    this.elapsedMs = new Float64Array(size);
    this.operationId = new Array<string | null>(size).fill(null);
    this.method = new Array<string>(size).fill('');
    this.lengths = new Int32Array(size * 3);
  }

  /** Writes entry `seq` into slot `seq % size`, over the one before. */
  record(seq: number, entry: Omit<SlotEntry, 'seq'>): void {
    const slot = seq % this.size;
    this.seq[slot] = seq;
    this.timeMs[slot] = entry.timeMs;
    this.clientId[slot] = entry.clientId ?? Number.NaN;
    this.status[slot] = entry.status;
    this.elapsedMs[slot] = entry.elapsedMs;
    this.operationId[slot] = entry.operationId;
    this.method[slot] = entry.method;
    // Header names and values cannot hold a line break (Node's parser refuses them); an in-process request
    // that sends one shows its headers shifted, nothing else.
    const headers = entry.rawHeaders.join('\n');
    if (this.spilled.size > 0) this.spilled.delete(slot);
    if (!this.writeText(slot, entry.requestId, entry.url, headers)) this.spilled.set(slot, [entry.requestId, entry.url, headers]);
  }

  /** Whether slot `seq % size` still holds entry `seq`. */
  has(seq: number): boolean {
    return this.seq[seq % this.size] === seq;
  }

  /** Entry `seq`'s fields other than its text (nothing decoded); undefined once written over. */
  fields(seq: number): Omit<SlotEntry, keyof EntryText> | undefined {
    const slot = seq % this.size;
    if (this.seq[slot] !== seq) return undefined;
    const clientId = this.clientId[slot];
    return {
      seq,
      timeMs: this.timeMs[slot],
      clientId: Number.isNaN(clientId) ? null : clientId,
      operationId: this.operationId[slot],
      method: this.method[slot],
      status: this.status[slot],
      elapsedMs: this.elapsedMs[slot],
    };
  }

  /** Entry `seq`'s request ID, URL and headers, decoded; undefined once written over. */
  text(seq: number): EntryText | undefined {
    if (!this.has(seq)) return undefined;
    const headers = this.part(seq, HEADERS_PART);
    return { requestId: this.part(seq, REQUEST_ID_PART), url: this.part(seq, URL_PART), rawHeaders: headers === '' ? [] : headers.split('\n') };
  }

  /** One of entry `seq`'s texts, decoded alone (a filter on the request ID need not decode the headers). */
  part(seq: number, part: TextPart): string {
    const slot = seq % this.size;
    const spilled = this.spilled.get(slot);
    if (spilled) return spilled[part];
    let offset = (slot % SLOTS_PER_PAGE) * SLOT_BYTES;
    for (let i = 0; i < part; i += 1) offset += this.lengths[slot * 3 + i];
    return this.pageOf(slot).toString('utf8', offset, offset + this.lengths[slot * 3 + part]);
  }

  /** The whole entry `seq`; undefined once written over. */
  read(seq: number): SlotEntry | undefined {
    const fields = this.fields(seq);
    return fields && { ...fields, ...this.text(seq)! };
  }

  /** Forgets every entry. */
  clear(): void {
    this.seq.fill(0);
    this.spilled.clear();
  }

  /** Whether the three strings fit the slot; they are written there if so. */
  private writeText(slot: number, ...texts: [string, string, string]): boolean {
    const page = this.pageOf(slot);
    let offset = (slot % SLOTS_PER_PAGE) * SLOT_BYTES;
    const end = offset + SLOT_BYTES;
    for (let i = 0; i < 3; i += 1) {
      const room = end - offset;
      const written = texts[i] === '' ? 0 : page.write(texts[i], offset, room, 'utf8');
      // A text cut short fills its room (up to a partial character's 3 bytes less): only then is it measured.
      if (written >= room - 3 && written !== Buffer.byteLength(texts[i])) return false;
      this.lengths[slot * 3 + i] = written;
      offset += written;
    }
    return true;
  }

  private pageOf(slot: number): Buffer {
    const index = Math.floor(slot / SLOTS_PER_PAGE);
    for (let i = this.pages.length; i <= index; i += 1) {
      this.pages.push(Buffer.allocUnsafeSlow(Math.min(SLOTS_PER_PAGE, this.size - i * SLOTS_PER_PAGE) * SLOT_BYTES));
    }
    return this.pages[index];
  }
}
