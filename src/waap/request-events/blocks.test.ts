// How events are stored (blocks per client and hour) must never show in answers, through the log's front
// door: reader threads answer exactly as the main thread, compaction changes nothing, a block replaced
// under the same id by a state import is never answered from a thread's cache, a query past its time
// budget is stopped, and two nodes on one PostgreSQL database agree. The storage itself is tested in
// log/storage.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, engineName, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { testDatabaseUrl } from '../../config.js';
import { dropPostgresSchema } from '../../platform/db/index.js';
import { createDomain, event, ingest, rid } from '../../../tests/support/waap.js';
import { EventLog, type EventFilter, type QueryName } from './log/index.js';
import { CompactionJob } from './maintenance.js';
import { samples } from '../../../tests/support/waap-oracle.js';

const NOW = Date.parse('2026-03-15T12:34:56.789Z');
const DAY = 86_400_000;
const HOUR = 3_600_000;
const dirs: string[] = [];

/** A test app whose request-log queries run in reader threads: a SQLite file, or PostgreSQL. */
async function threadedApp(threads = 2): Promise<TestApp> {
  if (engineName === 'postgres') return createTestApp({ queryThreads: threads });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-blocks-'));
  dirs.push(dataDir);
  return createTestApp({ memory: false, dataDir, queryThreads: threads });
}

afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function frozenAt(t: TestApp, now = NOW): void {
  t.clock.freeze();
  t.clock.set(now);
}

const range = (clientId: number, conditions: EventFilter['conditions'] = []): EventFilter => ({ clientId, from: NOW - 29 * DAY, toExcl: NOW + 1, conditions });

describe('reader threads', () => {
  let t: TestApp;
  let a: TestAccount;
  let mainThread: EventLog;
  let domains: number[];

  beforeAll(async () => {
    t = await threadedApp();
    frozenAt(t);
    a = await t.account();
    const b = await t.account();
    domains = [(await createDomain(t, a.clientId, 'shop.example.com')).id, (await createDomain(t, a.clientId, 'api.example.com')).id];
    const other = (await createDomain(t, b.clientId, 'other.example.com')).id;
    const all = [...samples(domains, 400, NOW, 1), ...samples([other], 100, NOW, 50_000)];
    expect(
      (
        await ingest(
          t,
          all.map((s) => s.record),
        )
      ).accepted,
    ).toBe(500);
    mainThread = new EventLog(t.db, { threads: 0, cacheBytes: 1 << 20 });
  });
  afterAll(async () => {
    await mainThread.close();
    await t.close();
  });

  it('answer every query exactly as the main thread does', async () => {
    expect(t.waap.log.offMainThread).toBe(true);
    const desc = { column: 'request_time', descending: true };
    const cases: [QueryName, unknown[]][] = [
      ['list', [{ filter: range(a.clientId), ordering: desc, limit: 100, offset: 0 }]],
      ['list', [{ filter: range(a.clientId), ordering: desc, limit: 7, offset: 333 }]],
      [
        'list',
        [
          {
            filter: range(a.clientId, [{ kind: 'in', column: 'decision', values: ['blocked', 'monitored'], negate: false }]),
            ordering: { column: 'request_time', descending: false },
            limit: 50,
            offset: 10,
          },
        ],
      ],
      [
        'list',
        [
          {
            filter: range(a.clientId, [
              { kind: 'glob', patterns: ['/api/*'], negate: true },
              { kind: 'in', column: 'client_ip', values: ['192.0.2.1'], negate: false },
            ]),
            ordering: { column: 'path', descending: true },
            limit: 20,
            offset: 5,
          },
        ],
      ],
      [
        'list',
        [
          {
            filter: range(a.clientId, [{ kind: 'substring', values: ['CHROME'], negate: false }]),
            ordering: { column: 'status_code', descending: false },
            limit: 100,
            offset: 0,
          },
        ],
      ],
      [
        'list',
        [
          {
            filter: range(a.clientId, [{ kind: 'in', column: 'id', values: [rid(3), rid(250), rid(50_001)], negate: false }]),
            ordering: desc,
            limit: 100,
            offset: 0,
          },
        ],
      ],
      ['count', [range(a.clientId, [{ kind: 'tag', values: ['sqli'], negate: false }])]],
      ['details', [a.clientId, domains[0], rid(3), NOW - 30 * DAY]],
      ['chunk', [range(a.clientId), null, 60]],
      ['topKeys', [range(a.clientId), 'client_ip', 20, 'total']],
      ['topKeys', [range(a.clientId, [{ kind: 'in', column: 'domain_id', values: [domains[1]], negate: false }]), 'rule_name', 20, 'threats']],
      ['traffic', [range(a.clientId), HOUR]],
      ['trafficJson', [range(a.clientId), 60_000]],
      ['csvChunk', [range(a.clientId), null, 500, ['id', 'client_ip', 'path', 'user_agent']]],
    ];
    for (const [name, args] of cases) {
      const threaded = await (t.waap.log.run as (n: QueryName, ...x: unknown[]) => Promise<unknown>)(name, ...args);
      const local = await (mainThread.run as (n: QueryName, ...x: unknown[]) => Promise<unknown>)(name, ...args);
      expect(threaded, `${name} ${JSON.stringify(args).slice(0, 200)}`).toEqual(local);
    }
    // The id filter found its three events, one of another client's excepted.
    const byIds = (await t.waap.log.run('list', cases[5][1][0] as never)) as { count: number };
    expect(byIds.count).toBe(2);
  });
});

