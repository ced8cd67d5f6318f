import { describe, expect, it } from 'vitest';
import { EntrySlots, HEADERS_PART, REQUEST_ID_PART, SLOT_BYTES, type SlotEntry, URL_PART } from './slots.js';

const entry = (seq: number, text: Partial<SlotEntry> = {}): SlotEntry => ({
  seq,
  timeMs: 1_700_000_000_000 + seq,
  clientId: seq % 2 === 0 ? seq : null,
  operationId: seq % 3 === 0 ? null : `op.${seq}`,
  method: 'GET',
  status: 200 + (seq % 300),
  elapsedMs: seq / 7,
  requestId: `req-${seq}`,
  url: `/x/${seq}?a=${seq}`,
  rawHeaders: ['Host', 'h', 'X-N', String(seq)],
  ...text,
});

function write(slots: EntrySlots, e: SlotEntry) {
  const { seq, ...rest } = e;
  slots.record(seq, rest);
}

describe('the journal slots', () => {
  it('give back every field as recorded, nulls included', () => {
    const slots = new EntrySlots(8);
    for (let seq = 1; seq <= 6; seq += 1) write(slots, entry(seq));
    for (let seq = 1; seq <= 6; seq += 1) expect(slots.read(seq)).toEqual(entry(seq));
    expect(slots.read(7)).toBeUndefined();
    expect([slots.has(7), slots.fields(7), slots.text(7)]).toEqual([false, undefined, undefined]);
  });

  it('reuse a slot in turn: an entry written over is gone', () => {
    const slots = new EntrySlots(3);
    for (let seq = 1; seq <= 7; seq += 1) write(slots, entry(seq));
    expect([1, 2, 3, 4].map((seq) => slots.read(seq))).toEqual([undefined, undefined, undefined, undefined]);
    expect([5, 6, 7].map((seq) => slots.read(seq)?.requestId)).toEqual(['req-5', 'req-6', 'req-7']);
    slots.clear();
    expect(slots.read(7)).toBeUndefined();
    expect([slots.has(7), slots.fields(7), slots.text(7)]).toEqual([false, undefined, undefined]);
  });

  it('keep text that does not fit a slot, multi-byte characters and empty headers whole', () => {
    const slots = new EntrySlots(300);
    const long = entry(1, { url: `/long?q=${'é'.repeat(SLOT_BYTES)}` });
    // Two-byte characters up to a byte before the slot's end (fits), and one more (cannot fit).
    const edge = entry(2, { requestId: 'r', url: '', rawHeaders: ['X-E', 'é'.repeat(1021)] });
    const over = entry(5, { requestId: 'r', url: '', rawHeaders: ['X-E', 'é'.repeat(1022)] });
    const exact = entry(3, { requestId: '', url: '', rawHeaders: ['X', 'a'.repeat(SLOT_BYTES - 2)] });
    const emoji = entry(4, { url: '/😀?x=ü', rawHeaders: [] });
    // Slots 257 and on are in the second page of bytes.
    const later = entry(260, { rawHeaders: ['Cookie', 'a=1', 'cookie', 'b=2'] });
    for (const e of [long, edge, exact, emoji, over, later]) write(slots, e);
    for (const e of [long, edge, exact, emoji, over, later]) {
      expect(slots.read(e.seq)).toEqual(e);
      // Each text alone, and the other fields without decoding any.
      expect([slots.part(e.seq, REQUEST_ID_PART), slots.part(e.seq, URL_PART), slots.part(e.seq, HEADERS_PART)]).toEqual([
        e.requestId,
        e.url,
        e.rawHeaders.join('\n'),
      ]);
      const { requestId: _id, url: _url, rawHeaders: _headers, ...fields } = e;
      expect(slots.fields(e.seq)).toEqual(fields);
    }
    write(slots, entry(301));
    expect(slots.read(301)).toEqual(entry(301));
    expect(slots.read(1)).toBeUndefined();
  });
});
