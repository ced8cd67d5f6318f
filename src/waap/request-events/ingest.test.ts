// The ingestor reads a body on the main thread or in its parsing thread, by size: both must keep and
// refuse the same lines, report the same errors in the same order and store the same rows.
import { setTimeout as realDelay } from 'node:timers/promises';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Clock } from '../../platform/clock.js';
import { TrafficGenerator } from './generator.js';
import { WorkerPool } from '../../platform/workers.js';
import { EventIngestor } from './ingest.js';
import type { EventBatch, EventRow } from './log/index.js';
import { MAX_REPORTED } from './records.js';
import { RETENTION_MS } from './time.js';

const DAY = 86_400_000;
const clock = new Clock();
const now = clock.now();
const domains = [undefined, { client_id: 7, name: 'a.example.com' }, { client_id: 8, name: 'b.example.com' }];
const lookup = { owner: async (id: number) => domains[id] };

/** A log that keeps what it is given and refuses an id it already holds, as the real one does. */
class MemoryLog {
  readonly rows: EventRow[] = [];
  private readonly ids = new Set<string>();
  async insert(batch: EventBatch): Promise<boolean[]> {
    return Array.from({ length: batch.n }, (_, i) => batch.row(i)).map((row) => {
      if (this.ids.has(row.id)) return false;
      this.ids.add(row.id);
      this.rows.push({ ...row });
      return true;
    });
  }
}

const idOf = (i: number) => `${i.toString(16).padStart(32, '0')}-000000`;

/** Lines of every kind, in a mixed order: good, duplicate, blank, bad JSON, invalid, unknown domain, bad times, both. */
function body(count: number): string {
  const gen = new TrafficGenerator(11);
  const session = gen.newSession();
  const lines: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const domainId = i % 13 === 5 ? 99 : 1 + (i % 2);
    const time = i % 17 === 3 ? now - RETENTION_MS - DAY : i % 19 === 4 ? now + 3 * DAY : now - 1000 - i;
    const record: Record<string, unknown> = { ...gen.record(session, { id: domainId, name: domains[domainId]?.name ?? 'x' }, time) };
    record.id = idOf(i % 97 === 50 ? i - 1 : i);
    if (i % 23 === 7) delete record.requested_domain;
    else record.requested_domain = i % 2 ? 'shown.example.com' : '';
    if (i % 29 === 2) lines.push('{not json');
    else if (i % 31 === 6) lines.push(JSON.stringify({ ...record, decision: 'maybe' }));
    else if (i % 37 === 9) lines.push('   ');
    else lines.push(JSON.stringify(record));
  }
  return `${lines.join('\n')}\n`;
}

