// Worker threads for work that must not hold up the event loop (long database reads). A pool starts its
// threads on first use, sends each call to the least busy thread, lets an idle pool not keep the process
// alive, and stops its threads once they have had no call for a while (THREAD_IDLE_MS). Products give
// the thread's code: an inline CommonJS source, or a module of their own (see moduleWorker).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/** What a thread runs: `eval` source (CommonJS) or a file, with its workerData. */
export interface WorkerSpec {
  source: string;
  eval: boolean;
  workerData: unknown;
}

interface Pending {
  message: Record<string, unknown>;
  /** Memory moved to the thread with the message (see CallOptions.transfer). */
  transfer?: ArrayBuffer[];
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer?: NodeJS.Timeout;
}

interface Reply {
  id: number;
  result?: unknown;
  error?: { message: string; code?: string };
}

/** A thread with the calls sent to it and not answered yet (it answers them one at a time, in order). */
interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
  /** Stopped because the pool was idle: a thread of a slot no longer in the pool is never replaced. */
  retired?: boolean;
}

/**
 * How long a pool's threads may go without a call before they are stopped; the next call starts them
 * again. A thread that has worked keeps 15-20 MiB of resident memory for its V8 instance, and more for
 * what it holds (the WAAP query threads' block caches, up to 64 MiB each), long after the burst that
 * needed it: measured in bench/README.md. Starting one again costs its first call a few tens of ms.
 */
export const THREAD_IDLE_MS = 30_000;

/** A call a thread did not answer in its time: the thread was stopped and replaced. */
export class WorkerTimeout extends Error {
  readonly code = 'worker_timeout';
}

export interface CallOptions {
  /** Past this, the call fails with WorkerTimeout and its thread is replaced (the calls queued behind it go to the new one). */
  timeoutMs?: number;
  /**
   * Memory of the message moved to the thread instead of copied (it is detached here). Such a call cannot
   * be sent again to a replacement thread: if the thread is replaced before answering, the call fails.
   */
  transfer?: ArrayBuffer[];
}

/**
 * The protocol: the pool posts `{id, ...message}`; the thread answers `{id, result}` or
 * `{id, error: {message, code?}}` (see serveWorkerCalls).
 */
export class WorkerPool {
  private readonly slots: Slot[] = [];
  private next = 0;
  private ids = 0;
  private closed = false;
  private spec: WorkerSpec | undefined;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly makeSpec: () => WorkerSpec,
    private readonly threads: number,
    private readonly idleMs = THREAD_IDLE_MS,
  ) {}

  // Threads start with the first call, not with the server: starting them costs CPU time that start-up
  // would otherwise share with them, for products many runs never query.
  private start(): void {
    this.spec = this.makeSpec();
    for (let i = 0; i < this.threads; i += 1) {
      const slot: Slot = { worker: undefined as unknown as Worker, pending: new Map() };
      this.spawn(slot);
      this.slots.push(slot);
    }
  }

  private spawn(slot: Slot): void {
    const spec = this.spec!;
    const worker = new Worker(spec.source, { eval: spec.eval, workerData: spec.workerData });
    slot.worker = worker;
    let answered = false;
    worker.on('message', ({ id, result, error }: Reply) => {
      if (slot.worker !== worker) return; // a replaced thread's late answer
      answered = true;
      const waiting = slot.pending.get(id);
      slot.pending.delete(id);
      if (slot.pending.size === 0) {
        worker.unref();
        this.retireWhenIdle();
      }
      if (!waiting) return;
      clearTimeout(waiting.timer);
      if (error) waiting.reject(Object.assign(new Error(error.message), { code: error.code }));
      else waiting.resolve(result);
    });
    // A dead thread (an uncaught error, or out of memory) fails what it was doing and is replaced at
    // once: left in its slot, every later call sent to it waited for its time limit, or for ever. Only a
    // thread that had worked is replaced: one that fails before its first answer (code that cannot load)
    // would fail again, in a loop.
    worker.on('error', (error) => {
      if (slot.worker !== worker || slot.retired) return;
      for (const waiting of slot.pending.values()) {
        clearTimeout(waiting.timer);
        waiting.reject(error);
      }
      slot.pending.clear();
      worker.unref();
      if (answered && !this.closed) this.spawn(slot);
      this.retireWhenIdle();
    });
    // An idle thread must not keep the process alive; a busy one must, or a script awaiting its
    // answer would see the process exit under it.
    worker.unref();
  }

  /** A call past its time: fail it, stop its thread (it is still inside the call) and start another for the calls queued behind. */
  private expire(slot: Slot, id: number, timeoutMs: number): void {
    const late = slot.pending.get(id);
    if (!late) return;
    slot.pending.delete(id);
    late.reject(new WorkerTimeout(`no answer within ${timeoutMs} ms; the thread was replaced`));
    const queued = [...slot.pending.entries()];
    slot.pending.clear();
    void slot.worker.terminate();
    if (this.closed) return;
    this.spawn(slot);
    for (const [queuedId, call] of queued) {
      if (call.transfer?.length) {
        clearTimeout(call.timer);
        call.reject(new WorkerTimeout(`a call queued behind one that took over ${timeoutMs} ms had moved its data to the replaced thread`));
      } else this.post(slot, queuedId, call);
    }
    this.retireWhenIdle();
  }

  private busy(): boolean {
    return this.slots.some((slot) => slot.pending.size > 0);
  }

  /** From now, stops the threads after idleMs unless a call comes first (checked again then). */
  private retireWhenIdle(): void {
    if (this.busy()) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.retire(), this.idleMs);
    this.idleTimer.unref();
  }

  private retire(): void {
    if (this.closed || this.busy()) return;
    for (const slot of this.slots.splice(0)) {
      slot.retired = true;
      void slot.worker.terminate();
    }
  }

  private post(slot: Slot, id: number, call: Pending): void {
    slot.pending.set(id, call);
    slot.worker.ref();
    slot.worker.postMessage({ ...call.message, id }, call.transfer);
  }

  call<R>(message: Record<string, unknown>, options: CallOptions = {}): Promise<R> {
    if (this.closed) return Promise.reject(new Error('the worker pool is closed'));
    clearTimeout(this.idleTimer);
    if (this.slots.length === 0) this.start();
    // The least busy thread; ties go round-robin.
    let chosen = this.slots[this.next++ % this.slots.length];
    for (const candidate of this.slots) if (candidate.pending.size < chosen.pending.size) chosen = candidate;
    const slot = chosen;
    const id = ++this.ids;
    return new Promise<R>((resolve, reject) => {
      const call: Pending = { message, transfer: options.transfer, resolve: resolve as (value: unknown) => void, reject };
      if (options.timeoutMs !== undefined) {
        // Counted from when the call is sent; a call queued behind a slow one shares its wait.
        call.timer = setTimeout(() => this.expire(slot, id, options.timeoutMs!), options.timeoutMs);
        call.timer.unref();
      }
      this.post(slot, id, call);
    });
  }

  /** Stops the threads; calls not answered yet fail (a stopped thread never answers them). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    for (const slot of this.slots) {
      for (const call of slot.pending.values()) {
        clearTimeout(call.timer);
        call.reject(new Error('the worker pool is closed'));
      }
      slot.pending.clear();
    }
    await Promise.all(this.slots.map(({ worker }) => worker.terminate()));
  }
}

/**
 * A thread that runs a TypeScript module of the project: `source` (relative to the caller, whose
 * import.meta.url is `callerUrl`) when running from the sources (tsx, Vitest), loaded through tsx's
 * require hook; from the build, the same module bundled as `bundled` beside the server's bundle (see
 * scripts/build.ts), where import.meta.url is the bundle's own URL.
 */
