// The lexical layer of a master (BIND) zone file, RFC 1035 section 5.1: comments, quoted strings with
// their escapes, parentheses that continue an entry over several lines, and entries whose owner is left
// blank (the line starts with a space). Yields one entry per logical line, as soon as the line ends, so a
// caller can give the event loop a turn between entries of a large file.

export interface Token {
  /** The text with quotes removed and escapes decoded (\. stays \. in a name: callers refuse it). */
  text: string;
  /** Whether any part of the token was quoted. */
  quoted: boolean;
  /** Whether the token held a backslash escape. */
  escaped: boolean;
  /** The token as written (escapes and quotes kept), for fields that keep their escapes (an SOA mailbox). */
  raw: string;
}

export interface Entry {
  /** 1-based line where the entry starts. */
  line: number;
  /** The entry starts with white space: its owner is the previous entry's. */
  blankOwner: boolean;
  tokens: Token[];
}

export class ZoneFileError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

/** Decodes the escape at text[i] (the character after the backslash); returns the bytes and the next index. */
function escape(text: string, i: number, line: number): [Buffer, number] {
  const digits = /^\d{3}/.exec(text.slice(i, i + 3));
  if (digits) {
    const value = Number(digits[0]);
    if (value > 255) throw new ZoneFileError(line, `\\${digits[0]} is not a byte`);
    return [Buffer.from([value]), i + 3];
  }
  if (i >= text.length) throw new ZoneFileError(line, 'a backslash ends the file');
  const char = String.fromCodePoint(text.codePointAt(i)!);
  return [Buffer.from(char), i + char.length];
}

/** A token's pieces as UTF-8: runs of text are encoded whole (a surrogate pair may span two pieces), escapes are bytes. */
function decodePieces(pieces: (string | Buffer)[]): string {
  const buffers: Buffer[] = [];
  let text = '';
  for (const piece of pieces) {
    if (typeof piece === 'string') text += piece;
    else {
      buffers.push(Buffer.from(text), piece);
      text = '';
    }
  }
  buffers.push(Buffer.from(text));
  return Buffer.concat(buffers).toString('utf8');
}

/** A run of characters with no meaning to the lexer: taken as one slice, not character by character. */
const PLAIN_RUN = /[^\\";\n \t\r()]+/y;

class Lexer {
  private tokens: Token[] = [];
  /** The pieces of the current token: text, or the bytes of an escape (\DDD may be one byte of a UTF-8 sequence). */
  private pieces: (string | Buffer)[] = [];
  private raw = '';
  private inToken = false;
  private quoted = false;
  private escaped = false;
  private depth = 0;
  private line = 1;
  private entryLine = 1;
  private blankOwner = false;
  private atLineStart = true;
  private done: Entry | undefined;

  constructor(private readonly text: string) {}

  /** Entries one at a time, each yielded as soon as its logical line ends. */
  *run(): Generator<Entry> {
    const { text } = this;
    let i = 0;
    while (i < text.length) {
      const ch = text[i];
      if (this.atLineStart && this.depth === 0 && this.tokens.length === 0 && !this.inToken) {
        this.entryLine = this.line;
        this.blankOwner = ch === ' ' || ch === '\t';
      }
      this.atLineStart = false;
      i = this.step(ch, i);
      if (this.done) {
        yield this.done;
        this.done = undefined;
      }
    }
    this.endToken();
    if (this.depth > 0) throw new ZoneFileError(this.entryLine, 'a parenthesis is not closed');
    this.endEntry();
    if (this.done) yield this.done;
  }

  private step(ch: string, i: number): number {
    if (ch === '\\') {
      const [bytes, next] = escape(this.text, i + 1, this.line);
      this.push(bytes, this.text.slice(i, next));
      this.escaped = true;
      return next;
    }
    if (ch === '"') return this.quotedString(i + 1);
    if (ch === ';') return this.comment(i);
    if (ch === '\n') {
      this.endToken();
      this.line += 1;
      this.atLineStart = true;
      if (this.depth === 0) this.endEntry();
      return i + 1;
    }
    if (ch === ' ' || ch === '\t' || ch === '\r') {
      this.endToken();
      return i + 1;
    }
    if (ch === '(' || ch === ')') {
      this.endToken();
      this.depth += ch === '(' ? 1 : -1;
      if (this.depth < 0) throw new ZoneFileError(this.line, 'a closing parenthesis without an opening one');
      return i + 1;
    }
    PLAIN_RUN.lastIndex = i;
    const run = PLAIN_RUN.exec(this.text)![0];
    this.push(run, run);
    return i + run.length;
  }

  private quotedString(start: number): number {
    const { text } = this;
    this.quoted = true;
    this.inToken = true;
    this.raw += '"';
    let i = start;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') {
        const [bytes, next] = escape(text, i + 1, this.line);
        this.push(bytes, text.slice(i, next));
        i = next;
        continue;
      }
      if (text[i] === '\n') this.line += 1;
      this.push(text[i], text[i]);
      i += 1;
    }
    if (i >= text.length) throw new ZoneFileError(this.entryLine, 'a quoted string is not closed');
    this.raw += '"';
    return i + 1;
  }

  private comment(i: number): number {
    const end = this.text.indexOf('\n', i);
    return end < 0 ? this.text.length : end;
  }

  private push(piece: string | Buffer, raw: string): void {
    this.pieces.push(piece);
    this.raw += raw;
    this.inToken = true;
  }

  private endToken(): void {
    if (!this.inToken) return;
    const text = this.pieces.some((p) => typeof p !== 'string') ? decodePieces(this.pieces) : this.pieces.join('');
    this.tokens.push({ text, quoted: this.quoted, escaped: this.escaped, raw: this.raw });
    this.pieces = [];
    this.raw = '';
    this.inToken = false;
    this.quoted = false;
    this.escaped = false;
  }

  private endEntry(): void {
    if (this.tokens.length > 0) this.done = { line: this.entryLine, blankOwner: this.blankOwner, tokens: this.tokens };
    this.tokens = [];
  }
}

/** The entries of a zone file, one per logical line, comments and empty lines left out, as the lexer reaches them. */
export function entries(text: string): Generator<Entry> {
  return new Lexer(text).run();
}

const UNIT_SECONDS: Record<string, number> = { w: 604_800, d: 86_400, h: 3600, m: 60, s: 1 };

/** A TTL as zone files write it: seconds, or BIND's units (1h30m, 2d); undefined when it is not one. */
export function parseTtl(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  if (!/^(\d+[wdhms])+$/i.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.toLowerCase().matchAll(/(\d+)([wdhms])/g)) total += Number(amount) * UNIT_SECONDS[unit];
  return total;
}
