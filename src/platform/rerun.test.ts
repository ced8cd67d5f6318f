import { describe, expect, it } from 'vitest';
import { RerunningPass } from './rerun.js';

describe('RerunningPass', () => {
  it('never overlaps: calls during a pass join it and cause exactly one more pass', async () => {
    let active = 0;
    let most = 0;
    let passes = 0;
    const gates: (() => void)[] = [];
    const job = new RerunningPass(async () => {
      active += 1;
      most = Math.max(most, active);
      passes += 1;
      await new Promise<void>((resolve) => gates.push(resolve));
      active -= 1;
      return 10;
    });
    const first = job.run();
    const second = job.run();
    const third = job.run();
    expect(second).toBe(first);
    expect(third).toBe(first);
    gates.shift()!();
    await new Promise((r) => setImmediate(r));
    expect(passes).toBe(2);
    gates.shift()!();
    expect(await first).toBe(20);
    expect(most).toBe(1);
    const later = job.run();
    expect(later).not.toBe(first);
    gates.shift()!();
    expect(await later).toBe(10);
    await job.settled();
  });

  it('settles after a failing pass, and runs again on the next call', async () => {
    let calls = 0;
    const job = new RerunningPass(async () => {
      calls += 1;
      if (calls === 1) throw new Error('broken');
      return 1;
    });
    await expect(job.run()).rejects.toThrow('broken');
    await job.settled();
    expect(await job.run()).toBe(1);
  });
});
