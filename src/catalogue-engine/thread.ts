// The catalogue engine's thread: JSON bodies of many items are checked here (see RequestValidator.check),
// and generated reports made (see CatalogueService.report). The body's parse, Ajv's errors (36,000 for
// 9,000 wrong items of a union) and their mapping to fields, or a report's thousands of seeded values,
// cost the main thread only the call's message and its answer.
import { parentPort } from 'node:worker_threads';
import { readCatalogue } from '../platform/catalogue/index.js';
import { builtSchemaCode } from '../platform/schema-code.js';
import type { BodyCheck } from '../platform/validation.js';
import { lowerThreadPriority, serveWorkerCalls } from '../platform/workers.js';
import { type ReportCall, reportMaker } from './fill.js';
import { Schemas } from './schema.js';
import { CATALOGUE_FORMATS, CATALOGUE_FORMATS_MODULE, engineBodyChecker } from './validate.js';

const check = engineBodyChecker(builtSchemaCode({ [CATALOGUE_FORMATS_MODULE]: CATALOGUE_FORMATS }));
// The catalogue is read by the first report (its components, as a report's schema references them).
let schemas: Schemas | undefined;
const report = reportMaker(() => (schemas ??= new Schemas(readCatalogue())));

lowerThreadPriority();
serveWorkerCalls(parentPort!, (message) => (message.report ? report(message.report as ReportCall) : check(message.check as BodyCheck)));
