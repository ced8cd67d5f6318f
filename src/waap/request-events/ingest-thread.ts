// The threads large NDJSON bodies are parsed in (see EventIngestor). The body is copied once into shared
// memory, and each call reads one stretch of it (whole lines): the threads of the pool read stretches of
// one body at once while the ingestor stores the ones before. Parsing, validating and building the rows of
// a million lines cost the main thread about 0.3 s, during which every other client's request waited
// between time slices; here it costs the main thread nothing but taking the rows.
import { parentPort } from 'node:worker_threads';
import { builtSchemaCode } from '../../platform/schema-code.js';
import { lowerThreadPriority, serveWorkerCalls } from '../../platform/workers.js';
import { localDescriptions, newCursor, parseLines, type Piece, recordValidator, sharedDescriptions, type TimeWindow, toPiece } from './records.js';

/**
 * One stretch of a body: bytes `start` to `end` of `body` (shared, not copied), whole lines, numbered from
 * 1 (the ingestor numbers them within the body). Its refusals are described while the body's shared count
 * of descriptions (`described`, one Int32) is below MAX_REPORTED, or up to `describe` of them when given
 * (a stretch read again, see piecesFromThreads).
 */
export interface StretchCall {
  body: SharedArrayBuffer;
  start: number;
  end: number;
  window: TimeWindow;
  described: SharedArrayBuffer;
  describe?: number;
}

const validator = recordValidator(builtSchemaCode());
const WHOLE = { maxRows: Infinity, maxLines: Infinity };

lowerThreadPriority();
serveWorkerCalls(parentPort!, (message): Piece => {
  const call = message as unknown as StretchCall;
  const descriptions = call.describe === undefined ? sharedDescriptions(new Int32Array(call.described)) : localDescriptions(call.describe);
  // Read from a copy: Buffer's decoding and search took a slower path over shared memory (a fifth of the
  // thread's time on a body of short refused lines), and copying a stretch costs a few microseconds.
  const stretch = Buffer.from(new Uint8Array(call.body, call.start, call.end - call.start));
  return toPiece(parseLines(stretch, newCursor(descriptions), validator(), call.window, WHOLE));
});
