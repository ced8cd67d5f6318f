// Long work on the main thread shares it: between slices of a loop the event loop gets a turn, so other
// clients' requests are answered while one client's large import, parse or aggregation runs. A chain of
// awaits on settled promises alone never leaves the microtask queue: only a macrotask (setImmediate)
// lets pending I/O in.

/** Resolves on the next turn of the event loop, after the I/O that is waiting. */
export function yieldToLoop(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** The longest a slice of work holds the main thread before it gives other requests a turn. */
export const SLICE_MS = 2;

/**
 * Times slices of a loop: `if (slicer.spent()) await slicer.nextSlice();` in the loop's body yields once the
 * current slice has run SLICE_MS. The check is synchronous and reads the clock only every `checkEvery`
 * calls, so a tight loop pays no promise per iteration (an await per record was a tenth of a zone import).
 */
export class TimeSlicer {
  private started = performance.now();
  private calls = 0;

  constructor(
    private readonly sliceMs = SLICE_MS,
    private readonly checkEvery = 64,
  ) {}

  /** Whether the current slice is spent (then the caller should yield). */
  spent(): boolean {
    this.calls += 1;
    if (this.calls % this.checkEvery !== 0) return false;
    return performance.now() - this.started > this.sliceMs;
  }

  /** Yields to the event loop, then starts a new slice. */
  async nextSlice(): Promise<void> {
    await yieldToLoop();
    this.started = performance.now();
  }
}
