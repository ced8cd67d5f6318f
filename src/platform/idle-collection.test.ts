// The collection after a burst runs once the server has been idle, once per burst, never while a request
// is being answered; without --expose-gc there is no collector to call.
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { collectWhenIdle, exposedCollector } from './idle-collection.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A request arriving at `server`; its response closes when `close` is called. */
function request(server: EventEmitter) {
  const response = new EventEmitter();
  server.emit('request', {}, response);
  return { close: () => response.emit('close') };
}

describe('collection when idle', () => {
  it('collects once a burst is followed by idleMs without requests, then waits for the next burst', () => {
    const server = new EventEmitter();
    const collect = vi.fn();
    const idle = collectWhenIdle(server, collect, 1_000, 3);
    for (let i = 0; i < 3; i += 1) request(server).close();
    vi.advanceTimersByTime(800);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(400);
    expect(collect).toHaveBeenCalledTimes(1);
    // Idle still, no new burst: nothing more.
    vi.advanceTimersByTime(10_000);
    expect(collect).toHaveBeenCalledTimes(1);
    // Two requests are not a burst of three.
    request(server).close();
    request(server).close();
    vi.advanceTimersByTime(5_000);
    expect(collect).toHaveBeenCalledTimes(1);
    request(server).close();
    vi.advanceTimersByTime(1_200);
    expect(collect).toHaveBeenCalledTimes(2);
    idle.stop();
    expect(server.listenerCount('request')).toBe(0);
  });

  it('does not collect while a request is being answered, however long it takes', () => {
    const server = new EventEmitter();
    const collect = vi.fn();
    const idle = collectWhenIdle(server, collect, 1_000, 2);
    request(server).close();
    const slow = request(server);
    vi.advanceTimersByTime(5_000);
    expect(collect).not.toHaveBeenCalled();
    slow.close();
    vi.advanceTimersByTime(600);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(600);
    expect(collect).toHaveBeenCalledTimes(1);
    idle.stop();
  });

  it("hands over V8's collector only in a process started with --expose-gc", () => {
    const exposed = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(' ')].includes('--expose-gc');
    expect(typeof exposedCollector()).toBe(exposed ? 'function' : 'undefined');
  });
});
