// Long work on the main thread shares it: between slices of a loop the event loop gets a turn, so other
// clients' requests are answered while one client's large import, parse or aggregation runs. A chain of
// awaits on settled promises alone never leaves the microtask queue: only a macrotask (setImmediate)
// lets pending I/O in.

/** Resolves on the next turn of the event loop, after the I/O that is waiting. */
export function yieldToLoop(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * The longest a slice of work holds the main thread before it gives other requests a turn. Another
 * client's request waits up to a slice, so the slice is about what a quick request costs: with 2 ms, the
 * noisy-neighbour benchmark's victim p99 was 2.6-7.8 times its quiet p99 under sliced noise (a CDN list,
 * the WAAP traffic series, a zone-file import, the CSV export); with 0.5 ms, 1.1-5.3 times, the noise's
 * own throughput unchanged (bench/README.md, 2026-11-29).
 */
export const SLICE_MS = 0.5;

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

/**
 * The JSON text of a list (`open`, the items, `close`), made a slice at a time with a turn of the event
 * loop between two slices: `JSON.stringify` of a long list holds the main thread for the whole list (a
 * CDN rule-template list of 500 is 600 KB). Yields the text of each slice; joined, they are exactly
 * `JSON.stringify(items)` when `open` and `close` are the brackets.
 */
export async function* jsonListSlices(items: readonly unknown[], open = '[', close = ']', slicer = new TimeSlicer(SLICE_MS, 16)): AsyncGenerator<string> {
  let text = open;
  for (let i = 0; i < items.length; i += 1) {
    // As in an array: a value JSON cannot hold (undefined, a function) is written null.
    text += `${i > 0 ? ',' : ''}${JSON.stringify(items[i]) ?? 'null'}`;
    if (i < items.length - 1 && slicer.spent()) {
      yield text;
      text = '';
      await slicer.nextSlice();
    }
  }
  yield text + close;
}

/**
 * The pieces a synchronous generator makes, handed on as they come, with a turn of the event loop
 * whenever a time slice is spent (each piece should be much less work than a slice).
 */
export async function* piecesInSlices<T>(pieces: Iterable<T>, slicer = new TimeSlicer(SLICE_MS, 1)): AsyncGenerator<T> {
  for (const piece of pieces) {
    yield piece;
    if (slicer.spent()) await slicer.nextSlice();
  }
}

/** All of a list's JSON text, made in slices (see jsonListSlices). */
export async function jsonListText(items: readonly unknown[], open?: string, close?: string): Promise<string> {
  let text = '';
  for await (const slice of jsonListSlices(items, open, close)) text += slice;
  return text;
}

/** `items.map(make)`, a slice at a time: presenting a long list (CDN options are 70 keys an item) holds the thread too. */
export async function mapInSlices<T, R>(items: readonly T[], make: (item: T) => R, slicer = new TimeSlicer(SLICE_MS, 16)): Promise<R[]> {
  const out: R[] = [];
  for (const item of items) {
    out.push(make(item));
    if (slicer.spent()) await slicer.nextSlice();
  }
  return out;
}
