// Background work run in passes (retention, compaction) that must never overlap itself.

/**
 * Runs `pass` on request. A request during a pass waits for it and then runs one more pass (what the
 * pass works on may have changed meanwhile, e.g. the clock moved), and resolves with the total of the
 * passes it waited for.
 */
export class RerunningPass {
  private running: Promise<number> | null = null;
  private again = false;

  constructor(private readonly pass: () => Promise<number>) {}

  run(): Promise<number> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      let total = 0;
      do {
        this.again = false;
        total += await this.pass();
      } while (this.again);
      return total;
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Resolves when no pass is in flight (so the database can be closed under none). */
  async settled(): Promise<void> {
    await this.running?.catch(() => 0);
  }
}
