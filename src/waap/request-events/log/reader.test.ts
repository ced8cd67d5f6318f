// The reader's cache of decoded parts keeps to its budget counting what decoding adds: a part whose
// entries are all decoded (an export reads every value) holds several times its stored bytes.
import { describe, expect, it } from 'vitest';
import { EventBatch } from './batch.js';
import { encodeBlocks } from './encode.js';
import type { EventRow } from './format.js';
import { FIELD_PLACE, type BlockHeader } from './format.js';
import { BlockCache } from './reader.js';
import type { TextColumn } from './decode.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');

function rows(n: number): EventRow[] {
  return Array.from({ length: n }, (_, i) => {
    const row: Record<string, unknown> = {
      client_id: 1,
      request_time: T0 + i,
      id: `${i.toString(16).padStart(32, '0')}-000001`,
      domain_id: 1,
      status_code: 200,
    };
    for (const field of Object.keys(FIELD_PLACE)) if (!(field in row)) row[field] = '';
    return row as unknown as EventRow;
  });
}

describe('block cache', () => {
  it('lets a part go once the entries decoded from it outgrow the budget, and keeps one that stays within it', () => {
    const [block] = encodeBlocks(EventBatch.ofRows(rows(2000)));
    const header: BlockHeader = { blockId: 1, clientId: 1, hour: block.hour, n: block.n, firstTime: block.firstTime, lastTime: block.lastTime, stamp: 7 };
    const idPart = FIELD_PLACE.id.part;
    const stored = block.parts[idPart].length;
    const fetchRows = [{ block_id: 1, part: idPart, data: block.parts[idPart] }];
    // Parts get seven eighths of the budget: this one leaves room for its stored bytes, not for 2,000 decoded ids.
    const cache = new BlockCache(Math.ceil((stored * 8) / 7) + 1024);
    const first = cache.partsOf([header], [idPart]);
    expect(first.missing).toEqual([1]);
    const [[part]] = first.finish(fetchRows);
    expect(cache.partsOf([header], [idPart]).missing).toEqual([]);
    (part.columns[FIELD_PLACE.id.index] as TextColumn).texts();
    expect(cache.partsOf([header], [idPart]).missing).toEqual([1]);

    const roomy = new BlockCache(64 * stored);
    const [[kept]] = roomy.partsOf([header], [idPart]).finish(fetchRows);
    (kept.columns[FIELD_PLACE.id.index] as TextColumn).texts();
    expect(roomy.partsOf([header], [idPart]).missing).toEqual([]);
  });
});
