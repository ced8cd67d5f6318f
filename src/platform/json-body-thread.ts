// The thread large JSON bodies of clients are checked in (see JsonBodyReading in json-body.ts): the UTF-8
// decoding, the depth scan, the parse, the prototype check and the pruning of undeclared members. What
// the main thread would refuse costs it nothing but moving the bytes; what it would drop, nothing but the
// rest's parse. Also where the provider API's bodies of many items are validated first (BodyCheck, see
// inThreadFirst in validation.ts).
import type { ValidateFunction } from 'ajv';
import { parentPort } from 'node:worker_threads';
import type { BodyShape } from './body-shape.js';
import { checkJsonText } from './json-text.js';
import { builtSchemaCode } from './schema-code.js';
import { type BodyCheck, bodyChecker, finiteOnly, makeAjv } from './validation.js';
import { lowerThreadPriority, serveWorkerCalls } from './workers.js';

const ahead = builtSchemaCode();
let ajv: ReturnType<typeof makeAjv> | undefined;
// As the main thread makes them (createSchemaCompiler): the pruning is the BodyCheck's.
const validateBody = bodyChecker((schema) =>
  finiteOnly(() => ahead?.validator('api-body', schema) ?? ((ajv ??= makeAjv('api-body')).compile(schema) as ValidateFunction)),
);

lowerThreadPriority();
serveWorkerCalls(parentPort!, (message) => {
  if (message.check) return validateBody(message.check as BodyCheck);
  const bytes = message.bytes as Uint8Array;
  // As Fastify decodes a body it parses as text (malformed sequences become U+FFFD).
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return checkJsonText(text, message.shape as BodyShape | null);
});
