// Gzip bodies inflated in their own thread: good bodies come back whole, a bomb is refused at the cap,
// broken gzip is refused, and the main thread keeps turning while a bomb is inflated.
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { turnsDuring } from '../../tests/support/event-loop.js';
import { InflateFailed, Inflater, InflateTimedOut, InflateTooLarge } from './inflate.js';

const inflaters: Inflater[] = [];
afterEach(async () => {
  await Promise.all(inflaters.splice(0).map((inflater) => inflater.close()));
});

function inflater(limit: number, timeoutMs?: number): Inflater {
  const made = new Inflater({ limit, timeoutMs });
  inflaters.push(made);
  return made;
}

describe('Inflater', () => {
  it('gives back the inflated bytes, up to and including the limit', async () => {
    const text = Buffer.from('{"domain_id":1}\n'.repeat(4096));
    const exact = inflater(text.length);
    expect((await exact.gunzip(gzipSync(text))).equals(text)).toBe(true);
    expect((await exact.gunzip(gzipSync(Buffer.alloc(0)))).length).toBe(0);
  });

  it('refuses a body that inflates past the limit, and the thread serves the next one', async () => {
    const small = inflater(1024 * 1024);
    await expect(small.gunzip(gzipSync(Buffer.alloc(1024 * 1024 + 1, 0x20)))).rejects.toBeInstanceOf(InflateTooLarge);
    expect((await small.gunzip(gzipSync(Buffer.from('after')))).toString()).toBe('after');
  });

  it('refuses bytes that are not gzip, and a gzip stream cut short', async () => {
    const one = inflater(1024);
    await expect(one.gunzip(Buffer.from('not gzip at all'))).rejects.toBeInstanceOf(InflateFailed);
    const whole = gzipSync(Buffer.from('x'.repeat(500)));
    await expect(one.gunzip(whole.subarray(0, whole.length - 6))).rejects.toBeInstanceOf(InflateFailed);
  });

  it('keeps the main thread turning while a bomb is inflated to its cap', async () => {
    const capped = inflater(64 * 1024 * 1024);
    const bomb = gzipSync(Buffer.alloc(96 * 1024 * 1024, 0x20), { level: 9 });
    await capped.gunzip(gzipSync(Buffer.from('warm'))); // the thread is started before the count
    const { result, turns } = await turnsDuring(() => capped.gunzip(bomb).catch((error: unknown) => error));
    expect(result).toBeInstanceOf(InflateTooLarge);
    expect(turns).toBeGreaterThan(3);
  });

  it('reports an inflation abandoned past its time as such, not as broken gzip', async () => {
    const hurried = inflater(256 * 1024 * 1024, 1);
    await expect(hurried.gunzip(gzipSync(Buffer.alloc(96 * 1024 * 1024, 0x20), { level: 9 }))).rejects.toBeInstanceOf(InflateTimedOut);
  });
});
