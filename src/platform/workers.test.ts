// The worker pool's time limit: a call past it fails at once, its thread (stuck inside the call) is
// replaced, and the calls queued behind it are answered by the new thread. Threads without calls for the
// pool's idle time are stopped, and the next call starts new ones.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MessageChannel } from 'node:worker_threads';
import { serveWorkerCalls, WorkerPool, WorkerTimeout } from './workers.js';

// A thread that answers `{echo}` at once, never answers `{spin: true}` (it loops for ever) and dies on
// `{crash: true}` (an uncaught error).
// `{bytes}` is answered with their count and sum.
const SOURCE = `
const { parentPort, threadId } = require('node:worker_threads');
parentPort.on('message', ({ id, spin, crash, echo, bytes }) => {
  if (spin) for (;;) {}
  if (crash) throw new Error('thread crashed');
  if (bytes) return parentPort.postMessage({ id, result: { length: bytes.length, sum: bytes.reduce((a, b) => a + b, 0) } });
  parentPort.postMessage({ id, result: { echo, threadId } });
});
`;

const pools: WorkerPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

function pool(threads: number, idleMs?: number): WorkerPool {
  const made = new WorkerPool(() => ({ source: SOURCE, eval: true, workerData: null }), threads, idleMs);
  pools.push(made);
  return made;
}

describe('WorkerPool time limit', () => {
  it('fails a call past its time, replaces the stuck thread and runs the queued calls on the new one', async () => {
    const one = pool(1);
    const first = await one.call<{ threadId: number }>({ echo: 'before' });
    const stuck = one.call({ spin: true }, { timeoutMs: 200 });
    const queued = one.call<{ echo: string; threadId: number }>({ echo: 'queued' }, { timeoutMs: 5_000 });
    await expect(stuck).rejects.toBeInstanceOf(WorkerTimeout);
    const answer = await queued;
    expect(answer.echo).toBe('queued');
    expect(answer.threadId).not.toBe(first.threadId);
    expect((await one.call<{ echo: string }>({ echo: 'after' })).echo).toBe('after');
  });

  it('leaves calls answered in time alone', async () => {
    const two = pool(2);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => two.call<{ echo: number }>({ echo: i }, { timeoutMs: 5_000 })));
    expect(answers.map((a) => a.echo)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('replaces a thread that died, so the next calls are answered without waiting for a time limit', async () => {
    const one = pool(1);
    const first = await one.call<{ threadId: number }>({ echo: 'before' });
    await expect(one.call({ crash: true })).rejects.toThrow('thread crashed');
    // No time limit: sent to the dead thread, this call would never be answered.
    const answer = await one.call<{ echo: string; threadId: number }>({ echo: 'after' });
    expect(answer.echo).toBe('after');
    expect(answer.threadId).not.toBe(first.threadId);
  });
});

describe('WorkerPool close', () => {
  it('fails the calls its threads had not answered, instead of leaving them waiting for ever', async () => {
    const one = new WorkerPool(() => ({ source: SOURCE, eval: true, workerData: null }), 1);
    // The expectation is attached before the close, which rejects the call.
    const stuck = expect(one.call({ spin: true })).rejects.toThrow('the worker pool is closed');
    await one.close();
    await stuck;
    await expect(one.call({ echo: 'late' })).rejects.toThrow('the worker pool is closed');
  });
});

describe('WorkerPool calls that move memory', () => {
  it('moves the listed memory to the thread (the caller no longer has it)', async () => {
    const one = pool(1);
    const bytes = new Uint8Array(1024).fill(3);
    const answer = await one.call<{ length: number; sum: number }>({ bytes }, { transfer: [bytes.buffer] });
    expect(answer).toEqual({ length: 1024, sum: 3072 });
    expect(bytes.byteLength).toBe(0);
  });

  it('fails, rather than sends again empty, a moved call queued behind one past its time', async () => {
    const one = pool(1);
    const stuck = one.call({ spin: true }, { timeoutMs: 200 });
    const bytes = new Uint8Array(16).fill(1);
    const moved = one.call({ bytes }, { transfer: [bytes.buffer] });
    const copied = one.call<{ length: number }>({ bytes: new Uint8Array(8) });
    await expect(stuck).rejects.toBeInstanceOf(WorkerTimeout);
    await expect(moved).rejects.toBeInstanceOf(WorkerTimeout);
    expect((await copied).length).toBe(8);
  });
});

describe('serveWorkerCalls', () => {
  it('moves a byte array that owns its memory to the caller, and copies one that shares it', async () => {
    const { port1, port2 } = new MessageChannel();
    const own = new Uint8Array(64 * 1024).fill(7);
    const pooled = Buffer.from("a few bytes: a slice of Buffer's pool");
    const answers: Record<string, Uint8Array> = { own, pooled };
    serveWorkerCalls(port1, (message) => answers[message.name as string]);
    const ask = (id: number, name: string) =>
      new Promise<Uint8Array>((resolve) => {
        port2.once('message', (answer: { result: Uint8Array }) => resolve(answer.result));
        port2.postMessage({ id, name });
      });
    try {
      const moved = await ask(1, 'own');
      expect(moved.length).toBe(64 * 1024);
      expect(moved.every((b) => b === 7)).toBe(true);
      // Moved, not copied: the sender's array no longer has its memory.
      expect(own.byteLength).toBe(0);
      const copied = await ask(2, 'pooled');
      expect(Buffer.from(copied).toString()).toBe("a few bytes: a slice of Buffer's pool");
      expect(pooled.byteLength).toBeGreaterThan(0);
    } finally {
      port1.close();
    }
  });
});

// The idle timer is faked (the threads and their answers are real): the pool's idle time passes only when
// a test moves the clock.
describe('WorkerPool idle threads', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const threadOf = async (from: WorkerPool) => (await from.call<{ threadId: number }>({ echo: 'which' })).threadId;

  it('stops its threads after the idle time without a call; the next call starts new ones', async () => {
    const two = pool(2, 1_000);
    const before = await Promise.all([two.call<{ threadId: number }>({ echo: 1 }), two.call<{ threadId: number }>({ echo: 2 })]);
    const threads = new Set(before.map((answer) => answer.threadId));
    expect(threads.size).toBe(2);
    vi.advanceTimersByTime(999);
    expect(threads.has(await threadOf(two))).toBe(true);
    vi.advanceTimersByTime(1_000);
    const after = await Promise.all([two.call<{ echo: number; threadId: number }>({ echo: 4 }), two.call<{ echo: number; threadId: number }>({ echo: 5 })]);
    expect(after.map((answer) => answer.echo)).toEqual([4, 5]);
    for (const answer of after) expect(threads.has(answer.threadId)).toBe(false);
  });

  it('does not stop a thread while a call is being answered, however long it takes', async () => {
    const one = pool(1, 1_000);
    const first = await threadOf(one);
    const slow = one.call<{ echo: string; threadId: number }>({ echo: 'slow', wait: 200 });
    vi.advanceTimersByTime(5_000);
    expect(await slow).toEqual({ echo: 'slow', threadId: first });
  });

  it('counts the idle time from the last answer, not from the first call', async () => {
    const one = pool(1, 1_000);
    const first = await threadOf(one);
    for (let i = 1; i <= 4; i += 1) {
      vi.advanceTimersByTime(600);
      expect(await threadOf(one)).toBe(first);
    }
  });
});
