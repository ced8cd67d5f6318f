// Removes events older than 30 days from storage. Queries already hide them (they never look past the
// retention window), so deletion can be lazy: in chunks, yielding to the event loop between chunks so
// requests are never held up for long. Runs on a timer and at once whenever the clock is moved.
import type { Clock } from '../../platform/clock.js';
import type { EventStore } from './store.js';
import { RETENTION_MS } from './time.js';

const CHUNK = 5000;
const INTERVAL_MS = 60_000;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class RetentionJob {
  private running: Promise<number> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
  ) {}

  start(): void {
    // Returned to the clock, so a clock move answers only once expired events are gone from storage too.
    this.unsubscribe = this.clock.onChange(() => this.run().catch(() => 0));
    this.timer = setInterval(() => void this.run().catch(() => {}), INTERVAL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => 0);
  }

  /** Runs a pass (or joins the one running, then runs again so a moved clock is honoured). */
  run(): Promise<number> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      let deleted = 0;
      try {
        do {
          this.again = false;
          deleted += await this.pass();
        } while (this.again);
      } finally {
        this.running = null;
      }
      return deleted;
    })();
    return this.running;
  }

  private async pass(): Promise<number> {
    const cutoff = this.clock.now() - RETENTION_MS;
    let deleted = 0;
    for (const clientId of await this.store.clientsWithEvents()) {
      for (;;) {
        const n = await this.store.deleteExpired(clientId, cutoff, CHUNK);
        deleted += n;
        await yieldToLoop();
        if (n < CHUNK) break;
      }
      await this.store.deleteExpiredCounters(clientId, cutoff);
      await yieldToLoop();
    }
    return deleted;
  }
}
