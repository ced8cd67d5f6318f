// The threads large NDJSON bodies are parsed in (see EventIngestor). The body is copied once into shared
// memory, and each call reads one stretch of it (whole lines): the threads of the pool read stretches of
// one body at once while the ingestor stores the ones before. Parsing, validating and building the rows of
// a million lines cost the main thread about 0.3 s, during which every other client's request waited
// between time slices; here it costs the main thread nothing but taking the rows.
import { parentPort } from 'node:worker_threads';
import { builtSchemaCode } from '../../platform/schema-code.js';
import { lowerThreadPriority, serveWorkerCalls } from '../../platform/workers.js';
import { newCursor, parseLines, type Piece, recordValidator, type TimeWindow, toPiece } from './records.js';

/**
 * One stretch of a body: bytes `start` to `end` of `body` (shared, not copied), whole lines. Its lines
 * are numbered from 1, and it describes up to MAX_REPORTED refusals of its own; the ingestor numbers them
 * within the body and reports the body's first ones.
 */
export interface StretchCall {
  body: SharedArrayBuffer;
  start: number;
  end: number;
  window: TimeWindow;
}

const validator = recordValidator(builtSchemaCode());
const WHOLE = { maxRows: Infinity, maxLines: Infinity };

lowerThreadPriority();
serveWorkerCalls(parentPort!, (message): Piece => {
  const { body, start, end, window } = message as unknown as StretchCall;
  return toPiece(parseLines(new Uint8Array(body, start, end - start), newCursor(), validator(), window, WHOLE));
});
