// Queries over event blocks (see block-format.ts): the list with its exact count, pages in any order, one
// event's details, export chunks, and the statistics' aggregations.
//
// Every query is a generator that yields what it needs to read (block headers, summaries, parts) and
// gets it back, so one query code runs synchronously against SQLite (inside one read transaction, on a
// reader thread or the main thread) and asynchronously against PostgreSQL. See block-reader.ts.
import {
  type BlockHeader,
  type DecodedPart,
  type Dimension,
  DIMENSIONS,
  type EventRow,
  FIELD_PLACE,
  type FieldName,
  floorHour,
  globPrefix,
  HOUR_MS,
  INTEGER_FIELDS,
  Interner,
  PARTS,
  ROLLUPS,
  type Rollup,
  type Summary,
  TextColumn,
  TimeColumn,
} from './block-format.js';
import type { Condition, EventFilter } from './filter.js';

/** What a query asks its reader for. Results come back in the order asked. */
export type Fetch =
  /** Headers of a client's blocks with events in [fromHour, toHour), newest hour first, then newest block. */
  | { kind: 'blocks'; clientId: number; fromHour: number; toHour: number }
  | { kind: 'summaries'; blocks: readonly BlockHeader[] }
  /** Per block, the decoded parts asked for, in the order asked. */
  | { kind: 'parts'; blocks: readonly BlockHeader[]; parts: readonly number[] }
  /** The hour of each id stored for the client (ids not stored are left out). */
  | { kind: 'idHours'; clientId: number; ids: readonly string[] };

export type Query<R> = Generator<Fetch, R, unknown>;

function* blocksOf(clientId: number, fromHour: number, toHour: number): Query<BlockHeader[]> {
  return (yield { kind: 'blocks', clientId, fromHour, toHour }) as BlockHeader[];
}

export type Ordering = { column: string; descending: boolean };

/** The list record's fields, as stored. */
export const SUMMARY_FIELDS = [
  'id', 'path', 'client_ip', 'method', 'rule_name', 'country', 'action', 'rule_id', 'domain', 'domain_id', 'user_agent', 'user_agent_client',
  'organization', 'reference_id', 'session_id', 'status_code', 'result', 'traffic_types', 'decision', 'optional_action', 'scheme', 'http_version', 'ja3',
] as const satisfies readonly FieldName[];
export type SummaryField = (typeof SUMMARY_FIELDS)[number];
/** An event of a list page or an export chunk: the list fields and the time. */
export type StoredEvent = Pick<EventRow, SummaryField | 'request_time'>;

const partsOf = (fields: readonly (FieldName | 'request_time')[]) => [...new Set(fields.map((f) => FIELD_PLACE[f].part))];
const TIME_PART = FIELD_PLACE.request_time.part;
const SUMMARY_PARTS = partsOf(['request_time', ...SUMMARY_FIELDS]);
const ALL_PARTS = PARTS.map((_, i) => i);

// ---------------------------------------------------------------------------------------------------
// Blocks as a query sees them

