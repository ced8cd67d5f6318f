// Test helpers for the analytics tests: the GraphQL call, ingestion, and a reference aggregation in
// plain JavaScript that the SQL answers are checked against.
import { expect } from 'vitest';
import type { TestAccount, TestApp } from './app.js';
import { directoryOf, visitorKey, type AccessRecord } from '../../src/cdn-analytics/records/model.js';

export const DAY = 86_400_000;
export const HOUR = 3_600_000;

export async function gql(t: TestApp, account: { headers: Record<string, string> }, query: string, variables?: Record<string, unknown>) {
  return t.request('POST', '/cdn/advanced/v2/query', { headers: account.headers, body: { query, variables } });
}

/** Ingests records through the control API (JSON array) and checks they were all accepted. */
export async function ingest(t: TestApp, records: AccessRecord[]): Promise<void> {
  for (let i = 0; i < records.length; i += 5_000) {
    const batch = records.slice(i, i + 5_000).map((r) => ({ ...r, timestamp: new Date(r.timestamp).toISOString() }));
    const res = await t.request('POST', '/_edgeplane/cdn/access-records', { headers: t.operator, body: batch });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ accepted: batch.length, rejected: 0 });
  }
}

export type Dim = 'country' | 'directory' | 'browser' | 'device' | 'os';
const valueOf = (r: AccessRecord, d: Dim) => (d === 'directory' ? directoryOf(r.path) : r[d]);

export interface Expected {
  requests: number;
  traffic: number;
  uniqueVisitors: number;
}

/** Group key -> statistics, with unique visitors counted as distinct visitor keys per group. */
export function aggregate(records: AccessRecord[], dims: Dim[], bucketMs?: number): Map<string, Expected> {
  const groups = new Map<string, { requests: number; traffic: number; visitors: Set<string> }>();
  for (const r of records) {
    const parts = [...(bucketMs ? [new Date(r.timestamp - (r.timestamp % bucketMs)).toISOString()] : []), ...dims.map((d) => valueOf(r, d))];
    const key = parts.join('|');
    const g = groups.get(key) ?? { requests: 0, traffic: 0, visitors: new Set<string>() };
    g.requests += 1;
    g.traffic += r.bytes;
    g.visitors.add(visitorKey(r));
    groups.set(key, g);
  }
  return new Map([...groups].map(([k, g]) => [k, { requests: g.requests, traffic: g.traffic, uniqueVisitors: g.visitors.size }]));
}

/** The same map built from the rows of a GraphQL answer (device enum names back to stored values). */
export function rowsToMap(rows: Record<string, unknown>[], dims: Dim[], withTime: boolean): Map<string, Expected> {
  return new Map(
    rows.map((row) => {
      const parts = [...(withTime ? [String(row.time)] : []), ...dims.map((d) => (d === 'device' ? String(row[d]).toLowerCase() : String(row[d])))];
      return [parts.join('|'), { requests: row.requests as number, traffic: row.traffic as number, uniqueVisitors: row.uniqueVisitors as number }];
    }),
  );
}

export function totalsOf(records: AccessRecord[]): Expected {
  return aggregate(records, []).get('') ?? { requests: 0, traffic: 0, uniqueVisitors: 0 };
}

export type { TestAccount };
