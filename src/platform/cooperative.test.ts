// Time slicing of long loops on the main thread: a slice runs until it has held the thread SLICE_MS, then
// the loop yields and pending work (another client's request) runs before the next slice.
import { describe, expect, it } from 'vitest';
import { jsonListSlices, jsonListText, mapInSlices, piecesInSlices, TimeSlicer, yieldToLoop } from './cooperative.js';

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

describe('jsonListSlices', () => {
  const items = [{ a: 1, b: 'x"y' }, null, [1, 2], undefined, 'text', { nested: { deep: [true] } }, 3.5];

  it('makes the text of JSON.stringify, with or without slices', async () => {
    expect(await jsonListText(items)).toBe(JSON.stringify(items));
    expect(await jsonListText([])).toBe('[]');
    const everyItem = { spent: () => true, nextSlice: () => yieldToLoop() } as unknown as TimeSlicer;
    const slices: string[] = [];
    for await (const slice of jsonListSlices(items, '[', ']', everyItem)) slices.push(slice);
    expect(slices).toHaveLength(items.length);
    expect(slices.join('')).toBe(JSON.stringify(items));
  });

  it('wraps the items in what it is given (a page envelope)', async () => {
    const page = { count: 2, next: null, results: [{ id: 1 }, { id: 2 }] };
    expect(await jsonListText(page.results, JSON.stringify({ ...page, results: [] }).slice(0, -2), ']}')).toBe(JSON.stringify(page));
  });

  it('lets queued work run between slices', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('other request'));
    const everyItem = { spent: () => true, nextSlice: () => yieldToLoop() } as unknown as TimeSlicer;
    for await (const slice of jsonListSlices([1, 2, 3], '[', ']', everyItem)) order.push(slice);
    expect(order).toEqual(['[1', 'other request', ',2', ',3]']);
  });
});

describe('mapInSlices', () => {
  it('is items.map, with turns of the event loop between slices', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('other request'));
    const everyItem = { spent: () => true, nextSlice: () => yieldToLoop() } as unknown as TimeSlicer;
    const out = await mapInSlices([1, 2, 3], (n) => (order.push(`item ${n}`), n * 2), everyItem);
    expect(out).toEqual([2, 4, 6]);
    expect(order).toEqual(['item 1', 'other request', 'item 2', 'item 3']);
    expect(await mapInSlices([], (n: number) => n)).toEqual([]);
  });
});

describe('piecesInSlices', () => {
  it('hands the pieces on, with a turn of the event loop once a slice is spent', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('other request'));
    // Spent after every second piece.
    let calls = 0;
    const everySecond = { spent: () => ++calls % 2 === 0, nextSlice: () => yieldToLoop() } as unknown as TimeSlicer;
    for await (const piece of piecesInSlices(['a', 'b', 'c', 'd', 'e'], everySecond)) order.push(piece);
    expect(order).toEqual(['a', 'b', 'other request', 'c', 'd', 'e']);
  });
});
