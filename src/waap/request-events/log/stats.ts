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
 * combination met), in order of bucket: typed arrays cross from a reader thread as one copy each, where
 * an object per combination (hundreds of thousands at a minute's resolution over 30 days) had to be
 * rebuilt one by one on the main thread.
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
