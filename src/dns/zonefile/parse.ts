// A master (BIND) zone file into records: $ORIGIN and $TTL, relative owner names and `@`, blank owners
// (the previous entry's), TTL and class in either order, TTL units. $INCLUDE and $GENERATE are refused
// (there is no file to include; a generated range is a BIND extension). Record types the API does not
// keep are skipped and reported, not refused.
import { recordName } from '../common/names.js';
import { contentProblem, type RRsetType } from '../rrsets/content.js';
import { IMPORTABLE_TYPES, parseRdata } from './rdata.js';
import { type Entry, entries, parseTtl, type Token, ZoneFileError } from './tokens.js';
import { TimeSlicer } from '../../platform/cooperative.js';

export interface ParsedRecord {
  line: number;
  /** Owner name, normalised (lower case, no trailing dot). */
  name: string;
  type: RRsetType;
  ttl: number;
  parts: unknown[];
}

export interface SkippedRecord {
  line: number;
  name: string;
  type: string;
  reason: string;
}

export interface ParsedZoneFile {
  records: ParsedRecord[];
  skipped: SkippedRecord[];
  /** Why reading stopped early: the first record `admit` refused (the rest of the file is not read). */
  refused?: string;
}

/** Asked for each record kept: a problem stops reading the file (a quota the file goes past). */
export type Admit = (name: string, type: RRsetType) => string | undefined;

const CLASSES = new Set(['IN', 'CH', 'HS', 'CS']);
const MAX_TTL = 2_147_483_647;

interface State {
  origin: string;
  defaultTtl: number | undefined;
  lastTtl: number | undefined;
  lastOwner: string | undefined;
}

/** An owner name of the file: absolute, or relative to the origin; normalised. */
function owner(token: Token, state: State, line: number): string {
  if (token.escaped || token.quoted) throw new ZoneFileError(line, `the owner name "${token.text}" uses escapes or quotes, which names here cannot hold`);
  const text = token.text === '@' ? state.origin : token.text.endsWith('.') ? token.text : `${token.text}.${state.origin}`;
  // Whether the name belongs to the zone is decided by the importer.
  const check = recordName(text);
  if ('problem' in check) throw new ZoneFileError(line, `the owner name "${token.text}" ${check.problem}`);
  return check.name;
}

function directive(entry: Entry, state: State): void {
  const [head, arg] = entry.tokens;
  const name = head.text.toUpperCase();
  if (name === '$ORIGIN') {
    if (!arg) throw new ZoneFileError(entry.line, '$ORIGIN needs a name');
    state.origin = owner(arg, state, entry.line);
  } else if (name === '$TTL') {
    const ttl = arg && parseTtl(arg.text);
    if (ttl === undefined || ttl > MAX_TTL) throw new ZoneFileError(entry.line, '$TTL needs a time to live (seconds, or units such as 1h)');
    state.defaultTtl = ttl;
  } else if (name === '$INCLUDE' || name === '$GENERATE') {
    throw new ZoneFileError(entry.line, `${name} is not supported: put the records themselves in the file`);
  } else {
    throw new ZoneFileError(entry.line, `unknown directive ${head.text}`);
  }
}

/** Owner, TTL, class and type of an entry; the rest of its tokens are the RDATA. */
function header(entry: Entry, state: State): { name: string; ttl: number | undefined; type: string; rdata: Token[] } {
  let index = 0;
  let name: string;
  if (entry.blankOwner) {
    if (!state.lastOwner) throw new ZoneFileError(entry.line, 'the first record has no owner name');
    name = state.lastOwner;
  } else {
    name = owner(entry.tokens[0], state, entry.line);
    index = 1;
  }
  let ttl: number | undefined;
  let klass: string | undefined;
  for (let n = 0; n < 2 && index < entry.tokens.length; n++) {
    const text = entry.tokens[index].text;
    if (ttl === undefined && parseTtl(text) !== undefined) ttl = parseTtl(text);
    else if (klass === undefined && CLASSES.has(text.toUpperCase())) klass = text.toUpperCase();
    else break;
    index += 1;
  }
  if (klass !== undefined && klass !== 'IN') throw new ZoneFileError(entry.line, `class ${klass} is not served: only IN`);
  if (ttl !== undefined && ttl > MAX_TTL) throw new ZoneFileError(entry.line, `TTL ${ttl} is above ${MAX_TTL}`);
  const type = entry.tokens[index]?.text.toUpperCase();
  if (!type) throw new ZoneFileError(entry.line, 'the record has no type');
  return { name, ttl, type, rdata: entry.tokens.slice(index + 1) };
}

/** Reads a file's entries in order: directives change the state, records are collected or skipped. */
class ZoneFileReader {
  private readonly state: State;
  readonly records: ParsedRecord[] = [];
  readonly skipped: SkippedRecord[] = [];
  refused: string | undefined;

  constructor(
    origin: string,
    private readonly admit: Admit | undefined,
  ) {
    this.state = { origin, defaultTtl: undefined, lastTtl: undefined, lastOwner: undefined };
  }

  read(entry: Entry): void {
    const { state } = this;
    if (!entry.blankOwner && entry.tokens[0].text.startsWith('$')) {
      directive(entry, state);
      return;
    }
    const head = header(entry, state);
    state.lastOwner = head.name;
    if (!IMPORTABLE_TYPES.includes(head.type)) {
      this.skipped.push({ line: entry.line, name: head.name, type: head.type, reason: `${head.type} records are not kept by this API` });
      return;
    }
    const rdata = parseRdata(head.type, head.rdata, state.origin);
    if ('problem' in rdata) throw new ZoneFileError(entry.line, `${head.type} ${rdata.problem}`);
    const type = head.type as RRsetType;
    const problem = type === 'SOA' ? undefined : contentProblem(type, rdata.parts);
    if (problem) throw new ZoneFileError(entry.line, `a ${type} record ${problem}`);
    // A record without a TTL takes $TTL, else the previous record's TTL (RFC 1035), else the SOA minimum.
    const ttl = head.ttl ?? state.defaultTtl ?? state.lastTtl ?? (type === 'SOA' ? Number(rdata.parts[6]) : undefined);
    if (ttl === undefined) throw new ZoneFileError(entry.line, 'the record has no TTL and no $TTL precedes it');
    state.lastTtl = ttl;
    this.refused = this.admit?.(head.name, type);
    if (this.refused === undefined) this.records.push({ line: entry.line, name: head.name, type, ttl, parts: rdata.parts });
  }
}

const withoutBom = (text: string) => text.replace(/^\uFEFF/, '');

/**
 * The records of a zone file. A small file is read on the server's main thread, so other requests get a
 * turn whenever a slice of work is spent (a file of 30,000 records held the server for about half a second
 * in one piece); a large one in a thread of its own (reading.ts). It stops at the first record `admit`
 * refuses: a file far over a quota is not read to its end.
 */
export async function parseZoneFile(text: string, origin: string, admit?: Admit): Promise<ParsedZoneFile> {
  const reader = new ZoneFileReader(origin, admit);
  const slicer = new TimeSlicer();
  for (const entry of entries(withoutBom(text))) {
    reader.read(entry);
    if (reader.refused !== undefined) return { records: reader.records, skipped: reader.skipped, refused: reader.refused };
    if (slicer.spent()) await slicer.nextSlice();
  }
  return { records: reader.records, skipped: reader.skipped };
}
