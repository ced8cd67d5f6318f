// The block storage under the log's front door: a block rewritten between reading its header and its
// events is never mistaken for another, an hour past MAX_BLOCK_EVENTS is split into blocks yet read as
// one, equal times keep arrival order, and pages ordered by a field agree with a model whichever way
// their ranks are sorted.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../../tests/support/app.js';
import { createDomain, event, ingest, rid } from '../../../../tests/support/waap.js';
import { samples, type Sample } from '../../../../tests/support/waap-oracle.js';
import { EventBatch } from './batch.js';
import { compactionPass, MIN_BLOCKS } from './compaction.js';
import type { EventFilter } from './filter.js';
import { MAX_BLOCK_EVENTS } from './format.js';
import { listQuery, type Query } from './queries.js';
import { BlockCache, runAsync, runSync } from './reader.js';
import { PostgresBlockReads, SqliteBlockReads } from './reads.js';
import { BlockStore, BULK_CACHE_LINGER_MS } from './store.js';
import { toRow } from '../records.js';
import { testDatabaseUrl } from '../../../config.js';
import type { IngestRecord } from '../schemas.js';

const NOW = Date.parse('2026-03-15T12:34:56.789Z');
const DAY = 86_400_000;
const HOUR = 3_600_000;

function frozenAt(t: TestApp, now = NOW): void {
  t.clock.freeze();
  t.clock.set(now);
}

const range = (clientId: number, conditions: EventFilter['conditions'] = []): EventFilter => ({ clientId, from: NOW - 29 * DAY, toExcl: NOW + 1, conditions });

describe('a block changed between reading its header and its events', () => {
  it('reads as changed (null), not as another block: compaction and retention then leave it to the next pass', async () => {
    const t = await createTestApp();
    frozenAt(t);
    await t.waap.compaction.stop();
    try {
      const a = await t.account();
      const d = (await createDomain(t, a.clientId, 'race.example.com')).id;
      for (let post = 0; post < MIN_BLOCKS; post += 1) await ingest(t, [event(d, 3000 + post, NOW - HOUR + post * 1000)]);
      const store = new BlockStore(t.db);
      const hour = Math.floor((NOW - HOUR) / HOUR) * HOUR;
      const headers = await store.hourBlocks(a.clientId, hour);
      expect(headers).toHaveLength(MIN_BLOCKS);
      expect((await store.readRows(headers))!.flat()).toHaveLength(MIN_BLOCKS);
      // Another node merges the hour: the largest old id now holds a different block (a new stamp).
      expect(await t.waap.compaction.run()).toBe(MIN_BLOCKS - 1);
      expect(await store.readRows(headers)).toBeNull();
      expect(await store.readRows(headers.slice(0, 1))).toBeNull();
      expect(await store.readRows(headers.slice(-1))).toBeNull();
      expect(await compactionPass(store)).toBe(0);
    } finally {
      await t.close();
    }
  });
});

describe.skipIf(Boolean(testDatabaseUrl()))('the page cache while events are loaded (SQLite; PostgreSQL keeps its own)', () => {
  it("is large from the first batch until a while after the last, then back to the connection's own size", async () => {
    const t = await createTestApp();
    const sqlite = t.db.raw.sqlite!;
    try {
      frozenAt(t);
      const a = await t.account();
      const d = (await createDomain(t, a.clientId, 'cache.example.com')).id;
      const own = sqlite.pragma('cache_size', { simple: true });
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const store = new BlockStore(t.db);
      const row = (n: number) => toRow(event(d, n, NOW - HOUR) as unknown as IngestRecord, { client_id: a.clientId, name: 'cache.example.com' });
      await store.insertBatch(EventBatch.ofRows([row(1)]));
      expect(sqlite.pragma('cache_size', { simple: true })).toBe(-262_144);
      // A second batch within the window keeps the cache and restarts the window.
      vi.advanceTimersByTime(BULK_CACHE_LINGER_MS - 1);
      await store.insertBatch(EventBatch.ofRows([row(2)]));
      vi.advanceTimersByTime(BULK_CACHE_LINGER_MS - 1);
      expect(sqlite.pragma('cache_size', { simple: true })).toBe(-262_144);
      vi.advanceTimersByTime(1);
      expect(sqlite.pragma('cache_size', { simple: true })).toBe(own);
    } finally {
      vi.useRealTimers();
      await t.close();
    }
  });
});

