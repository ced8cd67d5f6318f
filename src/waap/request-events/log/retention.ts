// Removes events older than a cutoff from storage. Queries never look past the retention window, so
// deletion can be lazy: block by block, yielding to the event loop in between so requests are never
// held up for long. A block wholly before the cutoff goes with its ids; the block holding the cutoff is
// rewritten without its expired events.
import type { BlockHeader } from './format.js';
import type { BlockStore } from './store.js';
import { yieldToLoop } from '../../../platform/cooperative.js';

const BLOCKS_PER_READ = 64;

/** Removes every event older than `cutoff` (of any client); returns how many went. */
export async function retentionPass(store: BlockStore, cutoff: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const blocks = await store.expiredBlocks(cutoff, BLOCKS_PER_READ);
    if (blocks.length === 0) return deleted;
    for (const block of blocks) {
      deleted += await expireBlock(store, block, cutoff);
      await yieldToLoop();
    }
  }
}

/** Removes a block's events older than the cutoff; returns how many went. */
async function expireBlock(store: BlockStore, block: BlockHeader, cutoff: number): Promise<number> {
  if (block.lastTime < cutoff) {
    const ids = (await store.blockIds(block)).map((id) => ({ clientId: block.clientId, id }));
    return (await store.replaceBlocks([block], [], ids)) ? block.n : 0;
  }
  const read = await store.readRows([block]);
  // Changed under us (another node): the next pass finds what is still expired.
  if (!read) return 0;
  const [rows] = read;
  const kept = rows.filter((r) => r.request_time >= cutoff);
  const dropped = rows.filter((r) => r.request_time < cutoff).map((r) => ({ clientId: block.clientId, id: r.id }));
  return (await store.replaceBlocks([block], kept, dropped)) ? dropped.length : 0;
}
