// The thread large JSON bodies of clients are checked in (see JsonBodyReading in json-body.ts): the depth
// scan, the parse, the prototype check and the pruning of undeclared members. What the main thread
// would refuse costs it nothing but sending the text; what it would drop, nothing but the rest's parse.
import { parentPort } from 'node:worker_threads';
import type { BodyShape } from './body-shape.js';
import { checkJsonText } from './json-text.js';
import { lowerThreadPriority, serveWorkerCalls } from './workers.js';

lowerThreadPriority();
serveWorkerCalls(parentPort!, (message) => checkJsonText(message.text as string, message.shape as BodyShape | null));
