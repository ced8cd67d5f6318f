// The collection after a burst runs once the server has been idle, once per burst, never while a request
// is being answered: the young generation first, the whole heap compacted after as long again. Without
// --expose-gc there is no collector to call; with it, the full collection gives back a fragmented heap.
// Once the threads have stopped, the C heap is trimmed again.
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runWithExposedGc } from '../../tests/support/expose-gc-script.js';
import { emitRequest as request } from '../../tests/support/server-events.js';
import { collectWhenIdle, exposedCollector } from './idle-collection.js';

describe('collection when idle', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const collector = () => ({ young: vi.fn(), full: vi.fn(), trim: vi.fn() });

  /**
   * Watching a server (idle time 1 s, bursts of 3, the late trim at `lateMs` when given), which has just
   * answered `requests` requests: a burst by default.
   */
  function afterBurst(requests = 3, lateMs?: number) {
    const server = new EventEmitter();
    const collect = collector();
    const idle = collectWhenIdle(server, collect, { idleMs: 1_000, burstRequests: 3, lateMs, residentBytes: () => 0 });
    for (let i = 0; i < requests; i += 1) request(server).close();
    return { server, collect, idle };
  }

  it('empties the young generation once a burst is followed by idleMs without requests, collects it all at twice that, then waits for the next burst', () => {
    const { server, collect, idle } = afterBurst();
    vi.advanceTimersByTime(800);
    expect(collect.young).not.toHaveBeenCalled();
    vi.advanceTimersByTime(400);
    expect(collect.young).toHaveBeenCalledTimes(1);
    expect(collect.full).not.toHaveBeenCalled();
    vi.advanceTimersByTime(600);
    expect(collect.full).not.toHaveBeenCalled();
    vi.advanceTimersByTime(400);
    expect(collect.young).toHaveBeenCalledTimes(1);
    expect(collect.full).toHaveBeenCalledTimes(1);
    expect(collect.young.mock.invocationCallOrder[0]).toBeLessThan(collect.full.mock.invocationCallOrder[0]);
    // Idle still, no new burst: nothing more.
    vi.advanceTimersByTime(10_000);
    expect(collect.young).toHaveBeenCalledTimes(1);
    expect(collect.full).toHaveBeenCalledTimes(1);
    // Two requests are not a burst of three.
    request(server).close();
    request(server).close();
    vi.advanceTimersByTime(5_000);
    expect(collect.full).toHaveBeenCalledTimes(1);
    request(server).close();
    vi.advanceTimersByTime(2_200);
    expect(collect.young).toHaveBeenCalledTimes(2);
    expect(collect.full).toHaveBeenCalledTimes(2);
    idle.stop();
    expect(server.listenerCount('request')).toBe(0);
  });

  it('starts the wait again when a request comes between the young collection and the full one', () => {
    const { server, collect, idle } = afterBurst();
    vi.advanceTimersByTime(1_200);
    expect(collect.young).toHaveBeenCalledTimes(1);
    request(server).close();
    vi.advanceTimersByTime(1_000);
    expect(collect.full).not.toHaveBeenCalled();
    // A young collection again after the new quiet idleMs, the full one idleMs later.
    vi.advanceTimersByTime(200);
    expect(collect.young).toHaveBeenCalledTimes(2);
    expect(collect.full).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1_000);
    expect(collect.full).toHaveBeenCalledTimes(1);
    idle.stop();
  });

  it('trims the C heap again once the server has been idle for lateMs after a full collection (the threads have stopped), once', () => {
    const { server, collect, idle } = afterBurst(3, 6_000);
    vi.advanceTimersByTime(2_200);
    expect(collect.full).toHaveBeenCalledTimes(1);
    expect(collect.trim).not.toHaveBeenCalled();
    vi.advanceTimersByTime(3_000);
    expect(collect.trim).not.toHaveBeenCalled();
    // A request (less than a burst) starts the wait again; the trim is still due.
    request(server).close();
    vi.advanceTimersByTime(5_000);
    expect(collect.trim).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1_200);
    expect(collect.trim).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(20_000);
    expect(collect.trim).toHaveBeenCalledTimes(1);
    expect(collect.full).toHaveBeenCalledTimes(1);
    idle.stop();
  });

  it('does not trim without a full collection before', () => {
    const { collect, idle } = afterBurst(1, 6_000);
    vi.advanceTimersByTime(20_000);
    expect(collect.full).not.toHaveBeenCalled();
    expect(collect.trim).not.toHaveBeenCalled();
    idle.stop();
  });

  describe('a few requests that leave the process holding more memory', () => {
    const MiB = 1024 * 1024;
    /** Watching a server of `resident.bytes` (bursts of 1,000 requests or 64 MiB of growth, the late trim at 6 s). */
    function watched() {
      const server = new EventEmitter();
      const collect = collector();
      const resident = { bytes: 100 * MiB };
      const idle = collectWhenIdle(server, collect, {
        idleMs: 1_000,
        burstRequests: 1_000,
        burstGrowthBytes: 64 * MiB,
        lateMs: 6_000,
        residentBytes: () => resident.bytes,
      });
      return { server, collect, resident, idle };
    }

    it('are a burst once the growth passes the bound, and the memory left after the collection is the next floor', () => {
      const { server, collect, resident, idle } = watched();
      // One request (a large export) that grew the process by 64 MiB.
      request(server).close();
      resident.bytes += 64 * MiB;
      vi.advanceTimersByTime(2_200);
      expect(collect.young).toHaveBeenCalledTimes(1);
      expect(collect.full).toHaveBeenCalledTimes(1);
      // The collection gave back half; the threads' stop and the trim (6 s after the request) all but 10 MiB.
      resident.bytes -= 32 * MiB;
      vi.advanceTimersByTime(3_000);
      expect(collect.trim).not.toHaveBeenCalled();
      resident.bytes = 110 * MiB;
      vi.advanceTimersByTime(1_000);
      expect(collect.trim).toHaveBeenCalledTimes(1);
      // The floor is now 110 MiB: a request that grows it to 170 MiB is no burst, to 174 MiB is one.
      request(server).close();
      resident.bytes = 170 * MiB;
      vi.advanceTimersByTime(5_000);
      expect(collect.full).toHaveBeenCalledTimes(1);
      resident.bytes = 174 * MiB;
      vi.advanceTimersByTime(2_200);
      expect(collect.full).toHaveBeenCalledTimes(2);
      idle.stop();
    });

    it('are no burst when the growth stays under the bound', () => {
      const { server, collect, resident, idle } = watched();
      for (let i = 0; i < 10; i += 1) request(server).close();
      resident.bytes += 63 * MiB;
      vi.advanceTimersByTime(10_000);
      expect(collect.young).not.toHaveBeenCalled();
      expect(collect.full).not.toHaveBeenCalled();
      idle.stop();
    });

    it('need a request: memory that grows with no client (a timer, a thread of its own) is left alone', () => {
      const { collect, resident, idle } = watched();
      resident.bytes += 200 * MiB;
      vi.advanceTimersByTime(10_000);
      expect(collect.full).not.toHaveBeenCalled();
      idle.stop();
    });

    it('stay a burst until the collection once seen, though the memory falls meanwhile (the threads stop)', () => {
      const { server, collect, resident, idle } = watched();
      request(server).close();
      resident.bytes += 80 * MiB;
      vi.advanceTimersByTime(1_200);
      expect(collect.young).toHaveBeenCalledTimes(1);
      resident.bytes -= 40 * MiB;
      vi.advanceTimersByTime(1_000);
      expect(collect.full).toHaveBeenCalledTimes(1);
      idle.stop();
    });
  });

  it('does not collect while a request is being answered, however long it takes', () => {
    const server = new EventEmitter();
    const collect = collector();
    const idle = collectWhenIdle(server, collect, { idleMs: 1_000, burstRequests: 2, residentBytes: () => 0 });
    request(server).close();
    const slow = request(server);
    vi.advanceTimersByTime(5_000);
    expect(collect.young).not.toHaveBeenCalled();
    slow.close();
    vi.advanceTimersByTime(600);
    expect(collect.young).not.toHaveBeenCalled();
    vi.advanceTimersByTime(600);
    expect(collect.young).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1_000);
    expect(collect.full).toHaveBeenCalledTimes(1);
    idle.stop();
  });
});