class Block {
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
function* load(blocks: readonly Block[], parts: readonly number[]): Query<void> {
  const missing = blocks.filter((b) => parts.some((p) => b.parts[p] === undefined));
  if (missing.length === 0) return;
  const got = (yield { kind: 'parts', blocks: missing.map((b) => b.header), parts }) as DecodedPart[][];
  missing.forEach((block, i) => parts.forEach((p, j) => (block.parts[p] = got[i][j])));
}

function* loadSummaries(blocks: readonly Block[]): Query<void> {
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

const regexSpecial = /[.*+?^${}()|[\]\\]/g;
/** `*` is the only wildcard of a path glob; every other character matches itself. */
export function globRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.split('*').map((p) => p.replace(regexSpecial, '\\$&')).join('[\\s\\S]*')}$`);
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
    const patterns = condition.patterns.map(globRegExp);
    return { field: 'path', negate: condition.negate, entries: (column) => byPredicate(column, (path) => patterns.some((p) => p.test(path))) };
  }
  if (condition.kind === 'substring') {
    const needles = condition.values.map((v) => v.toLowerCase());
    return { field: 'user_agent', negate: condition.negate, entries: (column) => byPredicate(column, (ua) => needles.some((n) => ua.toLowerCase().includes(n))) };
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
interface Plan {
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

function plan(filter: EventFilter): Plan {
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

/** The parts scanning a block needs: the tests', and its times when it reaches past the range. */
function scanParts(block: Block, p: Plan): number[] {
  return inside(block, p.filter) ? p.parts : [...p.parts, TIME_PART];
}

function* scanAll(blocks: readonly Block[], p: Plan): Query<void> {
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
function* rangeBlocks(filter: EventFilter): Query<Block[]> {
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
function* countAll(blocks: readonly Block[], p: Plan): Query<number> {
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
function* locate(blocks: readonly Block[], p: Plan): Query<void> {
  yield* scanAll(blocks.filter((b) => b.count !== 0 && !b.located), p);
}

// ---------------------------------------------------------------------------------------------------
// Events in order

/** An event: its block and position, and the keys the order needs. */
interface Ref {
  block: Block;
  position: number;
  time: number;
  rank: number;
}

/** Newest first: time, then block, then position (later blocks and positions arrived later). */
function compareDescending(a: Ref, b: Ref): number {
  return b.time - a.time || b.block.header.blockId - a.block.header.blockId || b.position - a.position;
}

/** Blocks grouped by hour, in the order given (blocks of one hour may overlap in time, hours do not). */
function byHour(blocks: readonly Block[]): Block[][] {
  const groups: Block[][] = [];
  for (const block of blocks) {
    const last = groups.at(-1);
    if (last && last[0].header.hour === block.header.hour) last.push(block);
    else groups.push([block]);
  }
  return groups;
}

/** Matching events of one hour's blocks, in time order (newest first when descending). */
function* hourEvents(group: readonly Block[], p: Plan, descending: boolean): Query<Ref[]> {
  yield* locate(group, p);
  yield* load(group, [TIME_PART]);
  const refs: Ref[] = [];
  for (const block of group) {
    const time = block.time();
    block.each((position) => refs.push({ block, position, time: time.at(position), rank: 0 }));
  }
  refs.sort(descending ? compareDescending : (a, b) => compareDescending(b, a));
  return refs;
}

/** A page in time order: whole hours before the offset are skipped by their counts. */
function* timePage(blocks: readonly Block[], p: Plan, descending: boolean, limit: number, offset: number): Query<Ref[]> {
  const groups = byHour(descending ? blocks : [...blocks].reverse());
  const out: Ref[] = [];
  let skipped = 0;
  for (const group of groups) {
    const count = group.reduce((sum, b) => sum + b.count, 0);
    if (count === 0) continue;
    if (skipped + count <= offset) {
      skipped += count;
      continue;
    }
    const refs = yield* hourEvents(group, p, descending);
    out.push(...refs.slice(Math.max(0, offset - skipped), Math.max(0, offset - skipped) + limit - out.length));
    skipped += count;
    if (out.length >= limit) break;
  }
  return out;
}

/** Events sorted at once when a field-ordered page's ranks hold no more than this. */
const SORT_AT_ONCE = 100_000;

/**
 * A page ordered by a field: every matching event's value gets a rank among all values met (sorted
 * once), and a histogram of ranks finds which ranks the page falls in. Those ranks' events are sorted at
 * once when few; when one value holds very many (ordering by decision: millions), each rank is walked in
 * time order hour by hour instead, whole hours skipped by their counts, so only what the page needs is
 * sorted.
 */
function* fieldPage(blocks: readonly Block[], p: Plan, ordering: Ordering, limit: number, offset: number, sortAtOnce: number): Query<Ref[]> {
  const field = ordering.column as FieldName;
  const withEvents = blocks.filter((b) => b.count > 0);
  yield* locate(withEvents, p);
  yield* load(withEvents, [FIELD_PLACE[field].part, TIME_PART]);
  const ranks = rankValues(withEvents, field, ordering.descending);
  const rankOfEvent = (block: Block) => {
    const codes = block.text(field).codes;
    const rankOf = ranks.of.get(block)!;
    return (position: number) => rankOf[codes[position]];
  };
  const histogram = new Float64Array(ranks.size);
  for (const block of withEvents) {
    const rankAt = rankOfEvent(block);
    block.each((position) => (histogram[rankAt(position)] += 1));
  }
  let before = 0;
  let first = 0;
  while (first < ranks.size && before + histogram[first] <= offset) before += histogram[first++];
  let last = first;
  let held = histogram[first] ?? 0;
  while (last + 1 < ranks.size && before + held < offset + limit) held += histogram[++last];
  const byTime = ordering.descending ? compareDescending : (x: Ref, y: Ref) => compareDescending(y, x);
  const refsOf = (group: readonly Block[], inRanks: (rank: number) => boolean) => {
    const refs: Ref[] = [];
    for (const block of group) {
      const rankAt = rankOfEvent(block);
      const time = block.time();
      block.each((position) => {
        const rank = rankAt(position);
        if (inRanks(rank)) refs.push({ block, position, time: time.at(position), rank });
      });
    }
    return refs;
  };
  if (held <= sortAtOnce) {
    const refs = refsOf(withEvents, (rank) => rank >= first && rank <= last);
    refs.sort((x, y) => x.rank - y.rank || byTime(x, y));
    return refs.slice(offset - before, offset - before + limit);
  }
  const out: Ref[] = [];
  let skip = offset - before;
  const groups = byHour(ordering.descending ? withEvents : [...withEvents].reverse());
  for (let rank = first; rank <= last && out.length < limit; rank += 1) {
    for (const group of groups) {
      let count = 0;
      for (const block of group) {
        const rankAt = rankOfEvent(block);
        block.each((position) => {
          if (rankAt(position) === rank) count += 1;
        });
      }
      if (skip >= count) {
        skip -= count;
        continue;
      }
      const refs = refsOf(group, (r) => r === rank).sort(byTime);
      out.push(...refs.slice(skip, skip + limit - out.length));
      skip = 0;
      if (out.length >= limit) break;
    }
  }
  return out;
}

/** Every value of a field met in the blocks, ranked in the order asked; per block, the rank of each code. */
function rankValues(blocks: readonly Block[], field: FieldName, descending: boolean): { size: number; of: Map<Block, Int32Array> } {
  const met = new Interner();
  const idsOf = new Map<Block, Int32Array>();
  for (const block of blocks) {
    const column = block.text(field);
    idsOf.set(block, Int32Array.from({ length: column.entries }, (_, code) => met.id(column.text(code))));
  }
  const values = met.values;
  const numeric = INTEGER_FIELDS.has(field);
  const sorted = values.map((_, i) => i).sort((a, b) => (numeric ? Number(values[a]) - Number(values[b]) : values[a] < values[b] ? -1 : values[a] > values[b] ? 1 : 0));
  const rankOfId = new Int32Array(values.length);
  sorted.forEach((id, rank) => (rankOfId[id] = descending ? values.length - 1 - rank : rank));
  const of = new Map<Block, Int32Array>();
  for (const [block, codeIds] of idsOf) of.set(block, codeIds.map((id) => rankOfId[id]));
  return { size: values.length, of };
}

/** The stored record of the events, list fields and time. */
function* summaries(refs: readonly Ref[]): Query<StoredEvent[]> {
  yield* load([...new Set(refs.map((r) => r.block))], SUMMARY_PARTS);
  return refs.map(({ block, position }) => {
    const out = { request_time: block.time().at(position) } as Record<string, unknown>;
    for (const field of SUMMARY_FIELDS) out[field] = block.value(field, position);
    return out as StoredEvent;
  });
}

// ---------------------------------------------------------------------------------------------------
// The queries

export interface ListSpec {
  filter: EventFilter;
  ordering: Ordering;
  limit: number;
  offset: number;
}

/** `sortAtOnce`: see fieldPage (a parameter so tests can take both ways with little data). */
export function* listQuery(spec: ListSpec, sortAtOnce = SORT_AT_ONCE): Query<{ count: number; rows: StoredEvent[] }> {
  const p = plan(spec.filter);
  const blocks = yield* rangeBlocks(spec.filter);
  const count = yield* countAll(blocks, p);
  if (spec.limit === 0 || spec.offset >= count) return { count, rows: [] };
  const refs = spec.ordering.column === 'request_time'
    ? yield* timePage(blocks, p, spec.ordering.descending, spec.limit, spec.offset)
    : yield* fieldPage(blocks, p, spec.ordering, spec.limit, spec.offset, sortAtOnce);
  return { count, rows: yield* summaries(refs) };
}

export function* countQuery(filter: EventFilter): Query<number> {
  return yield* countAll(yield* rangeBlocks(filter), plan(filter));
}

/** Where an export stopped: the last event given, in newest-first order. */
export interface Cursor {
  time: number;
  blockId: number;
  position: number;
}

/** Whether an event comes after the cursor in newest-first order. */
function after(ref: Ref, cursor: Cursor): boolean {
  return ref.time < cursor.time || (ref.time === cursor.time && (ref.block.header.blockId < cursor.blockId || (ref.block.header.blockId === cursor.blockId && ref.position < cursor.position)));
}

/** The next `size` matching events after the cursor, newest first, reading only the hours it needs. */
export function* chunkQuery(filter: EventFilter, cursor: Cursor | null, size: number): Query<{ rows: StoredEvent[]; cursor: Cursor | null }> {
  const p = plan(filter);
  const range = cursor ? { ...filter, toExcl: Math.min(filter.toExcl, floorHour(cursor.time) + HOUR_MS) } : filter;
  const blocks = yield* rangeBlocks(range);
  const refs: Ref[] = [];
  for (const group of byHour(blocks)) {
    yield* scanAll(group, p);
    let events = yield* hourEvents(group, p, true);
    if (cursor) events = events.filter((r) => after(r, cursor));
    refs.push(...events.slice(0, size - refs.length));
    if (refs.length >= size) break;
  }
  const last = refs.at(-1);
  return { rows: yield* summaries(refs), cursor: last ? { time: last.time, blockId: last.block.header.blockId, position: last.position } : null };
}

/** One event in full, by id, if it belongs to the domain and is not older than `notBefore`. */
export function* detailsQuery(clientId: number, domainId: number, id: string, notBefore: number): Query<EventRow | null> {
  const hours = (yield { kind: 'idHours', clientId, ids: [id] }) as Map<string, number>;
  const hour = hours.get(id);
  if (hour === undefined) return null;
  const needle = Buffer.from(id, 'utf8');
  const blocks = (yield* blocksOf(clientId, hour, hour + HOUR_MS)).map((h) => new Block(h));
  yield* load(blocks, [FIELD_PLACE.id.part]);
  for (const block of blocks) {
    const ids = block.text('id');
    const code = ids.find(needle);
    if (code < 0) continue;
    const position = ids.codes.indexOf(code);
    yield* load([block], ALL_PARTS);
    const time = block.time().at(position);
    if (time < notBefore || block.value('domain_id', position) !== domainId) return null;
    const row = { client_id: clientId, request_time: time } as Record<string, unknown>;
    for (const fields of PARTS) for (const field of fields) if (field !== 'request_time') row[field] = block.value(field, position);
    return row as unknown as EventRow;
  }
  return null;
}

/** Events per value of one field, decision and domain; for client IPs also one country and organisation. */
export interface KeyCount {
  key: string;
  decision: string;
  domain_id: number;
  n: number;
}

export function* countByQuery(filter: EventFilter, field: FieldName): Query<{ counts: KeyCount[]; described: Record<string, { country: string; organization: string }> }> {
  const p = plan(filter);
  const blocks = yield* rangeBlocks(filter);
  yield* scanAll(blocks, p);
  const withEvents = blocks.filter((b) => b.count > 0);
  const describe = field === 'client_ip';
  const wanted = [field, 'decision', 'domain_id', ...(describe ? ['country', 'organization'] : [])] as FieldName[];
  yield* load(withEvents, partsOf(wanted));
  const totals = new Map<string, KeyCount>();
  const described: Record<string, { country: string; organization: string }> = {};
  for (const block of withEvents) {
    const keys = block.text(field);
    const decisions = block.text('decision');
    const domains = block.text('domain_id');
    const local = new Map<number, number>();
    const width = decisions.entries * domains.entries;
    const seen = describe ? new Uint8Array(keys.entries) : undefined;
    block.each((i) => {
      const combo = keys.codes[i] * width + decisions.codes[i] * domains.entries + domains.codes[i];
      local.set(combo, (local.get(combo) ?? 0) + 1);
      if (seen && !seen[keys.codes[i]]) {
        seen[keys.codes[i]] = 1;
        described[keys.value(i)] ??= { country: block.text('country').value(i), organization: block.text('organization').value(i) };
      }
    });
    for (const [combo, n] of local) {
      const key = keys.text(Math.floor(combo / width));
      const decision = decisions.text(Math.floor((combo % width) / domains.entries));
      const domain = Number(domains.text(combo % domains.entries));
      const id = `${key}\u0001${decision}\u0001${domain}`;
      const entry = totals.get(id);
      if (entry) entry.n += n;
      else totals.set(id, { key, decision, domain_id: domain, n });
    }
  }
  return { counts: [...totals.values()], described };
}

/** Events per time bucket, decision, status class and traffic types (bits: api 1, ajax 2, static 4). */
export interface TrafficCount {
  bucket: number;
  decision: string;
  status_class: number;
  types: number;
  n: number;
}

export const TRAFFIC_TYPE_BITS = { api: 1, ajax: 2, static: 4 } as const;

export function trafficTypeMask(types: string): number {
  let mask = 0;
  for (const t of types.split(',')) mask |= TRAFFIC_TYPE_BITS[t as keyof typeof TRAFFIC_TYPE_BITS] ?? 0;
  return mask;
}

export function* trafficQuery(filter: EventFilter, bucketMs: number): Query<TrafficCount[]> {
  const p = plan(filter);
  const blocks = yield* rangeBlocks(filter);
  yield* scanAll(blocks, p);
  const withEvents = blocks.filter((b) => b.count > 0);
  yield* load(withEvents, partsOf(['request_time', 'decision', 'status_code', 'traffic_types']));
  const totals = new Map<string, TrafficCount>();
  for (const block of withEvents) {
    const time = block.time();
    const decisions = block.text('decision');
    const statuses = block.text('status_code');
    const types = block.text('traffic_types');
    const classOf = Array.from({ length: statuses.entries }, (_, c) => Math.trunc(Number(statuses.text(c)) / 100));
    const maskOf = Array.from({ length: types.entries }, (_, c) => trafficTypeMask(types.text(c)));
    // Per block, counts by one number (bucket, decision code, status class, types); merged by value after.
    const local = new Map<number, number>();
    const perBucket = decisions.entries * 8 * 8;
    block.each((i) => {
      const key = Math.floor(time.at(i) / bucketMs) * perBucket + (decisions.codes[i] * 8 + classOf[statuses.codes[i]]) * 8 + maskOf[types.codes[i]];
      local.set(key, (local.get(key) ?? 0) + 1);
    });
    for (const [key, n] of local) {
      const bucket = Math.floor(key / perBucket) * bucketMs;
      const rest = key % perBucket;
      const decision = decisions.text(Math.floor(rest / 64));
      const statusClass = Math.floor(rest / 8) % 8;
      const mask = rest % 8;
      const id = `${bucket}\u0001${decision}\u0001${statusClass}\u0001${mask}`;
      const entry = totals.get(id);
      if (entry) entry.n += n;
      else totals.set(id, { bucket, decision, status_class: statusClass, types: mask, n });
    }
  }
  return [...totals.values()];
}

/** Every query by name: what reader threads are asked to run (the arguments cross threads as values). */
export const QUERIES = {
  list: listQuery,
  count: countQuery,
  chunk: chunkQuery,
  details: detailsQuery,
  countBy: countByQuery,
  traffic: trafficQuery,
} as const;
export type QueryName = keyof typeof QUERIES;
export type QueryArgs<K extends QueryName> = Parameters<(typeof QUERIES)[K]>;
export type QueryResult<K extends QueryName> = ReturnType<(typeof QUERIES)[K]> extends Query<infer R> ? R : never;

export function startQuery<K extends QueryName>(name: K, args: QueryArgs<K>): Query<QueryResult<K>> {
  return (QUERIES[name] as (...a: unknown[]) => Query<QueryResult<K>>)(...args);
}
