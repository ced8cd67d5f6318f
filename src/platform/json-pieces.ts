// A large JSON text parsed by the engine's own JSON.parse, a piece at a time, with turns of the event loop
// between pieces. JSON.parse of a 1 MB body holds the main thread 9-20 ms in one piece; an incremental
// parser written in JavaScript (tried first) took about 90 ms for the same body, in slices, and its
// tokens were garbage the collector then copied and freed while other clients waited. Here a container
// whose text is longer than a piece is split at its members: runs of members short enough together are
// parsed at once (`[...]` or `{...}` around them), a member longer than a piece is split in turn. Only
// the text between pieces (separators, keys) is read here; every value is checked by JSON.parse itself.
import { SLICE_MS, TimeSlicer } from './cooperative.js';

/** Characters parsed at once: JSON.parse reads 50-100 MB/s, so a piece takes about a quarter of a slice. */
export const PIECE_CHARS = 16 * 1024;

/** A `__proto__` key: the caller refuses it as Fastify's parser does ('error'); assigning it would set a prototype. */
export class ForbiddenKey extends SyntaxError {}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * JSON.parse of the whole text, in pieces of at most about `piece` characters; throws SyntaxError as
 * JSON.parse does. The slicer is asked after every run of members (each is a piece's work, so it reads
 * the clock every time).
 */
export async function parseJsonInPieces(text: string, slicer = new TimeSlicer(SLICE_MS, 1), piece = PIECE_CHARS): Promise<unknown> {
  return new PieceParser(text, slicer, piece).parseDocument();
}

class PieceParser {
  /** Where each container longer than a piece ends (see matchBrackets). */
  private readonly ends = new Map<number, number>();

  constructor(
    private readonly text: string,
    private readonly slicer: TimeSlicer,
    private readonly piece: number,
  ) {}

  async parseDocument(): Promise<unknown> {
    await this.matchBrackets();
    const start = this.skipSpace(0);
    const end = this.valueEnd(start);
    if (this.skipSpace(end) !== this.text.length) this.fail(this.skipSpace(end));
    return this.parseValue(start, end);
  }

  /** The value spanning [start, end): at once when short, else member by member. */
  private async parseValue(start: number, end: number): Promise<unknown> {
    if (end - start <= this.piece) return this.parseNow(this.text.slice(start, end));
    const open = this.text.charCodeAt(start);
    if (open === OPEN_ARRAY) return this.parseArray(start, end);
    if (open === OPEN_OBJECT) return this.parseObject(start, end);
    // A long string or number cannot be split.
    return this.parseNow(this.text.slice(start, end));
  }

  private async parseArray(start: number, end: number): Promise<unknown[]> {
    const out: unknown[] = [];
    await this.members(start, end, CLOSE_ARRAY, false, async (runStart, runEnd, long) => {
      if (long) {
        out.push(await this.parseValue(runStart, runEnd));
        return;
      }
      const run = this.parseNow(`[${this.text.slice(runStart, runEnd)}]`) as unknown[];
      for (const item of run) out.push(item);
    });
    return out;
  }

