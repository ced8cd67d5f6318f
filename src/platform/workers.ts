// Worker threads for work that must not hold up the event loop (long database reads). A pool starts its
// threads on first use, sends each call to the least busy thread, and lets an idle pool not keep the
// process alive. Products give the thread's code: an inline CommonJS source, or a module of their own
// (see moduleWorker).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/** What a thread runs: `eval` source (CommonJS) or a file, with its workerData. */
export interface WorkerSpec {
  source: string;
  eval: boolean;
  workerData: unknown;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface Reply {
  id: number;
  result?: unknown;
  error?: { message: string; code?: string };
}

/**
 * The protocol: the pool posts `{id, ...message}`; the thread answers `{id, result}` or
 * `{id, error: {message, code?}}` (see serveWorkerCalls).
 */
export class WorkerPool {
  private readonly workers: { worker: Worker; pending: Map<number, Pending> }[] = [];
  private next = 0;
  private ids = 0;
  private closed = false;

  constructor(
    private readonly spec: () => WorkerSpec,
    private readonly threads: number,
  ) {}

  // Threads start with the first call, not with the server: starting them costs CPU time that start-up
  // would otherwise share with them, for products many runs never query.
  private start(): void {
    const spec = this.spec();
    for (let i = 0; i < this.threads; i += 1) {
      const worker = new Worker(spec.source, { eval: spec.eval, workerData: spec.workerData });
      const pending = new Map<number, Pending>();
      worker.on('message', ({ id, result, error }: Reply) => {
        const waiting = pending.get(id);
        pending.delete(id);
        if (pending.size === 0) worker.unref();
        if (!waiting) return;
        if (error) waiting.reject(Object.assign(new Error(error.message), { code: error.code }));
        else waiting.resolve(result);
      });
      // A dead thread fails what it was doing; the next calls go to the others or surface the error.
      worker.on('error', (error) => {
        for (const waiting of pending.values()) waiting.reject(error);
        pending.clear();
        worker.unref();
      });
      // An idle thread must not keep the process alive; a busy one must, or a script awaiting its
      // answer would see the process exit under it.
      worker.unref();
      this.workers.push({ worker, pending });
    }
  }

  call<R>(message: Record<string, unknown>): Promise<R> {
    if (this.closed) return Promise.reject(new Error('the worker pool is closed'));
    if (this.workers.length === 0) this.start();
    // The least busy thread; ties go round-robin.
    let chosen = this.workers[this.next++ % this.workers.length];
    for (const candidate of this.workers) if (candidate.pending.size < chosen.pending.size) chosen = candidate;
    const id = ++this.ids;
    return new Promise<R>((resolve, reject) => {
      chosen.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      chosen.worker.ref();
      chosen.worker.postMessage({ ...message, id });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map(({ worker }) => worker.terminate()));
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

/** Serves a pool's calls in a thread: `handle` gets each message and its answer is posted back. */
export function serveWorkerCalls(port: import('node:worker_threads').MessagePort, handle: (message: Record<string, unknown>) => Promise<unknown> | unknown): void {
  // One call at a time: a call's reads run in one transaction on the thread's one connection.
  let queue: Promise<void> = Promise.resolve();
  port.on('message', (message: Record<string, unknown> & { id: number }) => {
    queue = queue.then(async () => {
      try {
        port.postMessage({ id: message.id, result: await handle(message) });
      } catch (error) {
        const e = error as Error & { code?: string };
        port.postMessage({ id: message.id, error: { message: e.message, code: e.code } });
      }
    });
  });
}
