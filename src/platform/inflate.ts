// Gzip bodies inflated in a thread of their own, with an output cap. Inflating on the main thread's side
// (zlib's async API hands every output piece back to it) let one gzip bomb stall everyone: 256 MiB of
// pieces allocated and collected there on the way to the cap (victim p99 x17.9 in bench/noisy). In a
// thread, a bomb costs the main thread nothing but the refusal, and a good body comes back as one
// buffer moved, not copied.
import { WorkerPool, WorkerTimeout } from './workers.js';

/**
 * The thread: `{id, body, limit}` in; `{id, result}` (the inflated bytes, moved) or `{id, error}` out.
 * Two passes: the first counts the inflated bytes and keeps none of them, so a bomb is refused holding a
 * piece at a time instead of the limit's worth (256 MiB of pieces left the thread's memory at 540 MiB
 * after a minute of bombs); the second inflates a body known to fit into one buffer of its exact size.
 */
const INFLATE_THREAD = `
const { parentPort } = require('node:worker_threads');
const { createGunzip } = require('node:zlib');
const PIECE = 256 * 1024;
function pass(body, limit, into) {
  return new Promise((resolve, reject) => {
    const gunzip = createGunzip({ chunkSize: PIECE });
    let size = 0;
    gunzip.on('data', (piece) => {
      if (size + piece.length > limit) {
        gunzip.destroy();
        reject(Object.assign(new Error('inflates past ' + limit + ' bytes'), { code: 'ERR_BUFFER_TOO_LARGE' }));
        return;
      }
      if (into) piece.copy(into, size);
      size += piece.length;
    });
    gunzip.on('end', () => resolve(size));
    gunzip.on('error', reject);
    gunzip.end(body);
  });
}
parentPort.on('message', async ({ id, body, limit }) => {
  try {
    const size = await pass(body, limit, null);
    const out = Buffer.allocUnsafeSlow(size); // its own ArrayBuffer, so it can be moved
    await pass(body, limit, out);
    parentPort.postMessage({ id, result: out }, [out.buffer]);
  } catch (error) {
    parentPort.postMessage({ id, error: { message: error.message, code: error.code } });
  }
});
`;

export class InflateTooLarge extends Error {
  readonly code = 'inflate_too_large';
}

export class InflateFailed extends Error {
  readonly code = 'inflate_failed';
}

/** The inflation ran past its time and was abandoned (its thread replaced): the body may be fine. */
export class InflateTimedOut extends Error {
  readonly code = 'inflate_timed_out';
}

export interface InflaterOptions {
  /** Largest inflated size accepted, in bytes. */
  limit: number;
  /** Past this, the inflation is abandoned and its thread replaced. */
  timeoutMs?: number;
}

/** One thread, started on first use; `close` it with the server. */
export class Inflater {
  private readonly pool = new WorkerPool(() => ({ source: INFLATE_THREAD, eval: true, workerData: null }), 1);

  constructor(private readonly options: InflaterOptions) {}

  async gunzip(body: Buffer): Promise<Buffer> {
    let out: Uint8Array;
    try {
      out = await this.pool.call<Uint8Array>({ body, limit: this.options.limit }, { timeoutMs: this.options.timeoutMs ?? 60_000 });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new InflateTooLarge(`inflates to more than ${this.options.limit} bytes`);
      if (error instanceof WorkerTimeout) throw new InflateTimedOut((error as Error).message);
      throw new InflateFailed((error as Error).message);
    }
    return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
