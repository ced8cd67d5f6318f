// How far V8 lets a heap grow past what survived its last full collection before it marks it again.
// Every Buffer a request brings or takes (a 1 MB body, a 12 MB traffic series made in a thread) counts
// towards that headroom while it lives. V8 picks the factor itself (4 at start, about 1.7 under load
// here), so one client sending large bodies or reading large answers made it mark the main thread's
// 31 MB heap every 150-700 ms, each marking costing the event loop 5-30 ms in steps and pauses that every
// other client's requests waited behind (measured with --trace-gc under bench/noisy). Held at 4 (300%),
// the same noise gave two full collections in a run instead of dozens, for about 45 MiB more resident
// memory after a load and about 100 MiB more under a held one (bench/README.md).
//
// Set by the launcher (dist/edgeplane.mjs) before it compiles the bundle, as the build did when it made
// the code cache: V8 keeps compiled code only under the flags it was made with. So another value than the
// default starts without the cache (slower to start and to answer), and any value costs about 15 ms of
// start-up, Node's own modules loaded after the flag being compiled from source for the same reason.
export const HEAP_GROWTH_ENV = 'EDGEPLANE_HEAP_GROWTH';
export const DEFAULT_HEAP_GROWTH_PERCENT = 300;
/** V8's own bound on its growing factor is 4x; past 900% the heap could grow tenfold between collections. */
export const MAX_HEAP_GROWTH_PERCENT = 900;

/**
 * The percent the heap may grow by between full collections, from the environment; 0 leaves V8's own
 * heuristic. Throws with the variable's name when the value is not a whole number within bounds.
 */
export function heapGrowthPercent(env: NodeJS.ProcessEnv): number {
  const text = env[HEAP_GROWTH_ENV];
  if (text === undefined || text === '') return DEFAULT_HEAP_GROWTH_PERCENT;
  const digits = text.trim();
  const value = /^\d+$/.test(digits) ? Number(digits) : NaN;
  if (!(value <= MAX_HEAP_GROWTH_PERCENT))
    throw new Error(`${HEAP_GROWTH_ENV} must be a whole number from 0 to ${MAX_HEAP_GROWTH_PERCENT} (percent); got "${text}"`);
  return value;
}

/** The V8 flag that sets it, or undefined for V8's own heuristic. */
export function heapGrowthFlag(percent: number): string | undefined {
  return percent > 0 ? `--heap-growing-percent=${percent}` : undefined;
}
