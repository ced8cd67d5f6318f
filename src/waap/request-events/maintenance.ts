// When the request log is maintained. Retention: events older than 30 days (server clock) are removed
// every minute and at once whenever the clock is moved. Compaction: hours left with many small blocks are
// merged every minute and a second after ingestion. The work itself is the log's (log/index.ts).
import type { Clock } from '../../platform/clock.js';
import type { EventLog } from './log/index.js';
import { RETENTION_MS } from './time.js';

const INTERVAL_MS = 60_000;
/** A pass after ingestion waits this long, so a burst of ingestion calls is followed by one pass. */
const AFTER_INGESTION_MS = 1000;

export class RetentionJob {
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly log: Pick<EventLog, 'expire'>,
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
    this.timer = null;
    await this.running;
  }

  /** Removes what is older than 30 days now (joining a pass under way, then running again); returns how many events went. */
  run(): Promise<number> {
    const pass = this.log.expire(this.clock.now() - RETENTION_MS);
    this.running = pass.catch(() => 0);
    return pass;
  }
}

export class CompactionJob {
  private timer: NodeJS.Timeout | null = null;
  private soon: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();

  constructor(private readonly log: Pick<EventLog, 'compact'>) {}

  start(): void {
    this.timer = setInterval(() => void this.run().catch(() => {}), INTERVAL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.soon) clearTimeout(this.soon);
    this.timer = null;
    this.soon = null;
    await this.running;
  }

  /** Asks for a pass soon (after ingestion), without waiting for it; one pass follows a burst of asks. */
  schedule(): void {
    if (!this.timer || this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = null;
      void this.run().catch(() => {});
    }, AFTER_INGESTION_MS);
    this.soon.unref();
  }

  /** Merges until no hour is fragmented; returns how many blocks were merged away. */
  run(): Promise<number> {
    const pass = this.log.compact();
    this.running = pass.catch(() => 0);
    return pass;
  }
}
