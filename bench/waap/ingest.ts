// Ingestion alone, against a baseline measured in the same run. Events are generated first (not timed),
// then stored, each on a fresh database:
//   baseline  the same events as plain rows (one column per stored field, no index, no id check) with the
//             fastest bulk insert of the engine (64-row prepared INSERTs in 20,000-row transactions on
//             SQLite, one unnest INSERT per 20,000 rows on PostgreSQL): what storing them costs at least;
//   batch     the path the generator and the control API share (rows already built);
//   ndjson    the path of POST /_edgeplane/waap/events: parse, validate, build rows, store.
// Traffic density matches the 10M-events-in-30-days benchmark (50 clients, the first with a fifth).
// Prints events/s (wall and per CPU-second) and each path's ratio to the baseline.
//   npx tsx bench/waap/ingest.ts --events 1000000 [--database-url postgres://...] [--only batch|ndjson]
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config.js';
import { Clock } from '../../src/platform/clock.js';
import { dropPostgresSchema, type Database } from '../../src/platform/db/index.js';
import { openAndMigrate } from '../../src/server.js';
import { type EventRow, PARTS } from '../../src/waap/request-events/block-format.js';
import { TrafficGenerator } from '../../src/waap/request-events/generator.js';
import { EventIngestor, toRow, type DomainInfo } from '../../src/waap/request-events/ingest.js';
import type { IngestRecord } from '../../src/waap/request-events/schemas.js';
import { EventStore } from '../../src/waap/request-events/store.js';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
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
const BATCH = 20_000;

// Pre-generated events: client i owns domains 3i+1..3i+3; the first client gets a fifth of the traffic.
const clock = new Clock();
const gen = new TrafficGenerator(3);
const domainInfos = Array.from({ length: 3 * clients + 1 }, (_, id): DomainInfo => ({ client_id: 1 + Math.floor((id - 1) / 3), name: `d${id}.example.com` }));
const domainRefs = domainInfos.map((d, id) => ({ id, name: d.name }));
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
  records.push(gen.record(sessions[client][slot], domainRefs[id], time));
}
const lookup = { owner: async (id: number) => (id >= 1 && id <= 3 * clients ? domainInfos[id] : undefined) };

async function freshDatabase(name: string): Promise<Database> {
  const dataDir = `/tmp/edgeplane-waap-ingest-${name}`;
  const schema = `waap_ingest_${name}`;
  if (databaseUrl) await dropPostgresSchema(databaseUrl, schema);
  else fs.rmSync(dataDir, { recursive: true, force: true });
  return openAndMigrate(loadConfig({}, { dataDir, databaseUrl, databaseSchema: databaseUrl ? schema : undefined }));
}

async function dropDatabase(name: string): Promise<void> {
  if (databaseUrl) await dropPostgresSchema(databaseUrl, `waap_ingest_${name}`);
  else fs.rmSync(`/tmp/edgeplane-waap-ingest-${name}`, { recursive: true, force: true });
}

interface Rate {
  wall: number;
  cpu: number;
}

async function measure(name: string, work: (db: Database) => Promise<number>): Promise<Rate> {
  const db = await freshDatabase(name);
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const stored = await work(db);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const rate = { wall: stored / seconds, cpu: stored / ((cpu.user + cpu.system) / 1e6) };
  const size = db.engine === 'sqlite' ? fs.statSync(`/tmp/edgeplane-waap-ingest-${name}/edgeplane.sqlite`).size : 0;
  log(`${db.engine} ${name}: ${stored} of ${events} events in ${seconds.toFixed(1)} s: ${Math.round(rate.wall)} events/s wall, ${Math.round(rate.cpu)} per CPU-second${size ? `, file ${(size / 1e6).toFixed(0)} MB` : ''}`);
  await db.close();
  await dropDatabase(name);
  return rate;
}

/** Every stored field of an event as a plain column. */
const COLUMNS = ['client_id', 'request_time', ...PARTS.flat().filter((f) => f !== 'request_time')] as (keyof EventRow)[];

async function baseline(db: Database, rows: EventRow[]): Promise<number> {
  const sqlite = db.raw.sqlite;
  if (sqlite) {
    sqlite.exec(`create table bare (${COLUMNS.map((c) => `${c} any`).join(', ')})`);
    const per = 64;
    const many = sqlite.prepare(`insert into bare values ${Array(per).fill(`(${COLUMNS.map(() => '?').join(',')})`).join(',')}`);
    const one = sqlite.prepare(`insert into bare values (${COLUMNS.map(() => '?').join(',')})`);
    const params: unknown[] = new Array(per * COLUMNS.length);
    const write = sqlite.transaction((batch: EventRow[]) => {
      let i = 0;
      for (; i + per <= batch.length; i += per) {
        for (let j = 0; j < per; j += 1) for (let c = 0; c < COLUMNS.length; c += 1) params[j * COLUMNS.length + c] = batch[i + j][COLUMNS[c]];
        many.run(params);
      }
      for (; i < batch.length; i += 1) one.run(COLUMNS.map((c) => batch[i][c]));
    });
    for (let i = 0; i < rows.length; i += BATCH) write(rows.slice(i, i + BATCH));
    return rows.length;
  }
  const pool = db.raw.pg!;
  const type = (c: string) => (c === 'client_id' || c === 'request_time' || c === 'domain_id' || c === 'status_code' ? 'bigint' : 'text');
  await pool.query(`create table bare (${COLUMNS.map((c) => `${c} ${type(c)}`).join(', ')})`);
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH);
    await pool.query(`insert into bare select * from unnest(${COLUMNS.map((c, k) => `$${k + 1}::${type(c)}[]`).join(', ')})`, COLUMNS.map((c) => batch.map((r) => r[c])));
  }
  return rows.length;
}

log(`${events} events over ${days.toFixed(2)} days for ${clients} clients; load average ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
const rows = records.map((r) => toRow(r, domainInfos[r.domain_id]));
const base = await measure('baseline', (db) => baseline(db, rows));
const ratio = (rate: Rate) => `ratio to baseline ${(rate.wall / base.wall).toFixed(2)} wall, ${(rate.cpu / base.cpu).toFixed(2)} per CPU-second`;
if (args.only !== 'ndjson') {
  const batch = await measure('batch', (db) => new EventIngestor(new EventStore(db), lookup, clock).ingestRows(rows));
  log(`  batch: ${ratio(batch)}`);
}
if (args.only !== 'batch') {
  // In bodies of 200,000 lines (about 200 MB), as a client would post them: one string of a million
  // lines would pass V8's largest string.
  const bodies: string[] = [];
  for (let i = 0; i < records.length; i += 200_000) bodies.push(records.slice(i, i + 200_000).map((r) => JSON.stringify(r)).join('\n'));
  const ndjson = await measure('ndjson', async (db) => {
    const ingestor = new EventIngestor(new EventStore(db), lookup, clock);
    let accepted = 0;
    for (const body of bodies) accepted += (await ingestor.ingestText(body)).accepted;
    return accepted;
  });
  log(`  ndjson: ${ratio(ndjson)}`);
}