describe("V8's collector", () => {
  it('is there only in a process started with --expose-gc', () => {
    const exposed = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(' ')].includes('--expose-gc');
    expect(exposedCollector() === undefined).toBe(!exposed);
  });

  // In a process of its own, started as the built command starts (--expose-gc): a heap where one object in
  // twenty outlived the rest, scattered over the old generation's pages.
  it('gives back the pages a plain full collection keeps, and empties the young generation', async () => {
    const script = `
      import v8 from 'node:v8';
      import { exposedCollector } from './src/platform/idle-collection.ts';
      const space = (name) => v8.getHeapSpaceStatistics().find((s) => s.space_name === name);
      const collector = exposedCollector();
      let all = [];
      for (let i = 0; i < 600000; i++) all.push({ i, text: 'item ' + i });
      collector.full();
      const kept = all.filter((_, i) => i % 20 === 0);
      all = undefined;
      gc();
      const plain = space('old_space').space_size;
      collector.full();
      const compacted = space('old_space');
      let last;
      for (let i = 0; i < 20000; i++) last = { i, before: last && last.i };
      const youngBefore = space('new_space').space_used_size;
      collector.young();
      const youngAfter = space('new_space').space_used_size;
      console.log(JSON.stringify({ plain, compacted: compacted.space_size, used: compacted.space_used_size, youngBefore, youngAfter, kept: kept.length }));
    `;
    const out = await runWithExposedGc(script);
    const heap = JSON.parse(out) as { plain: number; compacted: number; used: number; youngBefore: number; youngAfter: number; kept: number };
    expect(heap.kept).toBe(30_000);
    // The plain collection keeps the pages the survivors are scattered over; compaction moves them together.
    expect(heap.plain).toBeGreaterThan(4 * heap.used);
    expect(heap.compacted).toBeLessThan(heap.plain / 2);
    expect(heap.compacted).toBeLessThan(2 * heap.used);
    // The young collection frees the garbage the new space held.
    expect(heap.youngAfter).toBeLessThan(heap.youngBefore / 2);
  }, 60_000);

  it('empties the caches it was given before each full collection, and collects even when that fails', async () => {
    const script = `
      import { exposedCollector } from './src/platform/idle-collection.ts';
      const steps = [];
      let fail = false;
      const release = () => {
        steps.push('release');
        if (fail) throw new Error('the cache is busy');
      };
      const collector = exposedCollector(release, () => ({ trim: () => steps.push('trim') }));
      collector.full();
      fail = true;
      collector.full();
      collector.young();
      console.log(JSON.stringify(steps));
    `;
    expect(JSON.parse(await runWithExposedGc(script))).toEqual(['release', 'trim', 'release', 'trim']);
  }, 60_000);
});
