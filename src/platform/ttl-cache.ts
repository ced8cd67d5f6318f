// A small bounded cache whose entries live for a fixed real-time span. Used on per-request hot paths
// (token verification, account overview) where a fresh database read per request would dominate the
// cost; each node invalidates its own entries on writes, and the TTL bounds staleness across nodes.
import { performance } from 'node:perf_hooks';

export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until < performance.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V): void {
    // Simple bound: when full, start over rather than track recency (hits are cheap to rebuild).
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, until: performance.now() + this.ttlMs });
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  deleteWhere(predicate: (value: V, key: K) => boolean): void {
    for (const [key, entry] of this.entries) if (predicate(entry.value, key)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
