// The traffic series' JSON is written straight from the counts; it must be the text of the buckets as
// objects (keys in the schema's order), whatever the pieces it is cut into.
import { describe, expect, it } from 'vitest';
import { TRAFFIC_FIELDS, TRAFFIC_TYPE_BITS, trafficSeriesJson, type TrafficCounts } from './stats.js';

/** The series as objects, counted one combination at a time. */
function model(counts: TrafficCounts): Record<string, number>[] {
  const buckets = new Map<number, Record<string, number>>();
  counts.bucket.forEach((bucket, i) => {
    let b = buckets.get(bucket);
    if (!b) buckets.set(bucket, (b = { timestamp: bucket / 1000, ...Object.fromEntries(TRAFFIC_FIELDS.map((f) => [f, 0])) }));
    const n = counts.events[i];
    const decision = counts.decisions[counts.decision[i]];
    b.total += n;
    if (decision === 'blocked') b.policyBlocked += n;
    else {
      b.passedToOrigin += n;
      if (decision === 'passed') b.uncategorized += n;
      if (decision === 'monitored') b.monitored += n;
      if (decision === 'allowed') b.customAllowed += n;
      const status = ({ 2: 'origin2xx', 3: 'origin3xx', 4: 'originError4xx', 5: 'originError5xx' } as Record<number, string>)[counts.statusClass[i]];
      if (status) b[status] += n;
    }
    for (const [type, bit] of Object.entries(TRAFFIC_TYPE_BITS)) if (counts.types[i] & bit) b[type] += n;
  });
  return [...buckets.values()];
}

function counts(rows: [bucket: number, decision: number, statusClass: number, types: number, events: number][]): TrafficCounts {
  return {
    decisions: ['passed', 'blocked', 'monitored', 'allowed', 'challenged'],
    bucket: Float64Array.from(rows.map((r) => r[0])),
    decision: Uint16Array.from(rows.map((r) => r[1])),
    statusClass: Uint8Array.from(rows.map((r) => r[2])),
    types: Uint8Array.from(rows.map((r) => r[3])),
    events: Float64Array.from(rows.map((r) => r[4])),
  };
}

describe('trafficSeriesJson', () => {
  it('is the JSON of the buckets, however it is cut into pieces', () => {
    const rows: [number, number, number, number, number][] = [];
    // Every decision (one the series has no counter for), status class 0-7 and type mask, over buckets
    // with one or many combinations.
    for (let b = 0; b < 40; b += 1)
      for (let c = 0; c <= b % 5; c += 1) rows.push([1_700_000_040_000 + b * 60_000, (b + c) % 5, (b * 3 + c) % 8, (b + 2 * c) % 8, 1 + b * c]);
    // Counts of every number of digits, up to and past the largest safe integer.
    [9, 10, 99, 100, 12_345_678_901, 2 ** 53 - 1, 2 ** 60].forEach((n, i) => rows.push([1_700_000_040_000 + (40 + i) * 60_000, i % 5, 2, 1, n]));
    const input = counts(rows);
    const expected = JSON.stringify(model(input));
    for (const perPiece of [1, 3, 64, Infinity]) {
      const pieces = [...trafficSeriesJson(input, perPiece)];
      expect(Buffer.concat(pieces).toString()).toBe(expected);
      // One bucket a piece: the last one ends with the closing bracket.
      if (perPiece === 1) expect(pieces).toHaveLength(47);
    }
    expect(Object.keys(JSON.parse(expected)[0])).toEqual(['timestamp', ...TRAFFIC_FIELDS]);
  });

  it('writes an empty series as []', () => {
    expect(Buffer.concat([...trafficSeriesJson(counts([]))]).toString()).toBe('[]');
  });
});
