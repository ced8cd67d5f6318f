// Reading event blocks for a query (see format.ts): what a query asks its reader for, the blocks as
// a query sees them, filters compiled against each block's dictionaries, and exact counts (from block
// summaries where the filter allows, event by event otherwise). The queries themselves are in
// queries.ts (list, pages, details, export) and stats.ts (statistics, traffic).
//
// Every query is a generator that yields what it needs to read (block headers, summaries, parts) and
// gets it back, so one query code runs synchronously against SQLite (inside one read transaction, on a
// reader thread or the main thread) and asynchronously against PostgreSQL. See reader.ts.
import {
  type BlockHeader,
  type Dimension,
  DIMENSIONS,
  FIELD_PLACE,
  type FieldName,
  floorHour,
  globPrefix,
  INTEGER_FIELDS,
  PARTS,
  ROLLUPS,
  type Rollup,
  type Summary,
} from './format.js';
import { type DecodedPart, type TextColumn, type TimeColumn } from './decode.js';
import type { Condition, EventFilter } from './filter.js';

/** What a query asks its reader for. Results come back in the order asked. */
export type Fetch =
  /** Headers of a client's blocks with events in [fromHour, toHour), newest hour first, then newest block. */
  | { kind: 'blocks'; clientId: number; fromHour: number; toHour: number }
  | { kind: 'summaries'; blocks: readonly BlockHeader[] }
  /**
   * Per block, the decoded parts asked for, in the order asked. `keep: false`: parts read once and done
   * with (an export's), used from the reader's cache when there but not added to it.
   */
  | { kind: 'parts'; blocks: readonly BlockHeader[]; parts: readonly number[]; keep?: boolean }
  /** The hour of each id stored for the client (ids not stored are left out). */
  | { kind: 'idHours'; clientId: number; ids: readonly string[] };

export type Query<R> = Generator<Fetch, R, unknown>;

export function* blocksOf(clientId: number, fromHour: number, toHour: number): Query<BlockHeader[]> {
  return (yield { kind: 'blocks', clientId, fromHour, toHour }) as BlockHeader[];
}

/** The parts holding the fields, each once. */
export const partsOf = (fields: readonly (FieldName | 'request_time')[]) => [...new Set(fields.map((f) => FIELD_PLACE[f].part))];
export const TIME_PART = FIELD_PLACE.request_time.part;

// ---------------------------------------------------------------------------------------------------
// Blocks as a query sees them

export class Block {
  readonly parts: (DecodedPart | undefined)[] = new Array(PARTS.length);
  summary: Summary | undefined;
  /** Matching events, once counted: how many, and which (undefined: every event in [lo, hi)). */
  count = -1;
  /** Whether `lo`, `hi` and `positions` say which events match (a count from the summary does not). */
  located = false;
  lo = 0;
  hi = 0;
  positions: Uint32Array | undefined;

  constructor(readonly header: BlockHeader) {}

  text(field: FieldName): TextColumn {
    const place = FIELD_PLACE[field];
    return this.parts[place.part]!.columns[place.index] as TextColumn;
  }

  time(): TimeColumn {
    return this.parts[TIME_PART]!.columns[0] as TimeColumn;
  }

  /** The value of a field of event `i`, integers as numbers. */
  value(field: FieldName, i: number): string | number {
    const text = this.text(field).value(i);
    return INTEGER_FIELDS.has(field) ? Number(text) : text;
  }

  /** Matching positions in order (after counting). */
  each(visit: (position: number) => void): void {
    if (this.positions) for (const p of this.positions) visit(p);
    else for (let p = this.lo; p < this.hi; p += 1) visit(p);
  }
}

/** Reads the parts asked for of the blocks that lack any of them. */
export function* load(blocks: readonly Block[], parts: readonly number[], keep = true): Query<void> {
  const missing = blocks.filter((b) => parts.some((p) => b.parts[p] === undefined));
  if (missing.length === 0) return;
  const got = (yield { kind: 'parts', blocks: missing.map((b) => b.header), parts, keep }) as DecodedPart[][];
  missing.forEach((block, i) => parts.forEach((p, j) => (block.parts[p] = got[i][j])));
}

export function* loadSummaries(blocks: readonly Block[]): Query<void> {
  const missing = blocks.filter((b) => b.summary === undefined);
  if (missing.length === 0) return;
  const got = (yield { kind: 'summaries', blocks: missing.map((b) => b.header) }) as Summary[];
  missing.forEach((block, i) => (block.summary = got[i]));
}

// ---------------------------------------------------------------------------------------------------
// Filters

/** Which dictionary entries of a block pass one condition: all, none, or a table by code. */
type Pass = 'all' | 'none' | Uint8Array;

interface Test {
  field: FieldName;
  /** Which entries pass, before negation: null when none does. */
  entries(column: TextColumn): Uint8Array | null;
  negate: boolean;
}

