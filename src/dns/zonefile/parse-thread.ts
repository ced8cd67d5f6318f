// The thread large zone files are read in (see ZoneFileReading in reading.ts): the lexer and the record
// parser take about 3 us a line, and a client sending files of 30,000 records one after another (each
// refused at the RRset quota after 10,000) kept the main thread 95% busy. Here they cost it nothing but
// sending the text and taking the records.
import { parentPort } from 'node:worker_threads';
import { lowerThreadPriority, serveWorkerCalls } from '../../platform/workers.js';
import { type ReadCall, readZoneFile } from './reading.js';

lowerThreadPriority();
serveWorkerCalls(parentPort!, (message) => readZoneFile(message as unknown as ReadCall));
