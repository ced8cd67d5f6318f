// The thread large JSON bodies of clients are checked in (see JsonBodyReading in json-body.ts): the UTF-8
// decoding, the depth scan, the parse, the prototype check and the pruning of undeclared members. What
// the main thread would refuse costs it nothing but moving the bytes; what it would drop, nothing but the
// rest's parse.
import { parentPort } from 'node:worker_threads';
import type { BodyShape } from './body-shape.js';
import { checkJsonText } from './json-text.js';
import { lowerThreadPriority, serveWorkerCalls } from './workers.js';

lowerThreadPriority();
serveWorkerCalls(parentPort!, (message) => {
  const bytes = message.bytes as Uint8Array;
  // As Fastify decodes a body it parses as text (malformed sequences become U+FFFD).
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return checkJsonText(text, message.shape as BodyShape | null);
});
