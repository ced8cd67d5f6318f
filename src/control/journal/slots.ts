// Where the journal keeps its entries: a column per field (typed arrays for numbers, UTF-8 bytes for the
// request's own strings), one slot per entry, reused in turn. Keeping the last 1,000 requests as objects
// (an entry, the request's header and query objects, the parser's header strings) held thousands of young
// objects that every collection copied and then promoted: 4-7 us of CPU on each small request, 13-20% of
// a `GET /iam/clients/me` (bench/README.md). Here an entry holds no object of its own; the strings it
// points to are the route's operation ID and the method, which live as long as the server.

/** Bytes of request ID, URL and headers an entry keeps in its slot; a longer request keeps them on the heap. */
export const SLOT_BYTES = 2048;
/** Slots whose bytes are allocated together, when the journal first reaches them. */
const SLOTS_PER_PAGE = 256;

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
  /** Byte lengths of the request ID, URL and joined headers in the slot (-1: the slot's text is spilled). */
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
    if (!this.writeText(slot, entry.requestId, entry.url, headers)) {
      this.lengths[slot * 3] = -1;
      this.spilled.set(slot, [entry.requestId, entry.url, headers]);
    }
  }

  /** The entry in slot `seq % size` if it is still entry `seq`. */
  read(seq: number): SlotEntry | undefined {
    const slot = seq % this.size;
    if (this.seq[slot] !== seq) return undefined;
    const [requestId, url, headers] = this.textOf(slot);
    const clientId = this.clientId[slot];
    return {
      seq,
      timeMs: this.timeMs[slot],
      clientId: Number.isNaN(clientId) ? null : clientId,
      operationId: this.operationId[slot],
      method: this.method[slot],
      status: this.status[slot],
      elapsedMs: this.elapsedMs[slot],
      requestId,
      url,
      rawHeaders: headers === '' ? [] : headers.split('\n'),
    };
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

  private textOf(slot: number): readonly [string, string, string] {
    const spilled = this.spilled.get(slot);
    if (spilled) return spilled;
    const page = this.pageOf(slot);
    let offset = (slot % SLOTS_PER_PAGE) * SLOT_BYTES;
    const out: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const length = this.lengths[slot * 3 + i];
      out.push(page.toString('utf8', offset, offset + length));
      offset += length;
    }
    return out as unknown as [string, string, string];
  }

  private pageOf(slot: number): Buffer {
    const index = Math.floor(slot / SLOTS_PER_PAGE);
    for (let i = this.pages.length; i <= index; i += 1) {
      this.pages.push(Buffer.allocUnsafeSlow(Math.min(SLOTS_PER_PAGE, this.size - i * SLOTS_PER_PAGE) * SLOT_BYTES));
    }
    return this.pages[index];
  }
}
