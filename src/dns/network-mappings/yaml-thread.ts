// The thread network-mapping imports of a few kilobytes or more are read in (see MappingImportReading in
// yaml.ts): the YAML parse and the checks of every mapping, about a second for a 1 MiB body, cost the
// main thread nothing but sending the text and taking the mappings.
import { parentPort } from 'node:worker_threads';
import { lowerThreadPriority, serveWorkerCalls } from '../../platform/workers.js';
import { readMappings } from './yaml.js';

lowerThreadPriority();
serveWorkerCalls(parentPort!, (message) => readMappings(message.text as string, message.maxDocuments as number));
