// Ingestion alone, without the generator's cost: events are generated first (not timed), then written
//  1. through the batch path the generator and the control API share (rows already built), and
//  2. through the NDJSON path of POST /_edgeplane/waap/events (parse, validate, build rows, write), on a
//     second fresh database so the same events are new again.
// Traffic density matches the 10M-events-in-30-days benchmark (50 clients, the first with a fifth), so
// the counters see as many events per hour as there; --days overrides the span.
// Reports wall-clock and per-CPU-second rates: this machine is shared and the wall clock mostly
// measures the neighbours.
//   npx tsx bench/waap/ingest.ts --events 300000 [--database-url postgres://...] [--only batch|ndjson]
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config.js';
import { Clock } from '../../src/platform/clock.js';
import { dropPostgresSchema, type Database } from '../../src/platform/db/index.js';
import { openAndMigrate } from '../../src/server.js';
import { TrafficGenerator } from '../../src/waap/request-events/generator.js';
import { EventIngestor, toRow, type DomainInfo } from '../../src/waap/request-events/ingest.js';
import type { IngestRecord } from '../../src/waap/request-events/schemas.js';
import { EventStore } from '../../src/waap/request-events/store.js';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '300000' },
    days: { type: 'string' },
    clients: { type: 'string', default: '50' },
    'database-url': { type: 'string' },
    only: { type: 'string' },
  },
});
const events = Number(args.events);
const clients = Number(args.clients);
const days = args.days ? Number(args.days) : (30 * events) / 10_000_000;
const databaseUrl = args['database-url'];
const log = (line: string) => process.stdout.write(`${line}\n`);

// Pre-generated events: client i owns domains 3i+1..3i+3; the first client gets a fifth of the traffic.
const clock = new Clock();
const gen = new TrafficGenerator(3);
const domainOf = (id: number): DomainInfo => ({ client_id: 1 + Math.floor((id - 1) / 3), name: `d${id}.example.com` });
const records: IngestRecord[] = [];
const sessions: ReturnType<TrafficGenerator['newSession']>[][] = Array.from({ length: clients }, () => []);
const end = clock.now();
const span = days * 86_400_000;
for (let i = 0; i < events; i += 1) {
  const r = gen.random();
  const client = r < 0.2 ? 0 : Math.min(clients - 1, 1 + Math.floor(((r - 0.2) / 0.8) * (clients - 1)));
  const slot = Math.floor(gen.random() * 8);
  if (!sessions[client][slot] || sessions[client][slot].left <= 0) sessions[client][slot] = gen.newSession();
  const id = 3 * client + 1 + Math.floor(gen.random() * 3);
  const time = Math.min(end - 1, Math.floor(end - span + ((i + gen.random()) * span) / events));
  records.push(gen.record(sessions[client][slot], { id, name: domainOf(id).name }, time));
}
const lookup = { owner: async (id: number) => (id >= 1 && id <= 3 * clients ? domainOf(id) : undefined) };

async function freshDatabase(name: string): Promise<Database> {
  const dataDir = `/tmp/edgeplane-waap-ingest-${name}`;
  const schema = `waap_ingest_${name}`;
  if (databaseUrl) await dropPostgresSchema(databaseUrl, schema);
  else fs.rmSync(dataDir, { recursive: true, force: true });
  return openAndMigrate(loadConfig({}, { dataDir, databaseUrl, databaseSchema: databaseUrl ? schema : undefined }));
}

async function measure(name: string, work: (ingestor: EventIngestor) => Promise<number>): Promise<void> {
  const db = await freshDatabase(name);
  const store = new EventStore(db);
  const ingestor = new EventIngestor(store, lookup, clock);
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const accepted = await work(ingestor);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  log(`${db.engine} ${name}: ${accepted} of ${events} events in ${seconds.toFixed(1)} s: ${Math.round(accepted / seconds)} events/s wall, ${Math.round(accepted / cpuSeconds)} events/s per CPU-second`);
  await db.close();
  if (databaseUrl) await dropPostgresSchema(databaseUrl, `waap_ingest_${name}`);
  else fs.rmSync(`/tmp/edgeplane-waap-ingest-${name}`, { recursive: true, force: true });
}

log(`${events} events over ${days.toFixed(2)} days for ${clients} clients; load average ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
if (args.only !== 'ndjson') {
  const rows = records.map((r) => toRow(r, domainOf(r.domain_id)));
  await measure('batch', (ingestor) => ingestor.ingestRows(rows));
}
if (args.only !== 'batch') {
  const text = records.map((r) => JSON.stringify(r)).join('\n');
  await measure('ndjson', async (ingestor) => (await ingestor.ingestText(text)).accepted);
}
