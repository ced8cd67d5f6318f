// A cache that drops its least recently used entries once their sizes (bytes, or simply 1 an entry) pass
// a budget: decoded WAAP blocks in the readers, the last answers of task polls, compiled CDN rule patterns.

/** Least recently used entries go first once the budget (bytes, roughly) is spent. */
export class LruCache<V> {
  private readonly entries = new Map<string, { value: V; size: number }>();
  private used = 0;

  constructor(private readonly budget: number) {}

  /** What the entries kept take, in the budget's unit. */
  get spent(): number {
    return this.used;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, size: number): void {
    if (size > this.budget) return;
    const old = this.entries.get(key);
    if (old) this.used -= old.size;
    this.entries.delete(key);
    this.entries.set(key, { value, size });
    this.used += size;
    this.evict();
  }

  /** An entry takes more memory than when it was set (values decoded since); one no longer kept is let be. */
  grow(key: string, bytes: number): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.size += bytes;
    this.used += bytes;
    this.evict();
  }

  private evict(): void {
    for (const [oldest, entry] of this.entries) {
      if (this.used <= this.budget) break;
      this.entries.delete(oldest);
      this.used -= entry.size;
    }
  }
}
