// Each client's share of the pooled connections: at most `most` pieces of work of one client at once, the
// rest in its queue in order; other clients are not counted against it.
import { describe, expect, it } from 'vitest';
import { ClientShares } from './client-shares.js';

/** Work that runs until `finish` is called, recording when it started. */
function held(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    work: async () => {
      log.push(name);
      await done;
      return name;
    },
    finish: () => finish(),
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('ClientShares', () => {
  it('runs at most `most` pieces of one client at once, the next in order as each ends', async () => {
    const shares = new ClientShares(2);
    const log: string[] = [];
    const pieces = ['a', 'b', 'c', 'd'].map((name) => held(log, name));
    const results = pieces.map((piece) => shares.run(1, piece.work));
    await turn();
    expect(log).toEqual(['a', 'b']);
    expect(shares.load(1)).toEqual({ running: 2, waiting: 2 });
    pieces[1].finish();
    await turn();
    expect(log).toEqual(['a', 'b', 'c']);
    pieces[0].finish();
    pieces[2].finish();
    pieces[3].finish();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
    expect(shares.load(1)).toEqual({ running: 0, waiting: 0 });
  });

  it("does not make a client wait for another's share", async () => {
    const shares = new ClientShares(1);
    const log: string[] = [];
    const first = held(log, 'first of 1');
    const queued = held(log, 'second of 1');
    const other = held(log, 'first of 2');
    void shares.run(1, first.work);
    const waiting = shares.run(1, queued.work);
    const running = shares.run(2, other.work);
    await turn();
    expect(log).toEqual(['first of 1', 'first of 2']);
    other.finish();
    expect(await running).toBe('first of 2');
    first.finish();
    queued.finish();
    expect(await waiting).toBe('second of 1');
  });

  it('gives the share back when the work fails', async () => {
    const shares = new ClientShares(1);
    await expect(shares.run(7, () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(shares.load(7)).toEqual({ running: 0, waiting: 0 });
    expect(await shares.run(7, async () => 'next')).toBe('next');
  });

  it('leaves one connection of a pool to the other clients, and one client at least one', async () => {
    for (const [size, most] of [
      [5, 4],
      [1, 1],
    ]) {
      const shares = ClientShares.ofPool(size);
      const log: string[] = [];
      const pieces = Array.from({ length: 6 }, (_, i) => held(log, String(i)));
      const results = pieces.map((piece) => shares.run(1, piece.work));
      await turn();
      expect(log).toHaveLength(most);
      for (const piece of pieces) piece.finish();
      await Promise.all(results);
    }
  });
});
