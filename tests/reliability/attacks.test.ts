// Issue 14 ("no client can hang, bloat or break the server for everyone"): the repros no other test
// covered, each as a fast assertion: the hostile request is answered within a bounded time, with 2xx or a
// 4xx in the product's error shape (never a 5xx), and nothing else is lost or held up. Also here: defects
// of the same kind found while writing these (GraphQL nesting and fragments, operator path globs, WAAP
// statistics with undeclared filters).
//
// Covered elsewhere: glob matcher in src/waap/request-events/log/format.test.ts and the query budget in
// blocks.test.ts; CDN rule regex (RE2) in src/cdn/options/pattern.test.ts and src/cdn/rule-templates/limits.test.ts
// (also the 1 MB template name and the template quota); gzip bomb and request_time 1e309 / 1e20 in
// src/waap/request-events/events.test.ts (with the CSV export's backpressure); one-client snapshots with
// WAAP parts in src/control/state/state.test.ts and ownership.test.ts; role table in src/iam/users/users.test.ts,
// src/iam/tokens/tokens.test.ts and tests/reliability/isolation.test.ts; the email 422 in users.test.ts;
// `0x10` path ids in tests/reliability/regressions.test.ts; cloud string bounds in src/cloud/fidelity.test.ts.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { globToRegExp } from '../../src/control/faults/service.js';
import { WorkerPool } from '../../src/platform/workers.js';
import { createTestApp, engineName, type TestAccount, type TestApp } from '../support/app.js';
import { createDomain, event, ingest } from '../support/waap.js';

const NOW = Date.parse('2026-06-01T10:20:30.000Z');
const DAY = 86_400_000;
/** What "answers at once" means here: the repros took from 6 s to beyond 100 s. */
const FAST_MS = 2_000;
/** The longest one request may hold the event loop: the fuzzer's budget for health (15-25 ms when quiet). */
const BLOCK_MS = 100;

let t: TestApp;
let a: TestAccount;
let b: TestAccount;
beforeAll(async () => {
  t = await createTestApp();
  t.clock.freeze();
  t.clock.set(NOW);
  a = await t.account();
  b = await t.account();
});
afterAll(async () => t.close());

async function timed(send: () => ReturnType<TestApp['request']>): Promise<{ res: Awaited<ReturnType<TestApp['request']>>; ms: number }> {
  const started = performance.now();
  const res = await send();
  return { res, ms: performance.now() - started };
}

const start = () => new Date(NOW - 29 * DAY).toISOString();

/**
 * A request, with the longest the event loop waited while it was served. The histogram's timer must have
 * ticked once before the request (a block before its first tick is not recorded) and once after it.
 */
async function blocking<T>(send: () => Promise<T>): Promise<{ res: T; blockedMs: number }> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  await new Promise((resolve) => setTimeout(resolve, 2));
  const res = await send();
  await new Promise((resolve) => setTimeout(resolve, 2));
  delay.disable();
  return { res, blockedMs: delay.max / 1e6 };
}

/** What `send` answered, and how many calls of one kind (`check`: a body's validation, `report`) the server sent its threads meanwhile. */
async function sentToThreads<T>(kind: 'check' | 'report', send: () => Promise<T>): Promise<{ res: T; calls: number }> {
  const spy = vi.spyOn(WorkerPool.prototype, 'call');
  try {
    const res = await send();
    return { res, calls: spy.mock.calls.filter(([message]) => kind in message).length };
  } finally {
    spy.mockRestore();
  }
}

