// Merges the small blocks of an hour. Ingestion writes one block per client and hour of each batch, so a
// log fed in small pieces (a few events per request) leaves many small blocks per hour, and every query
// over that hour reads them all. Once an hour has MIN_BLOCKS blocks of fewer than SMALL_BLOCK events,
// they are rewritten as one (at most MAX_MERGE events a time, so one rewrite never holds the server
// long). A merged block takes the largest id of those it replaces and keeps their events' order.
import type { BlockHeader } from './format.js';
import type { BlockStore } from './store.js';
import { yieldToLoop } from '../../../platform/cooperative.js';

export const MIN_BLOCKS = 8;
export const SMALL_BLOCK = 4096;
const MAX_MERGE = 16_384;
const HOURS_PER_READ = 32;

/** Merges until no hour is fragmented, yielding to other requests between hours; returns how many blocks were merged away. */
export async function compactionPass(store: BlockStore): Promise<number> {
  let merged = 0;
  for (;;) {
    const hours = await store.fragmentedHours(MIN_BLOCKS, SMALL_BLOCK, HOURS_PER_READ);
    if (hours.length === 0) return merged;
    let progress = 0;
    for (const { clientId, hour } of hours) {
      progress += await mergeHour(
        store,
        (await store.hourBlocks(clientId, hour)).filter((b) => b.n < SMALL_BLOCK),
      );
      await yieldToLoop();
    }
    merged += progress;
    // Hours whose blocks changed under us are found again by the next pass.
    if (progress === 0) return merged;
  }
}

/** Merges the oldest of the small blocks (up to MAX_MERGE events); returns how many blocks went. */
async function mergeHour(store: BlockStore, small: readonly BlockHeader[]): Promise<number> {
  const taken: BlockHeader[] = [];
  let events = 0;
  for (const block of small) {
    if (taken.length >= 2 && events + block.n > MAX_MERGE) break;
    taken.push(block);
    events += block.n;
  }
  if (taken.length < 2) return 0;
  // Block by block in id order, each in its stored order: the encoder keeps that order for equal times.
  const read = await store.readRows(taken);
  if (!read) return 0;
  const rows = read.flat();
  return (await store.replaceBlocks(taken, rows, [])) ? taken.length - 1 : 0;
}
