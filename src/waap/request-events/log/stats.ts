// Aggregations of the request log for the statistics endpoints: events per value of one field (split by
// decision and domain) and per time bucket, over exactly the events a filter selects.
import { type FieldName, Interner } from './format.js';
import { load, partsOf, plan, type Query, rangeBlocks, scanAll } from './scan.js';
import type { EventFilter } from './filter.js';

/** One value of a field with its events by decision, the lowest domain id it was seen on. */
export interface KeyTotals {
  key: string;
  total: number;
  blocked: number;
  monitored: number;
  allowed: number;
  passed: number;
  domain_id: number;
}

export interface TopKeys {
  /** The `top` values with the most events (or the most blocked plus monitored), most first, ties by value. */
  keys: KeyTotals[];
  /** For client IPs: the country and organisation of each returned key. */
  described: Record<string, { country: string; organization: string }>;
}

/**
 * The values of one field with the most events, over exactly the events the filter selects. Counted,
 * ranked and cut in the query, where the data is (a reader thread): only `top` rows reach the caller,
 * however many distinct values (a million client IPs) the range holds.
 */
export function* topKeysQuery(filter: EventFilter, field: FieldName, top: number, rankBy: 'total' | 'threats'): Query<TopKeys> {
  const p = plan(filter);
  const blocks = yield* rangeBlocks(filter);
  yield* scanAll(blocks, p);
  const withEvents = blocks.filter((b) => b.count > 0);
  const describe = field === 'client_ip';
  const wanted = [field, 'decision', 'domain_id', ...(describe ? ['country', 'organization'] : [])] as FieldName[];
  yield* load(withEvents, partsOf(wanted));
  const totals = new Map<string, KeyTotals>();
  const described = new Map<string, { country: string; organization: string }>();
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
        if (!described.has(keys.value(i)))
          described.set(keys.value(i), { country: block.text('country').value(i), organization: block.text('organization').value(i) });
      }
    });
    for (const [combo, n] of local) {
      const key = keys.text(Math.floor(combo / width));
      if (key === '') continue;
      const decision = decisions.text(Math.floor((combo % width) / domains.entries)) as 'blocked' | 'monitored' | 'allowed' | 'passed';
      const domain = Number(domains.text(combo % domains.entries));
      let entry = totals.get(key);
      if (!entry) totals.set(key, (entry = { key, total: 0, blocked: 0, monitored: 0, allowed: 0, passed: 0, domain_id: domain }));
      entry.total += n;
      if (decision in entry) entry[decision] += n;
      if (domain < entry.domain_id) entry.domain_id = domain;
    }
  }
  const rank = (e: KeyTotals) => (rankBy === 'threats' ? e.blocked + e.monitored : e.total);
  const keys = [...totals.values()].sort((a, b) => rank(b) - rank(a) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).slice(0, top);
  return { keys, described: describe ? Object.fromEntries(keys.filter((k) => described.has(k.key)).map((k) => [k.key, described.get(k.key)!])) : {} };
}

/**
 * Events per time bucket, decision, status class and traffic types, column by column (one entry per
 * combination met), in order of bucket: typed arrays, not an object per combination (hundreds of
 * thousands at a minute's resolution over 30 days). A reader thread turns them into the series' JSON
 * itself (trafficJsonQuery); the main thread does so only when the queries run there.
 */
export interface TrafficCounts {
  /** The decisions met; `decision` holds indexes into it. */
  decisions: string[];
  /** Start of the bucket, epoch ms. */
  bucket: Float64Array;
  decision: Uint16Array;
  /** HTTP status code / 100. */
  statusClass: Uint8Array;
  /** Traffic types (bits: api 1, ajax 2, static 4). */
  types: Uint8Array;
  events: Float64Array;
}

export const TRAFFIC_TYPE_BITS = { api: 1, ajax: 2, static: 4 } as const;

/** The counters of a traffic-series bucket, after its timestamp, in the order the API writes them. */
export const TRAFFIC_FIELDS = [
  'ajax',
  'api',
  'ddosBlocked',
  'origin2xx',
  'origin3xx',
  'originError4xx',
  'originError5xx',
  'monitored',
  'uncategorized',
  'static',
  'originTimeout',
  'customAllowed',
  'total',
  'passedToOrigin',
  'customBlocked',
  'policyAllowed',
  'policyBlocked',
] as const;