describe(`attacks of issue 14 (${engineName})`, () => {
  it('WAAP path globs: star-heavy globs against a 2,000-character path answer at once (list, CSV export), and another client is served', async () => {
    const host = `${process.pid}-${Date.now()}`;
    const mine = (await createDomain(t, a.clientId, `globs-${host}.example.com`)).id;
    const theirs = (await createDomain(t, b.clientId, `neighbour-${host}.example.com`)).id;
    const long = `/${'a'.repeat(1999)}`;
    // 1,000 short paths without an "a", and the long one.
    const records = [
      ...Array.from({ length: 1000 }, (_, i) => event(mine, 100_000 + i, NOW - 1000 - i * 1000, { path: `/shop/${i % 40}/item.html` })),
      event(mine, 101_000, NOW - 500, { path: long }),
    ];
    expect((await ingest(t, records)).accepted).toBe(1001);
    expect(
      (
        await ingest(
          t,
          Array.from({ length: 5 }, (_, i) => event(theirs, 200_000 + i, NOW - 1000 - i)),
        )
      ).accepted,
    ).toBe(5);

    const list = (query: string) => t.request('GET', `/waap/v1/analytics/requests?start=${start()}&limit=5&${query}`, { headers: a.headers });
    const csv = (query: string) => t.request('GET', `/_edgeplane/waap/requests.csv?client_id=${a.clientId}&start=${start()}&${query}`, { headers: t.operator });
    // First calls compile each route's validators.
    for (const send of [list, csv]) expect((await send('path=%2Fwarm')).statusCode).toBe(200);

    // `path=*a*a*a*b` against the long path did not answer in 100 s; `**********Z` took 24 s on 1,028 events.
    const hostile = ['*a*a*a*b', '**********Z', `*${'a*'.repeat(500)}b`, `${'*'.repeat(2000)}Z`];
    for (const glob of hostile) {
      const q = `path=${encodeURIComponent(glob)}`;
      const listed = await timed(() => list(q));
      expect(listed.res.statusCode, listed.res.body).toBe(200);
      expect(listed.res.json().count, glob.slice(0, 20)).toBe(0);
      expect(listed.ms, `list ${glob.slice(0, 20)}`).toBeLessThan(FAST_MS);
      const exported = await timed(() => csv(q));
      expect(exported.res.statusCode).toBe(200);
      expect(exported.res.body.trim().split('\n')).toHaveLength(1);
      expect(exported.ms, `csv ${glob.slice(0, 20)}`).toBeLessThan(FAST_MS);
      const excluded = await timed(() => list(`exclude_${q}`));
      expect(excluded.res.json().count).toBe(1001);
      expect(excluded.ms).toBeLessThan(FAST_MS);
    }
    // The globs still mean what they say.
    expect((await list(`path=${encodeURIComponent('*a*a*a*')}`)).json().count).toBe(1);
    expect((await list(`path=${encodeURIComponent('/shop/*/item.html')}`)).json().count).toBe(1000);
    // Another client's WAAP calls are answered, with its own events.
    const neighbour = await timed(() => t.request('GET', `/waap/v1/analytics/requests?start=${start()}`, { headers: b.headers }));
    expect(neighbour.res.statusCode).toBe(200);
    expect(neighbour.res.json().count).toBe(5);
    expect(neighbour.ms).toBeLessThan(FAST_MS);
    expect((await t.request('GET', '/_edgeplane/health')).statusCode).toBe(200);
  });

  it('WAAP statistics ignore the request-log filters they do not declare (a single `path` or `decision` was a 500)', async () => {
    const d = (await createDomain(t, a.clientId, `stats-${process.pid}-${Date.now()}.example.com`)).id;
    await ingest(t, [event(d, 300_000, NOW - 1000, { decision: 'blocked' }), event(d, 300_001, NOW - 2000)]);
    for (const url of ['/waap/v1/analytics/stats/ip', '/waap/v1/analytics/traffic']) {
      const base = `${url}?start=${start()}&domains=${d}${url.endsWith('traffic') ? '&resolution=daily' : ''}`;
      const plain = await t.request('GET', base, { headers: a.headers });
      expect(plain.statusCode).toBe(200);
      for (const extra of ['path=%2Fx*', 'decision=blocked', 'exclude_ips=192.0.2.1', 'user_agent=curl', 'tags=sqli', 'path=a&path=b']) {
        const res = await t.request('GET', `${base}&${extra}`, { headers: a.headers });
        expect(res.statusCode, `${url} ${extra}: ${res.body}`).toBe(200);
        expect(res.json(), extra).toEqual(plain.json());
      }
    }
  });

  it('operator path globs (faults, journal filter) match client paths in linear time: /**a**a**a**b against a long path', async () => {
    // On the backtracking engine, `^/.*a.*a.*a.*b/?$` took 9 s against 400 characters; URLs may have 16 KiB.
    const started = performance.now();
    expect(globToRegExp('/**a**a**a**a**b').test(`/${'a'.repeat(16_000)}`)).toBe(false);
    expect(globToRegExp('/**a**a**a**a**').test(`/${'a'.repeat(16_000)}`)).toBe(true);
    expect(performance.now() - started).toBeLessThan(FAST_MS);

    const fault = await t.request('POST', '/_edgeplane/faults', { headers: t.operator, body: { path: '/**a**a**a**a**b', status: 503 } });
    expect(fault.statusCode, fault.body).toBe(201);
    try {
      // A routed request (faults skip 404s) whose path is two 500-character parameters.
      const url = `/waap/v1/domains/${'a'.repeat(500)}/requests/${'a'.repeat(500)}/details`;
      const hit = await timed(() => t.request('GET', url, { headers: a.headers }));
      expect(hit.res.statusCode).toBe(422);
      expect(hit.res.json()).toMatchObject({ status: 422 });
      expect(hit.ms).toBeLessThan(FAST_MS);
      const journal = await timed(() => t.request('GET', `/_edgeplane/journal?path=${encodeURIComponent('/**a**a**a**b')}`, { headers: t.operator }));
      expect(journal.res.statusCode, journal.res.body).toBe(200);
      expect(journal.ms).toBeLessThan(FAST_MS);
    } finally {
      await t.request('DELETE', `/_edgeplane/faults/${fault.json().id}`, { headers: t.operator });
    }
  });

  it('GraphQL analytics: deep nesting is refused before parsing (was a 500), fragments are measured once (was exponential), wide sets are refused before validation, the document is bounded', async () => {
    const post = (query: string) => timed(() => t.request('POST', '/cdn/advanced/v2/query', { headers: a.headers, body: { query } }));
    expect((await post('{ retentionDays }')).res.json()).toEqual({ data: { retentionDays: 90 } });
    // 2,500 levels of braces overflowed graphql-js's recursive parser: 500 "An unexpected error occurred."
    for (const query of [`{${'a{'.repeat(5000)}b${'}'.repeat(5001)}}`, `{ x(a: ${'['.repeat(3000)}${']'.repeat(3000)}) }`]) {
      const deep = await post(query);
      expect(deep.res.statusCode).toBe(200);
      expect(deep.res.json()).toEqual({
        errors: [{ message: 'Syntax Error: Document nests brackets more than 64 levels deep. Parsing aborted.', extensions: { code: 'GRAPHQL_PARSE_FAILED' } }],
      });
      expect(deep.ms).toBeLessThan(FAST_MS);
    }
    // Each fragment spreads the next twice: 22 of them (under 1 KB) held the event loop 6 s; 40 would take days.
    const n = 40;
    const fragments = Array.from({ length: n }, (_, i) =>
      i === n - 1 ? `fragment F${i} on Query { retentionDays }` : `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`,
    );
    const doubling = await post(`query Q { ...F0 } ${fragments.join(' ')}`);
    expect(doubling.res.statusCode).toBe(200);
    expect(doubling.res.json().errors[0]).toMatchObject({
      message: expect.stringMatching(/^Operation "Q" selects .* root fields; the limit is 10\.$/),
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    expect(doubling.ms).toBeLessThan(FAST_MS);
    // Same-named fields in one set are compared pairwise by the overlapping-fields rule, and every rule
    // visits every token (5,000 tokens took 40-60 ms): the set's width is checked first, alone.
    const same = await post(`{ statistics(from: "2026-01-01", to: "2026-01-02") { ${'a: rowCount '.repeat(600)} } }`);
    expect(same.res.json().errors).toEqual([expect.objectContaining({ message: 'The operation selects 600 fields in one selection set; the limit is 100.' })]);
    expect(same.ms).toBeLessThan(FAST_MS);
    // The route checks its own body: its strings are bounded too.
    const long = await post(`{ retentionDays }${' '.repeat(262_144)}`);
    expect(long.res.statusCode).toBe(400);
    expect(long.res.json()).toEqual({ errors: [{ message: 'The body is not a GraphQL request: "query" is longer than 262144 characters.' }] });
  });

  it('a string whose schema sets no maximum gets the default bound of 16,384 characters', async () => {
    // control.faults.create declares no maxLength for operationId or path.
    for (const body of [
      { operationId: 'x'.repeat(16_385), status: 503 },
      { path: `/${'a'.repeat(16_384)}`, status: 503 },
    ]) {
      const res = await t.request('POST', '/_edgeplane/faults', { headers: t.operator, body });
      expect(res.statusCode).toBe(422);
      expect(JSON.stringify(res.json())).toMatch(/16384/);
    }
    const list = await t.request('GET', '/_edgeplane/faults', { headers: t.operator });
    expect(list.json()).toEqual([]);
  });

  it("the state export streams rows of any size in bounded pieces, soft-deleted rows included (was a 500 past V8's longest string)", async () => {
    // Rows stored before names were bounded (the API refuses them now): 48 deleted templates of 512 KiB names.
    const count = 48;
    const c = await t.account();
    const size = 512 * 1024;
    const now = Date.now();
    for (let i = 0; i < count; i += 6) {
      const rows = Array.from({ length: 6 }, (_, j) => ({
        client_id: c.clientId,
        name: `${i + j}`.padEnd(size, 'n'),
        rule: `/old${i + j}`,
        rule_type: 0,
        weight: 1,
        override_origin_protocol: null,
        options: '{}',
        is_default: 0,
        system_key: null,
        deleted: 1,
        created_at: now,
        updated_at: now,
      }));
      await t.db.kysely.insertInto('cdn_rule_templates').values(rows).execute();
    }
    const listed = await t.request('GET', '/cdn/resources/rule_templates', { headers: c.headers });
    expect(listed.statusCode).toBe(200);
    expect(JSON.stringify(listed.json())).not.toContain('n'.repeat(1000));

    // The document goes out in pieces no longer than about one row plus a chunk: it was one string per page of rows.
    // Read a page at a time, with turns of the event loop between slices: SQLite reads in process, and a
    // chain of pages on settled promises held the loop for the whole export (these 48 rows: 0.16 s).
    let longest = 0;
    let total = 0;
    const { blockedMs } = await blocking(async () => {
      for await (const piece of await t.control.state.exportChunks()) {
        longest = Math.max(longest, piece.length);
        total += piece.length;
      }
    });
    expect(blockedMs).toBeLessThan(BLOCK_MS);
    expect(total).toBeGreaterThan(count * size);
    expect(longest).toBeLessThan(2 * size);

    for (const url of [`/_edgeplane/state?clientId=${c.clientId}`, '/_edgeplane/state']) {
      const res = await t.request('GET', url, { headers: t.operator });
      expect(res.statusCode).toBe(200);
      const templates = (res.json().tables.cdn_rule_templates as { client_id: number; name: string; deleted: number }[]).filter(
        (row) => row.client_id === c.clientId && row.deleted === 1,
      );
      expect(templates).toHaveLength(count);
      expect(templates.every((row) => row.name.length === size)).toBe(true);
    }
  });
  it('large bodies from one client (1 MB of JSON members no route reads, 1 MB nested past the limit, a 360 KB network-mapping import) leave the event loop free', async () => {
    const json = (body: string) => () =>
      t.request('POST', '/cdn/resources/rule_templates', { headers: { ...a.headers, 'content-type': 'application/json' }, body });
    const yaml = (body: string) => () =>
      t.request('POST', '/dns/v2/network-mappings/import', { headers: { ...a.headers, 'content-type': 'text/plain' }, body });
    const entries = (count: number) =>
      Array.from({ length: count }, (_, i) => `  - tags: [t${i}]\n    cidr4: [10.${i % 250}.${(i >> 8) % 250}.0/24]`).join('\n');
    // The threads start on their first body: not what is measured.
    expect((await json(JSON.stringify({ rule: '/warm', ruleType: 0, padding: 'p'.repeat(100_000) }))()).statusCode).toBe(201);
    expect((await yaml(`name: warm\nmapping:\n${entries(500)}\n`)()).statusCode).toBe(200);

    const undeclared = await blocking(
      json(
        JSON.stringify({ name: 'big', rule: '/big', ruleType: 0, padding: Object.fromEntries(Array.from({ length: 90_000 }, (_, i) => [`k${i}`, i % 10])) }),
      ),
    );
    expect(undeclared.res.statusCode, undeclared.res.body).toBe(201);
    expect(undeclared.res.json()).not.toHaveProperty('padding');
    const nested = await blocking(json(`{"name":"deep","rule":"/deep","ruleType":0,"x":${'['.repeat(500_000)}${']'.repeat(500_000)}}`));
    expect(nested.res.statusCode).toBe(400);
    expect(nested.res.body).toMatch(/nest more than 64 levels/);
    // 8,000 entries (360 KB), past the bound of 1,000: refused once read. Read on the main thread, it held it about 0.5 s (1 MB: 1-1.7 s);
    // in the thread it takes as long, well inside the 10 s limit even on a loaded machine.
    const imported = await blocking(yaml(`name: big\nmapping:\n${entries(8_000)}\n`));
    expect(imported.res.statusCode).toBe(400);
    expect(imported.res.json().error).toMatch(/at most 1000 entries/);
    for (const { blockedMs } of [undeclared, nested, imported]) expect(blockedMs).toBeLessThan(300);
    expect((await t.request('GET', '/dns/v2/network-mappings', { headers: b.headers })).statusCode).toBe(200);
  });
  it('arrays of wrongly typed items: the errors are matched to their unions in linear time, at most 100 fields are named, and more than 10,000 items in all are refused before parsing', async () => {
    const patch = (items: number) =>
      timed(() =>
        t.request('PATCH', `/cloud/v1/securitygroups/1/76/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`, {
          headers: a.headers,
          body: { name: 'x', changed_rules: Array(items).fill(1) },
        }),
      );
    // Each item fails every form of the rule union: 8,000 items took 67 s when every error was compared with every union.
    const wrong = await patch(9_000);
    expect(wrong.res.statusCode, wrong.res.body.slice(0, 300)).toBeGreaterThanOrEqual(400);
    expect(wrong.res.statusCode).toBeLessThan(500);
    expect(wrong.res.body.length).toBeLessThan(50_000);
    expect(wrong.ms).toBeLessThan(FAST_MS);
    // 9,000 items are validated in the thread first, 900 on the main thread: the same first 100 fields.
    const few = await sentToThreads('check', () => patch(900));
    expect(few.calls).toBe(0);
    const threaded = await sentToThreads('check', () => patch(9_000));
    expect(threaded.calls).toBe(1);
    expect(wrong.res.json().errors).toHaveLength(100);
    expect(threaded.res.res.json().errors).toEqual(wrong.res.json().errors);
    expect(wrong.res.json().errors).toEqual(few.res.res.json().errors);
    expect((await blocking(() => patch(9_000))).blockedMs).toBeLessThan(BLOCK_MS);
    const long = await patch(10_001);
    expect(long.res.statusCode).toBe(400);
    expect(long.res.body).toMatch(/arrays hold more than 10000 items in all/);
  });

  it('catalogue-engine bodies of many wrong items are refused from a thread, naming what the main thread names', async () => {
    const check = (interfaces: unknown[]) =>
      t.request('POST', '/cloud/v3/gpu/virtual/1/76/check_limits', {
        headers: a.headers,
        body: { flavor: 'x', servers_count: 1, servers_settings: { interfaces } },
      });
    // 900 items: checked on the main thread; 9,000: the body keeps its text and is checked in the thread.
    const { res: few, calls: checkedApart } = await sentToThreads('check', () => check(Array(900).fill(1)));
    expect(checkedApart).toBe(0);
    const { res: many, calls } = await sentToThreads('check', () => blocking(() => check(Array(9_000).fill(1))));
    expect(calls).toBe(1);
    expect(few.statusCode).toBe(400);
    expect(many.res.statusCode).toBe(400);
    expect(many.res.json().errors).toHaveLength(100);
    expect(many.res.json().errors).toEqual(few.json().errors);
    expect(many.res.json().message).toBe(few.json().message);
    expect(many.blockedMs).toBeLessThan(BLOCK_MS);
  });

  it('a generated report costs the same however long the request: a 12,000-character filter, 1 MB of body (each of its values hashed the whole request)', async () => {
    const report = (country: string) =>
      blocking(() =>
        t.request('GET', '/streaming/statistics/views', {
          headers: a.headers,
          query: { date_from: '2000-01-01T00:00:00Z', date_to: '2017-07-05T00:00:00Z', country },
        }),
      );
    // Made in the engine's thread.
    expect((await sentToThreads('report', () => report('LU'))).calls).toBe(1);
    const short = await report('LU');
    const long = await report('x'.repeat(12_000));
    expect(long.res.statusCode).toBe(200);
    expect(long.res.json().data.length).toBe(short.res.json().data.length);
    // The same request answers the same: the report is seeded by a digest of the request.
    expect((await report('x'.repeat(12_000))).res.body).toBe(long.res.body);
    const metrics = () =>
      blocking(() =>
        t.request('POST', '/cdn/advanced/v1/metrics', {
          headers: a.headers,
          body: { from: '2020-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z', granularity: '1h', metrics: ['edge_requests'], padding: 'p'.repeat(1_000_000) },
        }),
      );
    // 1 MB of members the route does not declare: 2.4 s before, 0.4 s for the 12,000-character filter.
    const posted = await metrics();
    expect(posted.res.statusCode).toBe(200);
    for (const { blockedMs } of [long, posted]) expect(blockedMs).toBeLessThan(BLOCK_MS);
  });
});
