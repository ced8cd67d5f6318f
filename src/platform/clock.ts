// The one source of time in the server. Task progress, retention windows, default `end` parameters and
// token expiry all read it, so the control API can freeze, set and advance time for tests.

export interface ClockState {
  now: string;
  frozen: boolean;
  offsetMs: number;
}

/** A listener may return a promise: `settled()` waits for it, so "advance" can answer once due work is done. */
type Listener = (nowMs: number) => void | Promise<unknown>;

export class Clock {
  private offsetMs = 0;
  private frozenAt: number | null = null;
  private readonly listeners = new Set<Listener>();
  private pending: Promise<unknown>[] = [];

  constructor(private readonly realNow: () => number = Date.now) {}

  /** Current server time in epoch milliseconds. */
  now(): number {
    return this.frozenAt ?? this.realNow() + this.offsetMs;
  }

  date(): Date {
    return new Date(this.now());
  }

  freeze(): void {
    this.frozenAt = this.now();
    this.notify();
  }

  /** Lets time flow again from the current (possibly moved) instant. */
  resume(): void {
    if (this.frozenAt !== null) {
      this.offsetMs = this.frozenAt - this.realNow();
      this.frozenAt = null;
    }
    this.notify();
  }

  set(epochMs: number): void {
    if (this.frozenAt !== null) this.frozenAt = epochMs;
    else this.offsetMs = epochMs - this.realNow();
    this.notify();
  }

  advance(ms: number): void {
    this.set(this.now() + ms);
  }

  state(): ClockState {
    return {
      now: new Date(this.now()).toISOString(),
      frozen: this.frozenAt !== null,
      offsetMs: this.frozenAt === null ? this.offsetMs : this.frozenAt - this.realNow(),
    };
  }

  /** Called after every change of time, so time-driven work (tasks, retention) can catch up at once. */
  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves when the work started by the last change of time (listeners' promises) has finished. */
  async settled(): Promise<void> {
    await Promise.allSettled(this.pending);
  }

  private notify(): void {
    const now = this.now();
    const pending: Promise<unknown>[] = [];
    for (const listener of this.listeners) {
      const result = listener(now);
      if (result instanceof Promise) pending.push(result);
    }
    this.pending = pending;
  }
}
