// Merges the small blocks of an hour. Ingestion writes one block per client and hour of each batch, so a
// log fed in small pieces (a few events per request) leaves many small blocks per hour, and every query
// over that hour reads them all. Once an hour has MIN_BLOCKS blocks of fewer than SMALL_BLOCK events,
// they are rewritten as one (at most MAX_MERGE events a time, so one rewrite never holds the server
// long). A merged block takes the largest id of those it replaces and keeps their events' order.
import { RerunningPass } from '../../platform/rerun.js';
import type { BlockHeader } from './block-format.js';
import type { EventStore } from './store.js';

export const MIN_BLOCKS = 8;
export const SMALL_BLOCK = 4096;
const MAX_MERGE = 16_384;
const HOURS_PER_READ = 32;
const INTERVAL_MS = 60_000;
/** A pass after ingestion waits this long, so a burst of ingestion calls is followed by one pass. */
const AFTER_INGESTION_MS = 1000;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class CompactionJob {
  private readonly passes = new RerunningPass(() => this.pass());
  private timer: NodeJS.Timeout | null = null;
  private soon: NodeJS.Timeout | null = null;

  constructor(private readonly store: EventStore) {}

  start(): void {
    this.timer = setInterval(() => void this.run().catch(() => {}), INTERVAL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.soon) clearTimeout(this.soon);
    this.timer = null;
    this.soon = null;
    await this.passes.settled();
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

  /** Runs passes until no hour is fragmented; returns how many blocks were merged away. */
  run(): Promise<number> {
    return this.passes.run();
  }

  private async pass(): Promise<number> {
    let merged = 0;
    for (;;) {
      const hours = await this.store.fragmentedHours(MIN_BLOCKS, SMALL_BLOCK, HOURS_PER_READ);
      if (hours.length === 0) return merged;
      let progress = 0;
      for (const { clientId, hour } of hours) {
        progress += await this.mergeHour((await this.store.hourBlocks(clientId, hour)).filter((b) => b.n < SMALL_BLOCK));
        await yieldToLoop();
      }
      merged += progress;
      // Hours whose blocks changed under us are found again by the next pass.
      if (progress === 0) return merged;
    }
  }

  /** Merges the oldest of the small blocks (up to MAX_MERGE events); returns how many blocks went. */
  private async mergeHour(small: readonly BlockHeader[]): Promise<number> {
    const taken: BlockHeader[] = [];
    let events = 0;
    for (const block of small) {
      if (taken.length >= 2 && events + block.n > MAX_MERGE) break;
      taken.push(block);
      events += block.n;
    }
    if (taken.length < 2) return 0;
    // Block by block in id order, each in its stored order: the encoder keeps that order for equal times.
    const rows = (await this.store.readRows(taken)).flat();
    return (await this.store.replaceBlocks(taken, rows, [])) ? taken.length - 1 : 0;
  }
}
