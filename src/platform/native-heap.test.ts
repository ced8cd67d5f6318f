// Giving the C heap's free pages back: glibc's malloc_trim through koffi where there is one, nothing
// elsewhere; in a process started as the built command starts, the idle collection's full step returns
// what buffers freed into the C heap.
import { describe, expect, it, vi } from 'vitest';
import { runWithExposedGc } from '../../tests/support/expose-gc-script.js';
import { glibcNativeHeap } from './native-heap.js';

const glibc = glibcNativeHeap() !== undefined;

describe('the C heap', () => {
  it("calls malloc_trim(0) of the C library through the FFI library's binding", () => {
    const mallocTrim = vi.fn(() => 1);
    const func = vi.fn(() => mallocTrim);
    const load = vi.fn(() => ({ func }));
    const heap = glibcNativeHeap(() => ({ load }) as never);
    if (process.platform !== 'linux') return expect(heap).toBeUndefined();
    heap!.trim();
    expect(load).toHaveBeenCalledWith('libc.so.6');
    expect(func).toHaveBeenCalledWith('int malloc_trim(size_t pad)');
    expect(mallocTrim).toHaveBeenCalledWith(0);
  });

  it('is not there when the FFI library or the C library cannot be loaded', () => {
    expect(
      glibcNativeHeap(() => {
        throw new Error('no binary for this platform');
      }),
    ).toBeUndefined();
    expect(
      glibcNativeHeap(
        () =>
          ({
            load: () => ({
              func: () => {
                throw new Error('symbol not found');
              },
            }),
          }) as never,
      ),
    ).toBeUndefined();
  });

  // Buffers of 2 KiB are malloc'ed from the main heap; one in twenty kept, the rest collected: free
  // memory between live blocks, which malloc keeps and a plain collection cannot return.
  it.skipIf(!glibc)(
    "the idle collection's full step gives back what collected buffers left in the C heap",
    async () => {
      const script = `
      import fs from 'node:fs';
      import { exposedCollector } from './src/platform/idle-collection.ts';
      const rss = () => Number(/^VmRSS:\\s+(\\d+)/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
      const collector = exposedCollector();
      let all = [];
      for (let i = 0; i < 100000; i++) all.push(Buffer.alloc(2048, i % 251));
      const kept = all.filter((_, i) => i % 20 === 0);
      all = undefined;
      gc();
      await new Promise((resolve) => setTimeout(resolve, 200));
      gc();
      const plain = rss();
      collector.full();
      console.log(JSON.stringify({ plain, trimmed: rss(), kept: kept.length }));
    `;
      const out = await runWithExposedGc(script);
      const memory = JSON.parse(out) as { plain: number; trimmed: number; kept: number };
      expect(memory.kept).toBe(5_000);
      // 190 MiB of freed buffers: most of it goes back (koffi itself adds about 4 MiB once loaded).
      expect(memory.plain - memory.trimmed).toBeGreaterThan(100);
    },
    60_000,
  );
});
