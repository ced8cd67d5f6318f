// The thread large NDJSON bodies are parsed in (see EventIngestor): a body is sent once, then read a
// piece at a time, each piece asked for by the ingestor while it stores the one before. Parsing,
// validating and building the rows of a million lines cost the main thread about 0.3 s, during which
// every other client's request waited between time slices; here it costs the main thread nothing but
// taking the rows.
import { parentPort } from 'node:worker_threads';
import { type Columns, toColumns } from '../../platform/columns.js';
import { builtSchemaCode } from '../../platform/schema-code.js';
import { lowerThreadPriority, serveWorkerCalls } from '../../platform/workers.js';
import { type LineCursor, type LineLimits, newCursor, parseLines, type ParsedLines, recordValidator, type TimeWindow } from './records.js';

/**
 * `open` sends a body (moved, not copied) and reads its first piece; `next` reads on (an empty piece once
 * the body is read to its end); `close` lets the body go.
 */
export type ParseCall =
  { op: 'open'; key: number; body: Uint8Array; window: TimeWindow; limits: LineLimits } | { op: 'next'; key: number } | { op: 'close'; key: number };

/** A piece as it crosses: its rows as columns (see platform/columns.ts). */
export type ThreadPiece = Omit<ParsedLines, 'rows'> & { columns: Columns };

interface OpenBody {
  body: Uint8Array;
  cursor: LineCursor;
  window: TimeWindow;
  limits: LineLimits;
}

const bodies = new Map<number, OpenBody>();
const validator = recordValidator(builtSchemaCode());

function read(key: number): ThreadPiece {
  const open = bodies.get(key);
  if (!open) throw Object.assign(new Error(`no body ${key} is open in this thread`), { code: 'unknown_body' });
  const { rows, ...rest } = parseLines(open.body, open.cursor, validator(), open.window, open.limits);
  return { ...rest, columns: toColumns(rows) };
}

lowerThreadPriority();
serveWorkerCalls(parentPort!, (message) => {
  const call = message as unknown as ParseCall;
  if (call.op === 'close') return bodies.delete(call.key);
  if (call.op === 'open') bodies.set(call.key, { body: call.body, cursor: newCursor(), window: call.window, limits: call.limits });
  return read(call.key);
});
