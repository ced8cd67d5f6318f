// Aggregations of the request log for the statistics endpoints: events per value of one field (split by
// decision and domain) and per time bucket, over exactly the events a filter selects.
import type { FieldName } from './block-format.js';
import { load, partsOf, plan, type Query, rangeBlocks, scanAll } from './block-scan.js';
import type { EventFilter } from './filter.js';

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
