// After a burst of requests the V8 heap stays at the size the burst left it: the old generation is only
// collected once it reaches 4x of what survived its last full collection (heap-growth.ts), which keeps
// full collections off a loaded server. After 100,000 mixed requests that is 250 MiB of resident memory
// for 40 MiB of live objects. Once the server has answered a burst and then had no request for a while,
// V8 is asked to give that memory back, while no client is waiting (bench/README.md):
// - a plain full collection frees the dead objects but moves live ones out of only the most fragmented
//   pages, and the few objects that outlive a burst (caches, pooled buffers) are scattered over pages V8
//   then keeps: 114 of 137 MiB kept for 42 MiB in use. Compacting every page (V8's own flag, set for this
//   one collection: under load it would lengthen every full collection's pause) lets them go;
// - V8 shrinks its young generation (32 MiB after a burst) at a full collection only when it saw little
//   allocation since the collection before. The burst's last young-generation collection may be seconds
//   old with megabytes allocated since, so a young collection comes first, at IDLE_MS, and the full one
//   at twice that, with nothing allocated in between.
// Together: 44 MiB of heap kept instead of 75-114, the RSS 160-164 MiB instead of 192-230.
// - what the collection frees outside V8's heap, and what SQLite and the stopped threads freed, malloc
//   keeps: the C heap's free pages are given back after the full collection (native-heap.ts);
// - caches kept only for speed (SQLite's page cache of the main connection: 12 MiB after
//   bench/memory's burst) are emptied just before the full collection, so that their memory is among
//   what goes back. The first reads after the pause fetch their pages from the file again.
// Once per burst: an idle server is not collected again and again. A burst is many requests, or a few
// after which the process holds much more memory than it did.
import v8 from 'node:v8';
import vm from 'node:vm';
import type { EventEmitter } from 'node:events';
import { RequestActivity } from './request-activity.js';
import { glibcNativeHeap, type NativeHeap } from './native-heap.js';
import { THREAD_IDLE_MS } from './workers.js';

/** How long the server must have had no request before the young collection; the full one waits twice that. */
export const IDLE_MS = 5_000;
/** The requests a burst must have had to be worth a collection (a few light ones allocate little). */
export const BURST_REQUESTS = 1_000;
/**
 * Or the growth of the resident memory that makes fewer requests a burst. A fresh server grows by about 10
 * MiB in its first calls (the catalogue's tables, code compiled); generating a million WAAP events grew
 * it by 380 MiB and left 200 of them a minute later, until a collection (docs/reliability.md).
 */
export const BURST_GROWTH_BYTES = 64 * 1024 * 1024;

/** V8's two collections, as the idle server asks for them. */
export interface Collector {
  /** Empties the young generation (a scavenge: a millisecond or two). */
  young(): void;
  /**
   * Empties the caches it was given, collects and compacts the whole heap (about 20 ms after a burst of
   * 100,000 requests), then gives the C heap's free pages back where it can.
   */
  full(): void;
  /**
   * Gives the C heap's free pages back again (a few to 40 ms): what the worker threads that stopped
   * after the burst left in their arenas, after the full collection.
   */
  trim(): void;
}

/** The `gc` function V8 puts on a context when --expose-gc is set. */
type ExposedGc = (options?: { type: 'minor' | 'major' }) => void;

/**
 * V8's collector when the process runs with --expose-gc (the launcher, dist/edgeplane.mjs, sets it before
 * it compiles the bundle, as the code cache needs), otherwise undefined. The flag puts `gc` on contexts
 * made after it is set, not on the one already running: a new context hands it over. `releaseCaches`
 * empties what is kept only for speed (Database.releaseMemory), before each full collection.
 */
export function exposedCollector(releaseCaches: () => void = () => {}, nativeHeap: () => NativeHeap | undefined = glibcNativeHeap): Collector | undefined {
  const gc = vm.runInNewContext('typeof gc === "function" ? gc : undefined') as ExposedGc | undefined;
  if (!gc) return undefined;
  // Looked up at the first full collection, when the server is idle: never on the start path.
  let heap: NativeHeap | undefined | null = null;
  const trim = () => {
    if (heap === null) heap = nativeHeap();
    heap?.trim();
  };
  return {
    young: () => gc({ type: 'minor' }),
    full: () => {
      try {
        releaseCaches();
      } catch {
        // A cache that cannot be emptied now stays (and is tried again after the next burst); the collection still runs.
      }
      v8.setFlagsFromString('--compact-on-every-full-gc');
      try {
        // Without options: in Node 20's V8, `gc({ type: 'major' })` returns without collecting.
        gc();
      } finally {
        v8.setFlagsFromString('--no-compact-on-every-full-gc');
      }
      trim();
    },
    trim,
  };
}

export interface IdleCollection {
  stop(): void;
}

export interface IdleCollectionOptions {
  /** How long without requests before the young collection; the full one waits twice that. */
  idleMs?: number;
  /** Requests that make a burst. */
  burstRequests?: number;
  /** Growth of the resident memory over the floor that makes a burst of any number of requests. */
  burstGrowthBytes?: number;
  /** Quiet time after a full collection before the late trim (the threads the burst used have stopped by then). */
  lateMs?: number;
  /** The process's resident memory, in bytes. */
  residentBytes?: () => number;
}

/**
 * Once `server` has had a burst since the last full collection and then no request for `idleMs`, with
 * none being answered: `collector.young()`; still none at `2 * idleMs`: `collector.full()`. A request in
 * between starts the wait again. After a full collection, the first time the server has had none for
 * `lateMs`: `collector.trim()`. A burst is `burstRequests` requests, or any request after which the
 * resident memory stands `burstGrowthBytes` over its floor (what it was at the start, then after each
 * full collection and trim): a few heavy requests (a generated million events, a 360 MB CSV export,
 * a large ingestion) leave as much behind as many light ones. Looks every `idleMs / 5`, with a timer
 * that keeps no process alive.
 */
export function collectWhenIdle(server: EventEmitter, collector: Collector, options: IdleCollectionOptions = {}): IdleCollection {
  const {
    idleMs = IDLE_MS,
    burstRequests = BURST_REQUESTS,
    burstGrowthBytes = BURST_GROWTH_BYTES,
    lateMs = THREAD_IDLE_MS + IDLE_MS,
    residentBytes = () => process.memoryUsage.rss(),
  } = options;
  const activity = new RequestActivity(server);
  let floor = residentBytes();
  // Whether the requests since the last full collection make a burst (once seen, until that collection).
  let burst = false;
  // Whether the young generation was emptied in the current quiet stretch.
  let youngCollected = false;
  // Whether a full collection has run and the trim after the threads' stop has not.
  let trimDue = false;
  const timer = setInterval(
    () => {
      if (trimDue && activity.quietFor() >= lateMs) {
        trimDue = false;
        collector.trim();
        floor = residentBytes();
      }
      burst ||= activity.sinceMark >= burstRequests || (activity.sinceMark > 0 && residentBytes() - floor >= burstGrowthBytes);
      if (!burst) return;
      const quiet = activity.quietFor();
      if (quiet < idleMs) {
        youngCollected = false;
      } else if (!youngCollected) {
        youngCollected = true;
        collector.young();
      } else if (quiet >= 2 * idleMs) {
        youngCollected = false;
        burst = false;
        activity.mark();
        collector.full();
        floor = residentBytes();
        trimDue = true;
      }
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
