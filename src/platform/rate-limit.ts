// Optional per-token rate limiting (off by default): a token bucket per API token. Over the limit, the
// answer is 429 in the product's envelope with Retry-After (seconds) and retry-after-ms, which the official
// clients honour before their next attempt. The operator token and public routes are never limited.
import type { FastifyInstance } from 'fastify';
import { AppError } from './errors.js';

export interface RateLimitOptions {
  /** Requests per second per token; 0 turns limiting off. */
  rate: number;
  /** Requests a token may send at once; 0 means one second of the rate. */
  burst: number;
  /** Monotonic milliseconds. Real time on purpose: limits protect the real server from real traffic, whatever the simulated clock says. */
  now?: () => number;
  /** Buckets kept at most (oldest dropped first), so many tokens cannot grow memory without bound. */
  maxBuckets?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<number, Bucket>();
  private readonly capacity: number;

  constructor(private readonly options: Required<RateLimitOptions>) {
    this.capacity = options.burst > 0 ? options.burst : Math.max(1, Math.ceil(options.rate));
  }

  /** 0 when the request may go ahead, otherwise the milliseconds until it may. */
  take(key: number): number {
    const now = this.options.now();
    let bucket = this.buckets.get(key);
    if (bucket) {
      this.buckets.delete(key);
      bucket.tokens = Math.min(this.capacity, bucket.tokens + ((now - bucket.at) / 1000) * this.options.rate);
      bucket.at = now;
    } else {
      bucket = { tokens: this.capacity, at: now };
      if (this.buckets.size >= this.options.maxBuckets) this.buckets.delete(this.buckets.keys().next().value as number);
    }
    // Re-inserted so the Map's order is least recently used first.
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - bucket.tokens) / this.options.rate) * 1000);
  }
}

/** Installs the limiter after authentication (it needs the principal); does nothing when the rate is 0. */
export function registerRateLimit(app: FastifyInstance, options: RateLimitOptions): void {
  if (!(options.rate > 0)) return;
  const buckets = new TokenBuckets({ maxBuckets: 100_000, ...options, now: options.now ?? (() => performance.now()) });
  app.addHook('onRequest', async (request) => {
    const principal = request.principal;
    if (!principal || principal.kind === 'operator' || request.internal) return;
    const waitMs = buckets.take(principal.tokenId);
    if (waitMs > 0) {
      throw new AppError('rate_limited', `Rate limit of ${options.rate} requests per second exceeded; retry in ${waitMs} ms.`, {
        headers: { 'retry-after': String(Math.ceil(waitMs / 1000)), 'retry-after-ms': String(waitMs) },
      });
    }
  });
}
