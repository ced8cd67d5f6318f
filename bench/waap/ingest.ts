// Ingestion alone: rows are generated first (not timed), then written through the same batch path the
// control API and the generator use. Reports wall-clock and per-CPU-second rates, since this machine
// is shared and the wall clock mostly measures the neighbours.
//   npx tsx bench/waap/ingest.ts --events 500000 [--database-url postgres://...]
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config.js';
import { Clock } from '../../src/platform/clock.js';
import { dropPostgresSchema } from '../../src/platform/db/index.js';
import { openAndMigrate } from '../../src/server.js';
import { TrafficGenerator } from '../../src/waap/request-events/generator.js';
import { toRow } from '../../src/waap/request-events/ingest.js';
import { EventStore, type EventRow } from '../../src/waap/request-events/store.js';

const { values: args } = parseArgs({ options: { events: { type: 'string', default: '500000' }, 'database-url': { type: 'string' } } });
const events = Number(args.events);
const databaseUrl = args['database-url'];
const dataDir = '/tmp/edgeplane-waap-ingest';
const schema = 'waap_ingest_bench';
if (databaseUrl) await dropPostgresSchema(databaseUrl, schema);
else fs.rmSync(dataDir, { recursive: true, force: true });
const db = await openAndMigrate(loadConfig({}, { dataDir, databaseUrl, databaseSchema: databaseUrl ? schema : undefined }));
const clock = new Clock();
const gen = new TrafficGenerator(3);
const rows: EventRow[] = [];
const span = 30 * 86_400_000;
let session = gen.newSession();
for (let i = 0; i < events; i += 1) {
  if (session.left <= 0) session = gen.newSession();
  const time = clock.now() - span + Math.floor((i * span) / events);
  rows.push(toRow(gen.record(session, { id: 1 + (i % 3), name: `d${i % 3}.example.com` }, time), { client_id: 1 + (i % 10), name: `d${i % 3}.example.com` }));
}
const store = new EventStore(db);
const cpu0 = process.cpuUsage();
const started = performance.now();
for (let i = 0; i < rows.length; i += 5000) await store.insertBatch(rows.slice(i, i + 5000));
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpu0);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
process.stdout.write(`${db.engine}: ${events} events ingested in ${seconds.toFixed(1)} s: ${Math.round(events / seconds)} events/s wall, ${Math.round(events / cpuSeconds)} events/s per CPU-second of this process\n`);
await store.close();
await db.close();
if (databaseUrl) await dropPostgresSchema(databaseUrl, schema);
