// Removes events older than 30 days from storage. Queries already hide them (they never look past the
// retention window), so deletion can be lazy: block by block, yielding to the event loop in between so
// requests are never held up for long. A block wholly before the cutoff goes with its ids; the block
// holding the cutoff is rewritten without its expired events. Runs on a timer and at once whenever the
// clock is moved.
import type { Clock } from '../../platform/clock.js';
import { RerunningPass } from '../../platform/rerun.js';
import type { BlockHeader } from './block-format.js';
import type { EventStore } from './store.js';
import { RETENTION_MS } from './time.js';

const BLOCKS_PER_READ = 64;
const INTERVAL_MS = 60_000;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class RetentionJob {
  private readonly passes = new RerunningPass(() => this.pass());
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
    await this.passes.settled();
  }

  /** Runs a pass (or joins the one running, then runs again so a moved clock is honoured). */
  run(): Promise<number> {
    return this.passes.run();
  }

  private async pass(): Promise<number> {
    const cutoff = this.clock.now() - RETENTION_MS;
    let deleted = 0;
    for (;;) {
      const blocks = await this.store.expiredBlocks(cutoff, BLOCKS_PER_READ);
      if (blocks.length === 0) return deleted;
      for (const block of blocks) {
        deleted += await this.expire(block, cutoff);
        await yieldToLoop();
      }
    }
  }

  /** Removes a block's events older than the cutoff; returns how many went. */
  private async expire(block: BlockHeader, cutoff: number): Promise<number> {
    if (block.lastTime < cutoff) {
      const ids = (await this.store.blockIds(block)).map((id) => ({ clientId: block.clientId, id }));
      return (await this.store.replaceBlocks([block], [], ids)) ? block.n : 0;
    }
    const [rows] = await this.store.readRows([block]);
    const kept = rows.filter((r) => r.request_time >= cutoff);
    const dropped = rows.filter((r) => r.request_time < cutoff).map((r) => ({ clientId: block.clientId, id: r.id }));
    return (await this.store.replaceBlocks([block], kept, dropped)) ? dropped.length : 0;
  }
}
