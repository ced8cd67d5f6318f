// The thread the engine checks JSON bodies of many items in (see RequestValidator.check): the body's
// parse, Ajv's errors (36,000 for 9,000 wrong items of a union) and their mapping to fields happen here,
// and the main thread only sends the text and receives at most 100 fields.
import { parentPort } from 'node:worker_threads';
import { builtSchemaCode } from '../platform/schema-code.js';
import { lowerThreadPriority, serveWorkerCalls } from '../platform/workers.js';
import type { BodyCheck } from '../platform/validation.js';
import { CATALOGUE_FORMATS, CATALOGUE_FORMATS_MODULE, engineBodyChecker } from './validate.js';

const check = engineBodyChecker(builtSchemaCode({ [CATALOGUE_FORMATS_MODULE]: CATALOGUE_FORMATS }));

lowerThreadPriority();
serveWorkerCalls(parentPort!, (message) => check(message.check as BodyCheck));
