// The warm-up runs its steps only while the server is quiet, one at a time, and lets go of the server.
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { emitRequest as request } from '../../tests/support/server-events.js';
import { warmUpWhenQuiet, type WarmUpStep } from './warm-up.js';

const QUIET = 10;

function recorder(names: string[]) {
  const ran: string[] = [];
  const steps: WarmUpStep[] = names.map((name) => ({ name, run: () => void ran.push(name) }));
  return { ran, steps };
}

describe('warmUpWhenQuiet', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs one step per quiet period, in order, then stops listening to the server', async () => {
    const server = new EventEmitter();
    const { ran, steps } = recorder(['index', 'catalogue', 'tables']);
    const warmUp = warmUpWhenQuiet(server, steps, () => {}, QUIET);
    expect(server.listenerCount('request')).toBe(1);
    await vi.advanceTimersByTimeAsync(QUIET - 1);
    expect(ran).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(ran).toEqual(['index']);
    await vi.advanceTimersByTimeAsync(2 * QUIET);
    await warmUp.done;
    expect(ran).toEqual(['index', 'catalogue', 'tables']);
    expect(server.listenerCount('request')).toBe(0);
  });

  it('waits while requests keep arriving, and while one is being answered', async () => {
    const server = new EventEmitter();
    const { ran, steps } = recorder(['catalogue']);
    warmUpWhenQuiet(server, steps, () => {}, QUIET);
    // A request every 5 ms for 50 ms: never quiet for 10.
    for (let i = 0; i < 10; i += 1) {
      request(server).close();
      await vi.advanceTimersByTimeAsync(5);
    }
    expect(ran).toEqual([]);
    // One long request: no step while it is answered, however long.
    const slow = request(server);
    await vi.advanceTimersByTimeAsync(10 * QUIET);
    expect(ran).toEqual([]);
    slow.close();
    await vi.advanceTimersByTimeAsync(QUIET - 1);
    expect(ran).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(ran).toEqual(['catalogue']);
  });

  it('reports a step that fails and goes on with the next', async () => {
    const server = new EventEmitter();
    const failures: string[] = [];
    const ran: string[] = [];
    const steps: WarmUpStep[] = [
      {
        name: 'broken',
        run: () => {
          throw new Error('unreadable');
        },
      },
      { name: 'tables', run: () => void ran.push('tables') },
    ];
    const warmUp = warmUpWhenQuiet(server, steps, (step, error) => failures.push(`${step.name}: ${(error as Error).message}`), QUIET);
    await vi.advanceTimersByTimeAsync(2 * QUIET);
    await warmUp.done;
    expect(failures).toEqual(['broken: unreadable']);
    expect(ran).toEqual(['tables']);
  });

  it('runs nothing more once stopped, and settles at once', async () => {
    const server = new EventEmitter();
    const { ran, steps } = recorder(['index', 'catalogue']);
    const warmUp = warmUpWhenQuiet(server, steps, () => {}, QUIET);
    await vi.advanceTimersByTimeAsync(QUIET);
    expect(ran).toEqual(['index']);
    warmUp.stop();
    await warmUp.done;
    await vi.advanceTimersByTimeAsync(10 * QUIET);
    expect(ran).toEqual(['index']);
    expect(server.listenerCount('request')).toBe(0);
  });
});
