// The worker pool's time limit: a call past it fails at once, its thread (stuck inside the call) is
// replaced, and the calls queued behind it are answered by the new thread.
import { afterEach, describe, expect, it } from 'vitest';
import { WorkerPool, WorkerTimeout } from './workers.js';

// A thread that answers `{echo}` at once, never answers `{spin: true}` (it loops for ever) and dies on
// `{crash: true}` (an uncaught error).
const SOURCE = `
const { parentPort, threadId } = require('node:worker_threads');
parentPort.on('message', ({ id, spin, crash, echo }) => {
  if (spin) for (;;) {}
  if (crash) throw new Error('thread crashed');
  parentPort.postMessage({ id, result: { echo, threadId } });
});
`;

const pools: WorkerPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

function pool(threads: number): WorkerPool {
  const made = new WorkerPool(() => ({ source: SOURCE, eval: true, workerData: null }), threads);
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
