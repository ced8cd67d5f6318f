// After a burst of requests the V8 heap stays at the size the burst left it: the old generation is only
// collected once it reaches 4x of what survived its last full collection (heap-growth.ts), which keeps
// full collections off a loaded server. After 100,000 mixed requests that is 250 MiB of resident memory
// for 40 MiB of live objects. Once the server has answered a burst and then had no request for IDLE_MS,
// one full collection (about 20 ms for that heap, while no client is waiting) lets V8 give back 20-55 MiB
// of it (bench/README.md). Once per burst: an idle server is not collected again and again.
import vm from 'node:vm';
import type { EventEmitter } from 'node:events';
import { RequestActivity } from './request-activity.js';

/** How long the server must have had no request before the collection. */
export const IDLE_MS = 5_000;
/** The requests a burst must have had to be worth a collection (a few allocate little). */
export const BURST_REQUESTS = 1_000;

/**
 * V8's `gc` when the process runs with --expose-gc (the launcher, dist/edgeplane.mjs, sets it before it
 * compiles the bundle, as the code cache needs), otherwise undefined. The flag puts the function on
 * contexts made after it is set, not on the one already running: a new context hands it over.
 */
export function exposedCollector(): (() => void) | undefined {
  return vm.runInNewContext('typeof gc === "function" ? gc : undefined') as (() => void) | undefined;
}

export interface IdleCollection {
  stop(): void;
}

/**
 * Calls `collect` once `server` has had at least `burst` requests since the last call and then none for
 * `idleMs`, with none being answered. Looks every `idleMs / 5`, with a timer that keeps no process alive.
 */
export function collectWhenIdle(server: EventEmitter, collect: () => void, idleMs = IDLE_MS, burst = BURST_REQUESTS): IdleCollection {
  const activity = new RequestActivity(server);
  const timer = setInterval(
    () => {
      if (activity.sinceMark < burst || activity.quietFor() < idleMs) return;
      activity.mark();
      collect();
    },
    Math.max(1, idleMs / 5),
  ).unref();
  return {
    stop() {
      clearInterval(timer);
      activity.stop();
    },
  };
}
