// The request log's queries: the list with its exact count and pages in any order, export chunks, and one
// event's details, over the blocks read and counted by scan.ts; and the registry of every query
// reader threads run.
import { type EventRow, type FieldName, FIELD_PLACE, floorHour, HOUR_MS, INTEGER_FIELDS, Interner, PARTS } from './format.js';
import { Block, blocksOf, countAll, load, locate, type Plan, plan, partsOf, type Query, rangeBlocks, TIME_PART } from './scan.js';
import { decodeRow } from './decode.js';
import { topKeysQuery, trafficJsonQuery, trafficQuery } from './stats.js';
import type { EventFilter } from './filter.js';
import { csvLines } from './csv.js';

export type { Fetch, Query } from './scan.js';

export type Ordering = { column: string; descending: boolean };

/** The list record's fields, as stored. */
export const SUMMARY_FIELDS = [
  'id',
  'path',
  'client_ip',
  'method',
  'rule_name',
  'country',
  'action',
  'rule_id',
  'domain',
  'domain_id',
  'user_agent',
  'user_agent_client',
  'organization',
  'reference_id',
  'session_id',
  'status_code',
  'result',
  'traffic_types',
  'decision',
  'optional_action',
  'scheme',
  'http_version',
  'ja3',
] as const satisfies readonly FieldName[];
export type SummaryField = (typeof SUMMARY_FIELDS)[number];
/** An event of a list page or an export chunk: the list fields and the time. */
export type StoredEvent = Pick<EventRow, SummaryField | 'request_time'>;

const SUMMARY_PARTS = partsOf(['request_time', ...SUMMARY_FIELDS]);
const ALL_PARTS = PARTS.map((_, i) => i);

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
    idsOf.set(
      block,
      Int32Array.from({ length: column.entries }, (_, code) => met.id(column.text(code))),
    );
  }
  const values = met.values;
  const numeric = INTEGER_FIELDS.has(field);
  const sorted = values
    .map((_, i) => i)
    .sort((a, b) => (numeric ? Number(values[a]) - Number(values[b]) : values[a] < values[b] ? -1 : values[a] > values[b] ? 1 : 0));
  const rankOfId = new Int32Array(values.length);
  sorted.forEach((id, rank) => (rankOfId[id] = descending ? values.length - 1 - rank : rank));
  const of = new Map<Block, Int32Array>();
  for (const [block, codeIds] of idsOf)
    of.set(
      block,
      codeIds.map((id) => rankOfId[id]),
    );
  return { size: values.length, of };
}

/** The stored record of the events, list fields and time; `keep`: see load. */
function* summaries(refs: readonly Ref[], keep = true): Query<StoredEvent[]> {
  yield* load([...new Set(refs.map((r) => r.block))], SUMMARY_PARTS, keep);
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
  const refs =
    spec.ordering.column === 'request_time'
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
  return (
    ref.time < cursor.time ||
    (ref.time === cursor.time && (ref.block.header.blockId < cursor.blockId || (ref.block.header.blockId === cursor.blockId && ref.position < cursor.position)))
  );
}

/** The next `size` matching events after the cursor, newest first, reading only the hours it needs. */
export function* chunkQuery(filter: EventFilter, cursor: Cursor | null, size: number): Query<{ rows: StoredEvent[]; cursor: Cursor | null }> {
  const p = plan(filter);
  const range = cursor ? { ...filter, toExcl: Math.min(filter.toExcl, floorHour(cursor.time) + HOUR_MS) } : filter;
  const blocks = yield* rangeBlocks(range);
  const refs: Ref[] = [];
  for (const group of byHour(blocks)) {
    let events = yield* hourEvents(group, p, true);
    if (cursor) events = events.filter((r) => after(r, cursor));
    refs.push(...events.slice(0, size - refs.length));
    if (refs.length >= size) break;
  }
  const last = refs.at(-1);
  // An export reads each event's record once: caching its parts would only push out those of other
  // queries (and hold memory for nothing).
  return { rows: yield* summaries(refs, false), cursor: last ? { time: last.time, blockId: last.block.header.blockId, position: last.position } : null };
}

/** The next chunk (see chunkQuery) as CSV lines of `columns` (the export's), and where it ended. */
export function* csvChunkQuery(
  filter: EventFilter,
  cursor: Cursor | null,
  size: number,
  columns: string[],
): Query<{ bytes: Uint8Array; count: number; cursor: Cursor | null }> {
  const chunk = yield* chunkQuery(filter, cursor, size);
  // As UTF-8 bytes: from a reader thread they move to the main thread without a copy (text was copied
  // twice, through the message and then into the socket's bytes, on the main thread).
  const bytes = Buffer.from(csvLines(chunk.rows, columns));
  // A plain view, as a reader thread's answer arrives (not a Buffer): one type from either place.
  return { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), count: chunk.rows.length, cursor: chunk.cursor };
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
    const row = decodeRow(block.header, block.parts, position);
    return row.request_time < notBefore || row.domain_id !== domainId ? null : row;
  }
  return null;
}

/** Every query by name: what reader threads are asked to run (the arguments cross threads as values). */
export const QUERIES = {
  list: listQuery,
  count: countQuery,
  chunk: chunkQuery,
  csvChunk: csvChunkQuery,
  details: detailsQuery,
  topKeys: topKeysQuery,
  traffic: trafficQuery,
  trafficJson: trafficJsonQuery,
} as const;
export type QueryName = keyof typeof QUERIES;
export type QueryArgs<K extends QueryName> = Parameters<(typeof QUERIES)[K]>;
export type QueryResult<K extends QueryName> = ReturnType<(typeof QUERIES)[K]> extends Query<infer R> ? R : never;

export function startQuery<K extends QueryName>(name: K, args: QueryArgs<K>): Query<QueryResult<K>> {
  return (QUERIES[name] as (...a: unknown[]) => Query<QueryResult<K>>)(...args);
}