  private async parseObject(start: number, end: number): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    await this.members(start, end, CLOSE_OBJECT, true, async (runStart, runEnd, long) => {
      if (long) {
        // One member whose value is longer than a piece: its key here, its value split in turn.
        const keyEnd = this.valueEnd(runStart);
        const key = this.parseNow(this.text.slice(runStart, keyEnd)) as string;
        const valueStart = this.skipSpace(this.skipSpace(keyEnd) + 1);
        assign(out, key, await this.parseValue(valueStart, runEnd));
        return;
      }
      const run = this.parseNow(`{${this.text.slice(runStart, runEnd)}}`) as Record<string, unknown>;
      for (const key of Object.keys(run)) assign(out, key, run[key]);
    });
    return out;
  }

  /**
   * Walks the members of the container spanning [start, end) and hands them on in runs: consecutive
   * members whose text together fits a piece (`long` false), or one member longer than a piece (`long`
   * true: `"key": value` in an object, the value in an array). Checks what lies between members; the
   * event loop gets a turn between runs once the slice is spent.
   */
  private async members(
    start: number,
    end: number,
    close: number,
    keyed: boolean,
    take: (runStart: number, runEnd: number, long: boolean) => Promise<void>,
  ): Promise<void> {
    let at = this.skipSpace(start + 1);
    if (this.text.charCodeAt(at) === close) return this.expectEnd(at, end);
    let runStart = -1;
    let runEnd = -1;
    const flush = async () => {
      if (runStart >= 0) await take(runStart, runEnd, false);
      runStart = -1;
      if (this.slicer.spent()) await this.slicer.nextSlice();
    };
    for (;;) {
      const memberStart = at;
      if (keyed) {
        if (this.text.charCodeAt(at) !== QUOTE) this.fail(at);
        at = this.skipSpace(this.valueEnd(at));
        if (this.text.charCodeAt(at) !== COLON) this.fail(at);
        at = this.skipSpace(at + 1);
      }
      const memberEnd = this.valueEnd(at);
      if (memberEnd - memberStart > this.piece) {
        await flush();
        await take(memberStart, memberEnd, true);
      } else {
        if (runStart >= 0 && memberEnd - runStart > this.piece) await flush();
        if (runStart < 0) runStart = memberStart;
        runEnd = memberEnd;
      }
      at = this.skipSpace(memberEnd);
      const next = this.text.charCodeAt(at);
      if (next === close) {
        await flush();
        return this.expectEnd(at, end);
      }
      if (next !== COMMA) this.fail(at);
      at = this.skipSpace(at + 1);
    }
  }

  private expectEnd(at: number, end: number): void {
    if (at + 1 !== end) this.fail(at);
  }

  /** One piece, by the engine's JSON.parse (which checks it). */
  private parseNow(text: string): unknown {
    return JSON.parse(text);
  }

  /**
   * One pass over the text noting where each container longer than a piece ends. Without it, finding the
   * end of a long member read its text again at every level it is nested in: 60 levels around 300 KB
   * took 130-155 ms instead of 30-60. Brackets are paired, not checked: a mismatch is found where the
   * members are read.
   */
  private async matchBrackets(): Promise<void> {
    const text = this.text;
    const open: number[] = [];
    let nextLook = 0;
    for (let i = 0; i < text.length; i += 1) {
      if (i >= nextLook) {
        nextLook = i + this.piece;
        if (this.slicer.spent()) await this.slicer.nextSlice();
      }
      const c = text.charCodeAt(i);
      if (c === QUOTE) i = this.stringEnd(i) - 1;
      else if (c === OPEN_ARRAY || c === OPEN_OBJECT) open.push(i);
      else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
        const start = open.pop();
        if (start !== undefined && i - start >= this.piece) this.ends.set(start, i + 1);
      }
    }
  }

  private skipSpace(at: number): number {
    while (at < this.text.length && isSpace(this.text.charCodeAt(at))) at += 1;
    return at;
  }

  /**
   * Where the value starting at `at` ends (the index after it). Containers are matched by counting
   * brackets outside strings; a scalar ends at the first separator. The value itself is not checked:
   * JSON.parse does that when it reads it.
   */
  private valueEnd(at: number): number {
    const text = this.text;
    const first = text.charCodeAt(at);
    if (first === QUOTE) return this.stringEnd(at);
    if (first !== OPEN_ARRAY && first !== OPEN_OBJECT) {
      let i = at;
      for (; i < text.length; i += 1) {
        const c = text.charCodeAt(i);
        if (c === COMMA || c === CLOSE_ARRAY || c === CLOSE_OBJECT || c === COLON || isSpace(c)) break;
      }
      if (i === at) this.fail(at);
      return i;
    }
    const known = this.ends.get(at);
    if (known !== undefined) return known;
    let depth = 0;
    for (let i = at; i < text.length; i += 1) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) i = this.stringEnd(i) - 1;
      else if (c === OPEN_ARRAY || c === OPEN_OBJECT) depth += 1;
      else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
        depth -= 1;
        if (depth === 0) return i + 1;
      }
    }
    return this.fail(text.length);
  }

  /** The index after the string starting at `at` (its closing quote). */
  private stringEnd(at: number): number {
    const text = this.text;
    for (let i = at + 1; i < text.length; i += 1) {
      const c = text.charCodeAt(i);
      if (c === BACKSLASH) i += 1;
      else if (c === QUOTE) return i + 1;
    }
    return this.fail(text.length);
  }

  private fail(at: number): never {
    throw new SyntaxError(at >= this.text.length ? 'Unexpected end of JSON input' : `Unexpected token in JSON at position ${at}`);
  }
}

/** `out[key] = value` as JSON.parse defines a member (a later duplicate replaces the value, keeping the first place). */
function assign(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') throw new ForbiddenKey('Object contains forbidden prototype property');
  out[key] = value;
}