export function moduleWorker(callerUrl: string, source: string, bundled: string, workerData: unknown): WorkerSpec {
  if (new URL(callerUrl).pathname.endsWith('.ts')) {
    const bootstrap = `
const { workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
createRequire(workerData.base)('tsx/cjs/api').register();
require(workerData.module);
`;
    const base = createRequire(import.meta.url).resolve('tsx/package.json');
    return { source: bootstrap, eval: true, workerData: { ...(workerData as object), base, module: fileURLToPath(new URL(source, callerUrl)) } };
  }
  return { source: fileURLToPath(new URL(`./${bundled}`, callerUrl)), eval: false, workerData };
}

/**
 * What of a call's answer moves to the caller instead of being copied: the memory of a byte array that
 * owns all of it (a slice of a larger buffer, such as Buffer's pool, is copied: moving it would take the
 * rest away from its other users).
 */
function transferable(result: unknown): ArrayBuffer[] {
  if (!(result instanceof Uint8Array) || !(result.buffer instanceof ArrayBuffer)) return [];
  return result.byteOffset === 0 && result.byteLength === result.buffer.byteLength ? [result.buffer] : [];
}

/** Serves a pool's calls in a thread: `handle` gets each message and its answer is posted back. */
export function serveWorkerCalls(
  port: import('node:worker_threads').MessagePort,
  handle: (message: Record<string, unknown>) => Promise<unknown> | unknown,
): void {
  // One call at a time: a call's reads run in one transaction on the thread's one connection.
  let queue: Promise<void> = Promise.resolve();
  port.on('message', (message: Record<string, unknown> & { id: number }) => {
    queue = queue.then(async () => {
      try {
        const result = await handle(message);
        port.postMessage({ id: message.id, result }, transferable(result));
      } catch (error) {
        const e = error as Error & { code?: string };
        port.postMessage({ id: message.id, error: { message: e.message, code: e.code } });
      }
    });
  });
}

/** Nice value of a thread doing long work for one client: when the CPU is short, the main thread's short requests come first. */
const THREAD_NICE = 10;

/**
 * Lowers the calling thread's CPU priority (Linux: a thread is a task of its own, and setpriority with
 * its id applies to it alone). A query over millions of events keeps a core busy for seconds; on a machine
 * with few cores it competed on equal terms with the main thread, and every other client's request waited
 * behind it. Elsewhere (no /proc/thread-self) the thread keeps the process's priority.
 */
export function lowerThreadPriority(): void {
  try {
    const tid = Number(path.basename(fs.readlinkSync('/proc/thread-self')));
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, Math.max(os.getPriority(tid), THREAD_NICE));
  } catch {
    // Not Linux, or not allowed: run at the process's priority.
  }
}
