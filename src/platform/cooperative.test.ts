// Time slicing of long loops on the main thread: a slice runs until it has held the thread SLICE_MS, then
// the loop yields and pending work (another client's request) runs before the next slice.
import { describe, expect, it } from 'vitest';
import { TimeSlicer, yieldToLoop } from './cooperative.js';

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('TimeSlicer', () => {
  it('does not yield inside a slice, and yields once the slice is spent', () => {
    const slicer = new TimeSlicer(50, 1);
    expect(slicer.spent()).toBe(false);
    busy(60);
    expect(slicer.spent()).toBe(true);
  });

  it('lets work queued behind a long loop run between its slices', async () => {
    const slicer = new TimeSlicer(2, 1);
    const order: string[] = [];
    setImmediate(() => order.push('other request'));
    for (let i = 0; i < 5; i += 1) {
      busy(1);
      order.push(`slice ${i}`);
      if (slicer.spent()) await slicer.nextSlice();
    }
    expect(order.indexOf('other request')).toBeGreaterThan(0);
    expect(order.indexOf('other request')).toBeLessThan(order.length - 1);
  });

  it('reads the clock only every checkEvery calls', () => {
    const slicer = new TimeSlicer(0, 4);
    busy(1);
    expect([slicer.spent(), slicer.spent(), slicer.spent(), slicer.spent()]).toEqual([false, false, false, true]);
  });

  it('yieldToLoop runs after I/O callbacks already queued', async () => {
    let ran = false;
    setImmediate(() => (ran = true));
    await yieldToLoop();
    expect(ran).toBe(true);
  });
});