export function trafficTypeMask(types: string): number {
  let mask = 0;
  for (const t of types.split(',')) mask |= TRAFFIC_TYPE_BITS[t as keyof typeof TRAFFIC_TYPE_BITS] ?? 0;
  return mask;
}

/** Combinations per bucket a key leaves room for: decisions (at most MAX_DECISIONS) x 8 status classes x 8 type masks. */
const MAX_DECISIONS = 1024;
const PER_BUCKET = MAX_DECISIONS * 64;

export function* trafficQuery(filter: EventFilter, bucketMs: number): Query<TrafficCounts> {
  const p = plan(filter);
  const blocks = yield* rangeBlocks(filter);
  yield* scanAll(blocks, p);
  const withEvents = blocks.filter((b) => b.count > 0);
  yield* load(withEvents, partsOf(['request_time', 'decision', 'status_code', 'traffic_types']));
  // One number per combination: the bucket (counted from the range's first, so keys stay exact) and the
  // combination's codes; sorted, the keys come out in bucket order.
  const firstBucket = Math.floor(filter.from / bucketMs);
  const decisions = new Interner();
  const totals = new Map<number, number>();
  for (const block of withEvents) {
    const time = block.time();
    const decisionColumn = block.text('decision');
    const statuses = block.text('status_code');
    const types = block.text('traffic_types');
    const decisionOf = Array.from({ length: decisionColumn.entries }, (_, c) => decisions.id(decisionColumn.text(c)));
    if (decisions.values.length > MAX_DECISIONS) throw new Error(`more than ${MAX_DECISIONS} distinct decisions`);
    const classOf = Array.from({ length: statuses.entries }, (_, c) => Math.trunc(Number(statuses.text(c)) / 100) & 7);
    const maskOf = Array.from({ length: types.entries }, (_, c) => trafficTypeMask(types.text(c)));
    block.each((i) => {
      const bucket = Math.floor(time.at(i) / bucketMs) - firstBucket;
      const key = bucket * PER_BUCKET + (decisionOf[decisionColumn.codes[i]] * 8 + classOf[statuses.codes[i]]) * 8 + maskOf[types.codes[i]];
      totals.set(key, (totals.get(key) ?? 0) + 1);
    });
  }
  const keys = Float64Array.from(totals.keys()).sort();
  const out: TrafficCounts = {
    decisions: decisions.values,
    bucket: new Float64Array(keys.length),
    decision: new Uint16Array(keys.length),
    statusClass: new Uint8Array(keys.length),
    types: new Uint8Array(keys.length),
    events: new Float64Array(keys.length),
  };
  keys.forEach((key, i) => {
    const rest = key % PER_BUCKET;
    out.bucket[i] = (Math.floor(key / PER_BUCKET) + firstBucket) * bucketMs;
    out.decision[i] = Math.floor(rest / 64);
    out.statusClass[i] = Math.floor(rest / 8) % 8;
    out.types[i] = rest % 8;
    out.events[i] = totals.get(key)!;
  });
  return out;
}

const FIELD = Object.fromEntries(TRAFFIC_FIELDS.map((field, i) => [field, i])) as Record<(typeof TRAFFIC_FIELDS)[number], number>;
/** The counter of an HTTP status class (status / 100), or -1. */
const STATUS_FIELD = [-1, -1, FIELD.origin2xx, FIELD.origin3xx, FIELD.originError4xx, FIELD.originError5xx, -1, -1];
const TYPE_FIELDS = Object.entries(TRAFFIC_TYPE_BITS).map(([type, bit]) => [FIELD[type as keyof typeof TRAFFIC_TYPE_BITS], bit] as const);
const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const BUCKET_START = ascii('{"timestamp":');
const KEY_BYTES = TRAFFIC_FIELDS.map((field) => ascii(`,"${field}":`));
const COMMA = 44;
const BUCKET_END = 125; // }
/** The most bytes one bucket takes: its keys, 18 numbers of at most 24 characters (JSON's longest, `-1.2345678901234567e-308`), the closing brace and a comma. */
const MAX_BUCKET_BYTES = BUCKET_START.length + KEY_BYTES.reduce((n, key) => n + key.length, 0) + 18 * 24 + 2;
/** The counter each decision adds to besides the totals (none for a decision the series has no counter for). */
const DECISION_FIELD = new Map([
  ['blocked', FIELD.policyBlocked],
  ['passed', FIELD.uncategorized],
  ['monitored', FIELD.monitored],
  ['allowed', FIELD.customAllowed],
]);