/**
 * `*` is the only wildcard of a path glob; every other character matches itself. Matched without a
 * regular expression: a backtracking engine takes exponential time on globs such as `*a*a*a*b` against a
 * long path (a client's query held a reader thread for minutes). Here the pieces between stars are found
 * left to right, each at its first place after the previous one: that first place is always a right
 * choice for a star-only glob, so nothing is ever retried, and the time is linear in the pieces' searches.
 */
export function globMatcher(glob: string): (text: string) => boolean {
  const pieces = glob.split('*');
  if (pieces.length === 1) return (text) => text === glob;
  const head = pieces[0];
  const tail = pieces[pieces.length - 1];
  const middle = pieces.slice(1, -1).filter((piece) => piece !== '');
  const least = head.length + tail.length + middle.reduce((n, piece) => n + piece.length, 0);
  return (text) => {
    if (text.length < least || !text.startsWith(head) || !text.endsWith(tail)) return false;
    let at = head.length;
    const end = text.length - tail.length;
    for (const piece of middle) {
      const found = text.indexOf(piece, at);
      if (found < 0 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  };
}

function byPredicate(column: TextColumn, predicate: (value: string) => boolean): Uint8Array | null {
  const table = new Uint8Array(column.entries);
  let any = false;
  for (let code = 0; code < column.entries; code += 1) {
    if (predicate(column.text(code))) {
      table[code] = 1;
      any = true;
    }
  }
  return any ? table : null;
}

function testOf(condition: Condition): Test {
  if (condition.kind === 'in') {
    const needles = condition.values.map((v) => Buffer.from(String(v), 'utf8'));
    return {
      field: condition.column as FieldName,
      negate: condition.negate,
      entries(column) {
        let table: Uint8Array | null = null;
        for (const needle of needles) {
          const code = column.find(needle);
          if (code < 0) continue;
          table ??= new Uint8Array(column.entries);
          table[code] = 1;
        }
        return table;
      },
    };
  }
  if (condition.kind === 'glob') {
    const patterns = condition.patterns.map(globMatcher);
    return { field: 'path', negate: condition.negate, entries: (column) => byPredicate(column, (path) => patterns.some((matches) => matches(path))) };
  }
  if (condition.kind === 'substring') {
    const needles = condition.values.map((v) => v.toLowerCase());
    return {
      field: 'user_agent',
      negate: condition.negate,
      entries: (column) => byPredicate(column, (ua) => needles.some((n) => ua.toLowerCase().includes(n))),
    };
  }
  const tags = condition.values.map((t) => `,${t},`);
  return { field: 'tags', negate: condition.negate, entries: (column) => byPredicate(column, (value) => tags.some((t) => value.includes(t))) };
}

function passOf(test: Test, column: TextColumn): Pass {
  const table = test.entries(column);
  if (!test.negate) return table ?? 'none';
  if (!table) return 'all';
  for (let code = 0; code < table.length; code += 1) table[code] ^= 1;
  return table;
}

/** A filter compiled once per query. */
export interface Plan {
  filter: EventFilter;
  tests: Test[];
  /** Parts the tests read. */
  parts: number[];
  /** The rollup whose dimensions cover every condition, with each condition's dimension and values. */
  rollup: { rollup: Rollup; conditions: { dim: Dimension; values: Set<string>; negate: boolean }[] } | undefined;
}

/**
 * The conditions as summary dimensions, or undefined when one cannot be counted from summaries (IPs,
 * ids, user agents, tags, globs not of the form `/segment/*`).
 */
function asDimensions(conditions: readonly Condition[]): { dim: Dimension; values: Set<string>; negate: boolean }[] | undefined {
  const out: { dim: Dimension; values: Set<string>; negate: boolean }[] = [];
  for (const c of conditions) {
    if (c.kind === 'in' && (DIMENSIONS as readonly string[]).includes(c.column)) {
      out.push({ dim: c.column as Dimension, values: new Set(c.values.map(String)), negate: c.negate });
    } else if (c.kind === 'glob') {
      const prefixes = c.patterns.map(globPrefix);
      if (prefixes.some((p) => p === undefined)) return undefined;
      out.push({ dim: 'path_prefix', values: new Set(prefixes as string[]), negate: c.negate });
    } else {
      return undefined;
    }
  }
  return out;
}

export function plan(filter: EventFilter): Plan {
  const tests = filter.conditions.map(testOf);
  const dims = asDimensions(filter.conditions);
  const rollup = dims && ROLLUPS.find((r) => dims.every((d) => r.dims.includes(d.dim)));
  return { filter, tests, parts: partsOf(tests.map((t) => t.field)), rollup: rollup && dims ? { rollup, conditions: dims } : undefined };
}

const inside = (b: Block, filter: EventFilter) => b.header.firstTime >= filter.from && b.header.lastTime < filter.toExcl;

/** Events of a block that pass the filter, from its summary (the block must lie wholly inside the range). */
function countFromSummary(block: Block, rollupPlan: NonNullable<Plan['rollup']>): number {
  const summary = block.summary!;
  const [a, b] = rollupPlan.rollup.dims;
  const passes = (dim: Dimension) => {
    const values = summary.dims[dim];
    const table = new Uint8Array(values.length).fill(1);
    for (const c of rollupPlan.conditions) {
      if (c.dim !== dim) continue;
      for (let i = 0; i < values.length; i += 1) if (c.values.has(values[i]) === c.negate) table[i] = 0;
    }
    return table;
  };
  const passA = passes(a);
  const passB = passes(b);
  const triples = summary.rollups[rollupPlan.rollup.name];
  let n = 0;
  for (let i = 0; i < triples.length; i += 3) if (passA[triples[i]] && passB[triples[i + 1]]) n += triples[i + 2];
  return n;
}

/** Finds a block's matching events (its parts for the tests and, at a range edge, its times are loaded). */
function scan(block: Block, p: Plan): void {
  const n = block.header.n;
  let lo = 0;
  let hi = n;
  if (!inside(block, p.filter)) {
    const time = block.time();
    lo = time.lowerBound(p.filter.from);
    hi = time.lowerBound(p.filter.toExcl);
  }
  block.lo = lo;
  block.hi = hi;
  block.positions = undefined;
  block.located = true;
  const tables: { codes: TextColumn['codes']; table: Uint8Array }[] = [];
  for (const test of p.tests) {
    const column = block.text(test.field);
    const pass = passOf(test, column);
    if (pass === 'none') {
      block.count = 0;
      block.positions = new Uint32Array(0);
      return;
    }
    if (pass !== 'all') tables.push({ codes: column.codes, table: pass });
  }
  if (tables.length === 0) {
    block.count = Math.max(0, hi - lo);
    return;
  }
  const out = new Uint32Array(Math.max(0, hi - lo));
  let count = 0;
  for (let i = lo; i < hi; i += 1) {
    let ok = true;
    for (let t = 0; t < tables.length && ok; t += 1) ok = tables[t].table[tables[t].codes[i]] === 1;
    if (ok) out[count++] = i;
  }
  block.count = count;
  block.positions = out.subarray(0, count);
}

export function* scanAll(blocks: readonly Block[], p: Plan): Query<void> {
  const edges = blocks.filter((b) => !inside(b, p.filter));
  const whole = blocks.filter((b) => inside(b, p.filter));
  if (whole.length > 0 && p.parts.length > 0) yield* load(whole, p.parts);
  if (edges.length > 0) yield* load(edges, [...p.parts, TIME_PART]);
  for (const block of blocks) scan(block, p);
}

/**
 * The client's blocks that may hold events of the range, newest first. A filter on request ids reads
 * only the hours those ids were stored in.
 */
export function* rangeBlocks(filter: EventFilter): Query<Block[]> {
  if (filter.from >= filter.toExcl) return [];
  let headers = yield* blocksOf(filter.clientId, floorHour(filter.from), filter.toExcl);
  const ids = filter.conditions.find((c) => c.kind === 'in' && c.column === 'id' && !c.negate);
  if (ids && ids.kind === 'in') {
    const hours = (yield { kind: 'idHours', clientId: filter.clientId, ids: ids.values.map(String) }) as Map<string, number>;
    const wanted = new Set(hours.values());
    headers = headers.filter((h) => wanted.has(h.hour));
  }
  return headers.filter((h) => h.lastTime >= filter.from && h.firstTime < filter.toExcl).map((h) => new Block(h));
}

/**
 * Counts every block: whole blocks from their summaries when the filter allows, the rest by scanning.
 * Scanned blocks keep their matching positions.
 */
export function* countAll(blocks: readonly Block[], p: Plan): Query<number> {
  const toScan: Block[] = [];
  const summarised: Block[] = [];
  for (const block of blocks) {
    if (!inside(block, p.filter)) toScan.push(block);
    else if (p.tests.length === 0) {
      block.count = block.header.n;
      block.lo = 0;
      block.hi = block.header.n;
      block.located = true;
    } else if (p.rollup) summarised.push(block);
    else toScan.push(block);
  }
  if (summarised.length > 0) {
    yield* loadSummaries(summarised);
    for (const block of summarised) block.count = countFromSummary(block, p.rollup!);
  }
  yield* scanAll(toScan, p);
  return blocks.reduce((sum, b) => sum + b.count, 0);
}

/** Makes sure blocks counted from summaries know their matching positions too. */
export function* locate(blocks: readonly Block[], p: Plan): Query<void> {
  yield* scanAll(
    blocks.filter((b) => b.count !== 0 && !b.located),
    p,
  );
}