describe('blocks and arrival order', () => {
  let t: TestApp;
  let a: TestAccount;
  let d: number;

  beforeAll(async () => {
    t = await createTestApp();
    frozenAt(t);
    a = await t.account();
    d = (await createDomain(t, a.clientId, 'order.example.com')).id;
  });
  afterAll(async () => t.close());

  it('lists events of equal time newest arrival first (oldest first when ascending)', async () => {
    for (const n of [1, 2, 3]) await ingest(t, [event(d, n, NOW - 5000)]);
    const list = async (ordering: string) =>
      (await t.request('GET', `/waap/v1/analytics/requests?start=${new Date(NOW - DAY).toISOString()}&ordering=${ordering}`, { headers: a.headers }))
        .json()
        .results.map((r: { id: string }) => r.id);
    expect(await list('-request_time')).toEqual([rid(3), rid(2), rid(1)]);
    expect(await list('request_time')).toEqual([rid(1), rid(2), rid(3)]);
  });

  it(`reads an hour of more than ${MAX_BLOCK_EVENTS} events, stored in several blocks, as one`, async () => {
    const n = MAX_BLOCK_EVENTS + 2000;
    const hour = Math.floor((NOW - 10 * HOUR) / HOUR) * HOUR;
    const times = Array.from({ length: n }, (_, i) => hour + Math.floor((i * (HOUR - 1)) / n));
    expect(
      (
        await ingest(
          t,
          times.map((time, i) => event(d, 100_000 + i, time, { decision: i % 7 === 0 ? 'blocked' : 'passed' })),
        )
      ).accepted,
    ).toBe(n);
    const hourBlocks = await t.db.kysely.selectFrom('waap_event_blocks').select('n').where('hour', '=', hour).execute();
    expect(hourBlocks.map((b) => Number(b.n)).sort((x, y) => y - x)).toEqual([MAX_BLOCK_EVENTS, 2000]);
    const filter = { clientId: a.clientId, from: hour, toExcl: hour + HOUR, conditions: [] };
    const newest = (i: number) => rid(100_000 + n - 1 - i);
    for (const offset of [0, 1990, 2000, 9999, n - 3]) {
      const page = await t.waap.log.run('list', { filter, ordering: { column: 'request_time', descending: true }, limit: 3, offset });
      expect(page.count).toBe(n);
      expect(page.rows.map((r) => r.id)).toEqual(
        [0, 1, 2]
          .map((k) => offset + k)
          .filter((k) => k < n)
          .map(newest),
      );
    }
    const blocked = await t.waap.log.run('count', { ...filter, conditions: [{ kind: 'in', column: 'decision', values: ['blocked'], negate: false }] });
    expect(blocked).toBe(Math.ceil(n / 7));
  });
});

async function runDirect<R>(t: TestApp, query: Query<R>): Promise<R> {
  const cache = new BlockCache(1 << 20);
  if (t.db.raw.sqlite) return runSync(query, new SqliteBlockReads(t.db.raw.sqlite), cache);
  return PostgresBlockReads.snapshot(t.db.raw.pg!, (reads) => runAsync(query, reads, cache));
}

describe('pages ordered by a field', () => {
  it('agree with a model whether their ranks are sorted at once or walked hour by hour', async () => {
    const t = await createTestApp();
    frozenAt(t);
    try {
      const a = await t.account();
      const domains = [(await createDomain(t, a.clientId, 'x.example.com')).id, (await createDomain(t, a.clientId, 'y.example.com')).id];
      const all = samples(domains, 400, NOW, 1);
      await ingest(
        t,
        all.map((s) => s.record),
      );
      const value: Record<string, (s: Sample) => string | number> = {
        decision: (s) => s.decision,
        status_code: (s) => s.status,
        path: (s) => s.path,
        client_ip: (s) => s.client_ip,
        domain_id: (s) => s.domain_id,
        country: (s) => s.country,
      };
      for (const [column, of] of Object.entries(value)) {
        for (const descending of [false, true]) {
          const expected = all
            .filter((s) => s.time >= NOW - 29 * DAY)
            .sort((x, y) => {
              const [u, v] = [of(x), of(y)];
              const byValue = typeof u === 'number' ? u - (v as number) : u < v ? -1 : u > v ? 1 : 0;
              return (descending ? -byValue : byValue) || (descending ? y.time - x.time : x.time - y.time);
            });
          for (const offset of [0, 37, 150, 390]) {
            const spec = { filter: range(a.clientId), ordering: { column, descending }, limit: 25, offset };
            const want = expected.slice(offset, offset + 25).map((s) => s.id);
            for (const sortAtOnce of [100_000, 1]) {
              const page = await runDirect(t, listQuery(spec, sortAtOnce));
              expect(
                page.rows.map((r) => r.id),
                `${column} ${descending ? 'desc' : 'asc'} offset ${offset}, sorted at once up to ${sortAtOnce}`,
              ).toEqual(want);
            }
          }
        }
      }
    } finally {
      await t.close();
    }
  });
});