describe('EventIngestor: a body read in the parsing thread or on the main thread', () => {
  const ingestors: EventIngestor[] = [];
  afterAll(async () => {
    for (const ingestor of ingestors) await ingestor.close();
  });
  const ingestWith = async (text: string, threadFromBytes: number) => {
    const log = new MemoryLog();
    const ingestor = new EventIngestor(log, lookup, clock, undefined, undefined, { threadFromBytes });
    ingestors.push(ingestor);
    return { report: await ingestor.ingest(Buffer.from(text)), rows: log.rows };
  };

  it('keeps, refuses and reports the same lines, and stores the same rows', async () => {
    const text = body(9_000);
    const inline = await ingestWith(text, Infinity);
    const threaded = await ingestWith(text, 0);
    expect(threaded.report).toEqual(inline.report);
    expect(threaded.rows).toEqual(inline.rows);
    // The body has every kind of line, so the comparison means something.
    expect(inline.report.accepted).toBeGreaterThan(5_000);
    expect(inline.report.rejected).toBeGreaterThan(MAX_REPORTED);
    expect(inline.report.errors).toHaveLength(MAX_REPORTED);
    const details = inline.report.errors.map((e) => e.detail).join('\n');
    for (const kind of [/^invalid JSON/m, /^decision/m, /does not exist/, /retention/, /after the server clock/]) expect(details).toMatch(kind);
    // Line 51 repeats line 50's id: refused as a duplicate (reported past the hundredth, so only counted).
    expect(inline.rows.filter((row) => row.id === idOf(49))).toHaveLength(1);
    expect(inline.report.accepted).toBe(inline.rows.length);
    expect(inline.report.accepted + inline.report.rejected).toBe(text.split('\n').filter((l) => l.trim() !== '').length);
    // A line naming an unknown domain with a refused time reports the domain (it is checked first).
    const line = (i: number) => inline.report.errors.find((e) => e.line === i + 1)?.detail;
    expect(line(18)).toMatch(/domain 99 does not exist/);
    // Rows take their domain's client and name; requested_domain defaults to the domain's name only when absent.
    const byId = new Map(inline.rows.map((row) => [row.id, row]));
    expect(byId.get(idOf(0))).toMatchObject({ client_id: 7, domain: 'a.example.com', requested_domain: '' });
    expect(byId.get(idOf(1))).toMatchObject({ client_id: 8, domain: 'b.example.com', requested_domain: 'shown.example.com' });
    expect(byId.get(idOf(7))).toMatchObject({ client_id: 8, requested_domain: 'b.example.com' });
  });

  it('reads a large body in pieces in the thread, the report equal to one read on the main thread', async () => {
    // Over 50,000 lines of which most are refused: several pieces, the refusals past the hundredth only counted.
    const text = `${'{"domain_id":1}\n'.repeat(120_000)}${body(5_000)}`;
    const inline = await ingestWith(text, Infinity);
    const threaded = await ingestWith(text, 0);
    expect(threaded.report).toEqual(inline.report);
    expect(threaded.rows).toEqual(inline.rows);
    expect(inline.report.rejected).toBeGreaterThan(120_000);
  });

  it("reports the body's first refusals when two threads read its stretches at once", async () => {
    // Every stretch refuses lines: threads reading two at once take the shared descriptions out of line
    // order, and the stretches left without theirs are read again.
    const text = `${'{"domain_id":1}\n'.repeat(200_000)}${body(3_000)}`;
    const inline = await ingestWith(text, Infinity);
    // Whether the threads race is up to the scheduler: three bodies make it all but certain that one does.
    for (let round = 0; round < 3; round += 1) {
      const log = new MemoryLog();
      const ingestor = new EventIngestor(log, lookup, clock, undefined, undefined, { threadFromBytes: 0, threads: 2 });
      ingestors.push(ingestor);
      expect(await ingestor.ingest(Buffer.from(text))).toEqual(inline.report);
      expect(log.rows).toEqual(inline.rows);
    }
  });

  it('answers 503 when the thread stops while pieces are asked ahead, and keeps the batches already written', async () => {
    let ingestor: EventIngestor | undefined;
    const log = new MemoryLog();
    // The first batch is written, then the thread stops with pieces asked for and not taken.
    const stopping = {
      insert: async (batch: EventBatch) => {
        const inserted = await log.insert(batch);
        await ingestor!.close();
        return inserted;
      },
    };
    ingestor = new EventIngestor(stopping, lookup, clock, undefined, undefined, { threadFromBytes: 0 });
    const text = body(60_000);
    await expect(ingestor.ingest(Buffer.from(text))).rejects.toMatchObject({ code: 'service_unavailable' });
    expect(log.rows.length).toBeGreaterThan(0);
  });

  it('leaves the caller its body: the thread reads a copy', async () => {
    const sent = Buffer.from(body(200));
    const before = Buffer.from(sent);
    const log = new MemoryLog();
    const ingestor = new EventIngestor(log, lookup, clock, undefined, undefined, { threadFromBytes: 0 });
    ingestors.push(ingestor);
    await ingestor.ingest(sent);
    expect(sent.equals(before)).toBe(true);
  });
});

// The parsing threads read stretches of a body in shared memory; the pool stops threads that have had no
// call for its idle time. A store slower than that idle time stops them between two stretches: the
// stretches asked for after it must be read by the threads that replace them.
// The pool's idle timer is faked (the threads are real): time passes only when the test moves it.
describe("EventIngestor: a store slower than the parsing threads' idle time", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reads the stretches asked for after the threads were stopped', async () => {
    const log = new MemoryLog();
    const calls = vi.spyOn(WorkerPool.prototype, 'call');
    let callsBeforeStop = 0;
    let stores = 0;
    const slow = {
      insert: async (batch: EventBatch) => {
        // While the first batch is stored, the threads answer every stretch asked ahead and then have no
        // call: the pool then sets its idle timer (the only faked timer here). Up to 2 s of real time is
        // given for that, then the idle time passes many times over and the threads stop.
        if (stores++ === 0) {
          for (let waited = 0; waited < 2_000 && vi.getTimerCount() === 0; waited += 10) await realDelay(10);
          expect(vi.getTimerCount()).toBe(1);
          vi.advanceTimersByTime(10_000);
          callsBeforeStop = calls.mock.calls.length;
        }
        return log.insert(batch);
      },
    };
    const ingestor = new EventIngestor(slow, lookup, clock, undefined, undefined, { threadFromBytes: 0, threadIdleMs: 500 });
    try {
      // Lines of about 1.2 KB: the first batch (20,000 rows, 24 MB) is stored with more than the 16 MB asked
      // ahead still to ask. A long header value keeps the lines cheap to parse for their size.
      const lines = 40_000;
      const record = (i: number) => ({
        domain_id: 1 + (i % 2),
        id: idOf(i),
        request_time: now - 1000 - i,
        decision: 'passed',
        network: { client_ip: '192.0.2.1', country: 'NL' },
        method: 'GET',
        path: `/p/${i}`,
        http_status_code: 200,
        request_headers: { cookie: 'c'.repeat(1_000) },
      });
      const text = `${Array.from({ length: lines }, (_, i) => JSON.stringify(record(i))).join('\n')}\n`;
      const report = await ingestor.ingest(Buffer.from(text));
      expect(stores).toBe(2);
      expect(calls.mock.calls.length).toBeGreaterThan(callsBeforeStop);
      expect(report).toEqual({ accepted: lines, rejected: 0, errors: [] });
      expect(log.rows.map((row) => row.id)).toEqual(Array.from({ length: lines }, (_, i) => idOf(i)));
    } finally {
      calls.mockRestore();
      await ingestor.close();
    }
  });
});