/**
 * The traffic series as JSON: an array of the buckets with events, oldest first, each its `timestamp`
 * (UNIX seconds) and then TRAFFIC_FIELDS, compact, in pieces of `bucketsPerPiece` buckets (a caller on the
 * main thread gives the event loop a turn between two). A minute's resolution over 30 days is 43,200
 * buckets, about 12 MB: made as objects and strings (JSON.stringify, or text joined), it cost 70-120 ms
 * and as much again in garbage collection, so the digits are written straight into bytes.
 */
export function* trafficSeriesJson(counts: TrafficCounts, bucketsPerPiece = 64): Generator<Buffer> {
  const values: number[] = TRAFFIC_FIELDS.map(() => 0);
  const decisionField = counts.decisions.map((d) => DECISION_FIELD.get(d) ?? -1);
  const pieceBytes = Math.min(bucketsPerPiece, Math.max(counts.bucket.length, 1)) * MAX_BUCKET_BYTES + 2;
  let piece = Buffer.allocUnsafe(pieceBytes);
  let at = 0;
  let written = 0;
  piece[at++] = 91; // [
  const writeBucket = (bucketMs: number) => {
    if (written > 0) piece[at++] = COMMA;
    at = writeBytes(piece, at, BUCKET_START);
    at = writeNumber(piece, at, bucketMs / 1000);
    for (let f = 0; f < values.length; f += 1) {
      at = writeBytes(piece, at, KEY_BYTES[f]);
      at = writeNumber(piece, at, values[f]);
      values[f] = 0;
    }
    piece[at++] = BUCKET_END;
    written += 1;
  };
  for (let i = 0; i < counts.bucket.length; i += 1) {
    if (i > 0 && counts.bucket[i] !== counts.bucket[i - 1]) {
      writeBucket(counts.bucket[i - 1]);
      if (written % bucketsPerPiece === 0) {
        yield piece.subarray(0, at);
        piece = Buffer.allocUnsafe(pieceBytes);
        at = 0;
      }
    }
    const n = counts.events[i];
    values[FIELD.total] += n;
    const field = decisionField[counts.decision[i]];
    if (field !== FIELD.policyBlocked) {
      values[FIELD.passedToOrigin] += n;
      const status = STATUS_FIELD[counts.statusClass[i]];
      if (status >= 0) values[status] += n;
    }
    if (field >= 0) values[field] += n;
    for (const [type, bit] of TYPE_FIELDS) if (counts.types[i] & bit) values[type] += n;
  }
  if (counts.bucket.length > 0) writeBucket(counts.bucket[counts.bucket.length - 1]);
  piece[at++] = 93; // ]
  yield piece.subarray(0, at);
}

function writeBytes(target: Buffer, at: number, bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i += 1) target[at + i] = bytes[i];
  return at + bytes.length;
}

/** Writes a number as JSON does: a safe non-negative integer digit by digit (counts, seconds), anything else as its text. */
function writeNumber(target: Buffer, at: number, n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) return at + target.write(JSON.stringify(n), at, 'latin1');
  let digits = 1;
  for (let p = 10; p <= n; p *= 10) digits += 1;
  for (let i = at + digits - 1; i >= at; i -= 1) {
    target[i] = 48 + (n % 10);
    n = Math.floor(n / 10);
  }
  return at + digits;
}

/**
 * The traffic series' JSON bytes, made where the data is: from a reader thread they move to the main
 * thread without a copy, which then only writes them out (building the buckets and their JSON there held
 * it for tens of milliseconds a request, and its garbage for more).
 */
export function* trafficJsonQuery(filter: EventFilter, bucketMs: number): Query<Uint8Array> {
  const counts = yield* trafficQuery(filter, bucketMs);
  // One buffer of its own (not a slice of another, nor of Buffer's pool), so it can be moved.
  const pieces = [...trafficSeriesJson(counts, 1024)];
  const length = pieces.reduce((n, p) => n + p.length, 0);
  const whole = new Uint8Array(length);
  let at = 0;
  for (const p of pieces) {
    whole.set(p, at);
    at += p.length;
  }
  return whole;
}