describe('compaction', () => {
  it("merges an hour's small blocks and changes no answer", async () => {
    const t = await createTestApp();
    frozenAt(t);
    // The test runs the job itself, after ingestion, so there is a before and an after.
    await t.waap.compaction.stop();
    try {
      const a = await t.account();
      const d = (await createDomain(t, a.clientId, 'small.example.com')).id;
      // 40 small bodies in two hours, with equal times across bodies.
      for (let post = 0; post < 40; post += 1) {
        const body = Array.from({ length: 5 }, (_, i) =>
          event(d, 1000 + post * 5 + i, NOW - 2 * HOUR + (post % 10) * 60_000 + i * 1000 + (post >= 20 ? HOUR : 0), {
            decision: i === 0 ? 'blocked' : 'passed',
          }),
        );
        expect((await ingest(t, body)).accepted).toBe(5);
      }
      const blocks = async () =>
        Number(
          (
            await t.db.kysely
              .selectFrom('waap_event_blocks')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const answers = async () => ({
        all: await t.waap.log.run('list', { filter: range(a.clientId), ordering: { column: 'request_time', descending: true }, limit: 100, offset: 0 }),
        asc: await t.waap.log.run('list', { filter: range(a.clientId), ordering: { column: 'request_time', descending: false }, limit: 100, offset: 50 }),
        blocked: await t.waap.log.run('list', {
          filter: range(a.clientId, [{ kind: 'in', column: 'decision', values: ['blocked'], negate: false }]),
          ordering: { column: 'request_time', descending: true },
          limit: 100,
          offset: 0,
        }),
        details: await t.waap.log.run('details', a.clientId, d, rid(1003), 0),
      });
      expect(await blocks()).toBe(40);
      const before = await answers();
      expect(before.all.count).toBe(200);
      expect(await t.waap.compaction.run()).toBe(38);
      expect(await blocks()).toBe(2);
      expect(await answers()).toEqual(before);
      expect(await t.waap.compaction.run()).toBe(0);
    } finally {
      await t.close();
    }
  });
});

describe('query time budget', () => {
  it('stops a query past its budget, with an error that says so, and answers the next one', async () => {
    const t = await createTestApp();
    frozenAt(t);
    try {
      const a = await t.account();
      const d = (await createDomain(t, a.clientId, 'budget.example.com')).id;
      await ingest(
        t,
        Array.from({ length: 50 }, (_, i) => event(d, 5000 + i, NOW - HOUR - i * 60_000)),
      );
      const queries = new EventLog(t.db, { threads: 0, cacheBytes: 1 << 20, budgetMs: 100 });
      // Every look at the clock finds 60 ms gone: the budget is spent after the first reads.
      let now = Date.now();
      const clock = vi.spyOn(Date, 'now').mockImplementation(() => (now += 60));
      const late = queries.run('count', range(a.clientId, [{ kind: 'glob', patterns: ['/never*'], negate: false }]));
      await expect(late).rejects.toMatchObject({ code: 'bad_request', message: expect.stringMatching(/0.1 s budget and was stopped/) });
      clock.mockRestore();
      expect(await queries.run('count', range(a.clientId))).toBe(50);
      await queries.close();
    } finally {
      await t.close();
    }
  });
});
describe('state import under the same block ids', () => {
  it("never answers from a reader thread's cache of the block it replaced", async () => {
    const documents: { doc: unknown; token: string; ids: string[] }[] = [];
    for (const base of [1, 500]) {
      const source = await createTestApp();
      frozenAt(source);
      const a = await source.account();
      const d = (await createDomain(source, a.clientId, 'state.example.com')).id;
      const events = Array.from({ length: 30 }, (_, i) => event(d, base + i, NOW - 1000 - i * 60_000));
      await ingest(source, events);
      const doc = (await source.request('GET', '/_edgeplane/state', { headers: source.operator })).json();
      documents.push({ doc, token: a.token, ids: events.map((e) => e.id as string) });
      await source.close();
    }
    // One thread, so the query after each import meets the cache the one before filled.
    const t = await threadedApp(1);
    frozenAt(t);
    try {
      for (const { doc, token, ids } of [...documents, documents[0]]) {
        const imported = await t.request('PUT', '/_edgeplane/state', { headers: t.operator, body: doc });
        expect(imported.statusCode, imported.body).toBe(200);
        const res = await t.request('GET', `/waap/v1/analytics/requests?start=${new Date(NOW - DAY).toISOString()}`, {
          headers: { authorization: `APIKey ${token}` },
        });
        expect(res.statusCode).toBe(200);
        expect(res.json().results.map((r: { id: string }) => r.id)).toEqual(ids);
      }
    } finally {
      await t.close();
    }
  });
});

/** Runs a query on the test app's database directly (main thread), on either engine. */ describe('compaction after ingestion', () => {
  it('runs one pass a second after a burst of ingestions, none when the job is stopped', async () => {
    vi.useFakeTimers();
    try {
      let passes = 0;
      const job = new CompactionJob({ compact: async () => ((passes += 1), 0) });
      job.schedule();
      await vi.advanceTimersByTimeAsync(5000);
      expect(passes).toBe(0);
      job.start();
      job.schedule();
      job.schedule();
      await vi.advanceTimersByTimeAsync(999);
      expect(passes).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(passes).toBe(1);
      await job.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe.skipIf(engineName !== 'postgres')('two nodes on one PostgreSQL database', () => {
  it('ingest into the same hours, compact and expire at once, and agree on every event', async () => {
    const schema = `t_nodes_${Date.now().toString(36)}`;
    const [one, two] = [await createTestApp({ databaseSchema: schema }), await createTestApp({ databaseSchema: schema })];
    try {
      for (const node of [one, two]) {
        frozenAt(node);
        await node.waap.compaction.stop();
      }
      const a = await one.account();
      const d = (await createDomain(one, a.clientId, 'nodes.example.com')).id;
      // 40 small bodies per node, into the same two hours, both nodes at once.
      const bodies = (base: number) =>
        Array.from({ length: 40 }, (_, post) =>
          Array.from({ length: 5 }, (_, i) => event(d, base + post * 5 + i, NOW - 2 * HOUR + (post % 2) * HOUR + post * 1000 + i)),
        );
      const sent = [bodies(1000), bodies(2000)];
      await Promise.all([one, two].map((node, k) => Promise.all(sent[k].map((body) => ingest(node, body)))));
      const count = (node: TestApp) => node.waap.log.run('count', range(a.clientId));
      expect([await count(one), await count(two)]).toEqual([400, 400]);
      const merged = await Promise.all([one.waap.compaction.run(), two.waap.compaction.run()]);
      expect(merged[0] + merged[1]).toBeGreaterThan(0);
      const page = (node: TestApp) =>
        node.waap.log.run('list', { filter: range(a.clientId), ordering: { column: 'request_time', descending: true }, limit: 100, offset: 150 });
      expect(await page(two)).toEqual(await page(one));
      expect((await page(one)).count).toBe(400);
      // Both nodes move the clock so the cutoff falls among the second hour's events, and expire at once:
      // the first hour's blocks go whole, the second hour's are rewritten without their expired events.
      const cutoff = NOW - HOUR + 20_000;
      const later = cutoff + 30 * DAY;
      const kept = sent.flat(2).filter((e) => (e.request_time as number) >= cutoff).length;
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThan(200);
      for (const node of [one, two]) node.clock.set(later);
      await Promise.all([one.waap.retention.run(), two.waap.retention.run()]);
      const left = (node: TestApp) => node.waap.log.run('count', { clientId: a.clientId, from: cutoff, toExcl: later + 1, conditions: [] });
      expect([await left(one), await left(two)]).toEqual([kept, kept]);
      const stored = await one.db.kysely
        .selectFrom('waap_event_blocks')
        .select((eb) => eb.fn.sum('n').as('n'))
        .executeTakeFirstOrThrow();
      const ids = await one.db.kysely
        .selectFrom('waap_event_ids')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      expect([Number(stored.n), Number(ids.n)]).toEqual([kept, kept]);
    } finally {
      await two.close();
      await one.close();
      await dropPostgresSchema(testDatabaseUrl()!, schema);
    }
  });
});
