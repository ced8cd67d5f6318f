// Ingestion alone, against a baseline measured in the same run. Events are generated first (not timed),
// then stored, each on a fresh database:
//   baseline  the same events as plain rows (one column per stored field, no index, no id check) with the
//             fastest bulk insert of the engine (64-row prepared INSERTs in 20,000-row transactions on
//             SQLite, one unnest INSERT per 20,000 rows on PostgreSQL): what storing them costs at least;
//   batch     the path the generator and the control API share (rows already built);
//   ndjson    the path of POST /_edgeplane/waap/events: parse, validate, build rows, store.
// Traffic density matches the 10M-events-in-30-days benchmark (50 clients, the first with a fifth).
// Prints events/s (wall, per CPU-second and per user CPU-second) and each path's ratio to the baseline,
// with the CPU (user, system) and I/O (bytes and calls written and read, bytes that reached the block
// layer) each path used, and the machine's CPU model and disk (throughput and fsync latency).
//   npx tsx bench/waap/ingest.ts --events 1000000 [--rounds 3] [--database-url postgres://...] [--only batch|ndjson]
//   [--dir /dev/shm] [--pragma synchronous=FULL ...]   where the files go, and SQLite settings to try
//   [--parse-threads N]                                 NDJSON parsing threads (the server chooses by default)
import fs from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config.js';
import { Clock } from '../../src/platform/clock.js';
import { dropPostgresSchema, type Database } from '../../src/platform/db/index.js';
import { openAndMigrate } from '../../src/server.js';
import { TrafficGenerator } from '../../src/waap/request-events/generator.js';
import { EventIngestor } from '../../src/waap/request-events/ingest.js';
import { toRow, type DomainInfo } from '../../src/waap/request-events/records.js';
import { EventLog, type EventRow } from '../../src/waap/request-events/log/index.js';
import type { IngestRecord } from '../../src/waap/request-events/schemas.js';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    days: { type: 'string' },
    clients: { type: 'string', default: '50' },
    // NDJSON bodies' parsing threads (the server's default: two, one on a machine of one core).
    'parse-threads': { type: 'string' },
    'database-url': { type: 'string' },
    only: { type: 'string' },
    // Where the SQLite files go (default /tmp), and pragmas for each fresh database (repeatable), to see
    // how the disk, the page cache and SQLite's settings move each path: e.g. --dir /dev/shm,
    // --pragma synchronous=FULL, --pragma page_size=16384.
    dir: { type: 'string', default: '/tmp' },
    pragma: { type: 'string', multiple: true, default: [] },
    rounds: { type: 'string', default: '1' },
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

const dataDirOf = (name: string) => `${args.dir}/edgeplane-waap-ingest-${name}`;

async function freshDatabase(name: string): Promise<Database> {
  const dataDir = dataDirOf(name);
  const schema = `waap_ingest_${name}`;
  if (databaseUrl) await dropPostgresSchema(databaseUrl, schema);
  else fs.rmSync(dataDir, { recursive: true, force: true });
  const db = await openAndMigrate(loadConfig({}, { dataDir, databaseUrl, databaseSchema: databaseUrl ? schema : undefined }));
  for (const pragma of args.pragma ?? []) db.raw.sqlite?.pragma(pragma);
  return db;
}

async function dropDatabase(name: string): Promise<void> {
  if (databaseUrl) await dropPostgresSchema(databaseUrl, `waap_ingest_${name}`);
  else fs.rmSync(dataDirOf(name), { recursive: true, force: true });
}

interface Rate {
  wall: number;
  cpu: number;
  /** Events per second of user CPU alone: what the machine's disk and kernel change least. */
  user: number;
}

/** This process's I/O counters (Linux /proc/self/io): bytes and calls read and written, and what reached the disk. */
function io(): Record<string, number> {
  try {
    return Object.fromEntries(
      fs
        .readFileSync('/proc/self/io', 'utf8')
        .trim()
        .split('\n')
        .map((line) => {
          const [key, value] = line.split(':');
          return [key, Number(value)];
        }),
    );
  } catch {
    return {};
  }
}

/** Dirty page-cache memory waiting to be written back (Linux), in MB. */
function dirtyMb(): number {
  const line = fs
    .readFileSync('/proc/meminfo', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Dirty:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) / 1024;
}

async function measure(name: string, work: (db: Database) => Promise<number>): Promise<Rate> {
  const db = await freshDatabase(name);
  const cpu0 = process.cpuUsage();
  const io0 = io();
  const started = performance.now();
  const stored = await work(db);
  // Until the data is stored for good: closing checkpoints the WAL into the database file, and the files
  // are then flushed to the disk. Left outside the timing, a path's last writes were paid or not
  // depending on when SQLite's checkpoint and the kernel's writeback ran (up to 200 MB was still dirty
  // in the page cache when a path returned), which the disk and memory of the machine decide.
  const sizes = sqliteSizes(name);
  await db.close();
  flush(name);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const io1 = io();
  const rate = { wall: stored / seconds, cpu: stored / ((cpu.user + cpu.system) / 1e6), user: stored / (cpu.user / 1e6) };
  const size = sizes.file;
  const delta = (key: string) => (io1[key] ?? 0) - (io0[key] ?? 0);
  log(
    `${db.engine} ${name}: ${stored} of ${events} events in ${seconds.toFixed(1)} s: ${Math.round(rate.wall)} events/s wall, ${Math.round(rate.cpu)} per CPU-second, ${Math.round(rate.user)} per user CPU-second${size ? `, file ${(size / 1e6).toFixed(0)} MB (WAL ${(sizes.wal / 1e6).toFixed(0)} MB before the checkpoint)` : ''}`,
  );
  log(
    `  CPU user ${(cpu.user / 1e6).toFixed(1)} s, system ${(cpu.system / 1e6).toFixed(1)} s; written ${(delta('wchar') / 1e6).toFixed(0)} MB in ${delta('syscw')} calls ` +
      `(${(delta('write_bytes') / 1e6).toFixed(0)} MB reached the block layer), read ${(delta('rchar') / 1e6).toFixed(0)} MB in ${delta('syscr')} calls; dirty page cache at the end ${dirtyMb().toFixed(0)} MB`,
  );
  await dropDatabase(name);
  return rate;
}

/** The database file's size (after the work, before the close) and its WAL's, in bytes (0 on PostgreSQL). */
function sqliteSizes(name: string): { file: number; wal: number } {
  if (databaseUrl) return { file: 0, wal: 0 };
  const file = `${dataDirOf(name)}/edgeplane.sqlite`;
  const size = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
  return { file: size(file), wal: size(`${file}-wal`) };
}

/** fsync of every file of a path's data dir (SQLite's own syncs leave some to the kernel's writeback). */
function flush(name: string): void {
  if (databaseUrl) return;
  const dir = dataDirOf(name);
  for (const entry of fs.readdirSync(dir)) {
    const fd = fs.openSync(`${dir}/${entry}`, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
}

/** Every stored field of an event as a plain column. */
const COLUMNS = Object.keys(toRow(records[0], domainInfos[records[0].domain_id])) as (keyof EventRow)[];

async function baseline(db: Database, rows: EventRow[]): Promise<number> {
  const sqlite = db.raw.sqlite;
  if (sqlite) {
    sqlite.exec(`create table bare (${COLUMNS.map((c) => `${c} any`).join(', ')})`);
    const per = 64;
    const many = sqlite.prepare(
      `insert into bare values ${Array(per)
        .fill(`(${COLUMNS.map(() => '?').join(',')})`)
        .join(',')}`,
    );
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
    await pool.query(
      `insert into bare select * from unnest(${COLUMNS.map((c, k) => `$${k + 1}::${type(c)}[]`).join(', ')})`,
      COLUMNS.map((c) => batch.map((r) => r[c])),
    );
  }
  return rows.length;
}

// statfs magic numbers: /tmp is a disk on some machines and memory (tmpfs) on others.
const FILE_SYSTEMS: Record<number, string> = {
  0x01021994: 'tmpfs (memory)',
  0xef53: 'ext4',
  0x58465342: 'xfs',
  0x9123683e: 'btrfs',
  0x794c7630: 'overlayfs',
  0x2fc12fc1: 'zfs',
};

/**
 * What the machine gives: CPU model, and the disk under --dir: sequential writes of 64 MB ending in one
 * fsync, and the latency of a 4 KB write + fsync (median of 20). The paths differ in how much they write
 * (the baseline's rows are 3 times the blocks' size), so the disk moves their wall-time ratio.
 */
function machine(): string {
  const cpu = /model name\s*:\s*(.*)/.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown CPU';
  const file = `${args.dir}/edgeplane-waap-ingest-probe`;
  const chunk = Buffer.alloc(1 << 20, 7);
  const fd = fs.openSync(file, 'w');
  let started = performance.now();
  for (let i = 0; i < 64; i += 1) fs.writeSync(fd, chunk);
  fs.fsyncSync(fd);
  const throughput = 64 / ((performance.now() - started) / 1000);
  const small = Buffer.alloc(4096, 1);
  const latencies: number[] = [];
  for (let i = 0; i < 20; i += 1) {
    started = performance.now();
    fs.writeSync(fd, small, 0, small.length, i * 4096);
    fs.fsyncSync(fd);
    latencies.push(performance.now() - started);
  }
  fs.closeSync(fd);
  fs.rmSync(file, { force: true });
  latencies.sort((a, b) => a - b);
  const kind = FILE_SYSTEMS[fs.statfsSync(args.dir).type] ?? `file system type 0x${fs.statfsSync(args.dir).type.toString(16)}`;
  return `${cpu}, ${os.cpus().length} cores; ${args.dir} is ${kind}: 64 MB written and fsynced at ${throughput.toFixed(0)} MB/s, 4 KB write + fsync ${latencies[10].toFixed(2)} ms (median)`;
}

const rounds = Number(args.rounds);
log(
  `${events} events over ${days.toFixed(2)} days for ${clients} clients, ${rounds} round(s); load average ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
);
if (!databaseUrl) log(machine());
const rows = records.map((r) => toRow(r, domainInfos[r.domain_id]));
// In bodies of 200,000 lines (about 200 MB), as a client would post them and the server receives them
// (bytes): one string of a million lines would pass V8's largest string.
const bodies: Buffer[] = [];
if (args.only !== 'batch')
  for (let i = 0; i < records.length; i += 200_000)
    bodies.push(
      Buffer.from(
        records
          .slice(i, i + 200_000)
          .map((r) => JSON.stringify(r))
          .join('\n'),
      ),
    );

const ratios: Record<'batch' | 'ndjson', { wall: number[]; cpu: number[]; user: number[] }> = {
  batch: { wall: [], cpu: [], user: [] },
  ndjson: { wall: [], cpu: [], user: [] },
};
const note = (path: 'batch' | 'ndjson', rate: Rate, base: Rate) => {
  ratios[path].wall.push(rate.wall / base.wall);
  ratios[path].cpu.push(rate.cpu / base.cpu);
  ratios[path].user.push(rate.user / base.user);
  log(
    `  ${path}: ratio to baseline ${(rate.wall / base.wall).toFixed(2)} wall, ${(rate.cpu / base.cpu).toFixed(2)} per CPU-second, ${(rate.user / base.user).toFixed(2)} per user CPU-second`,
  );
};
// Rounds of the three paths in turn, each on a fresh database: a slow moment of a shared machine hits
// one round, and the median of the rounds' ratios is what is reported.
for (let round = 1; round <= rounds; round += 1) {
  if (rounds > 1) log(`round ${round}`);
  const base = await measure('baseline', (db) => baseline(db, rows));
  if (args.only !== 'ndjson') {
    note('batch', await measure('batch', (db) => new EventIngestor(new EventLog(db, { threads: 0, cacheBytes: 0 }), lookup, clock).ingestRows(rows)), base);
  }
  if (args.only !== 'batch') {
    const ndjson = await measure('ndjson', async (db) => {
      const threads = args['parse-threads'] ? Number(args['parse-threads']) : undefined;
      const ingestor = new EventIngestor(new EventLog(db, { threads: 0, cacheBytes: 0 }), lookup, clock, undefined, undefined, { threads });
      let accepted = 0;
      for (const body of bodies) accepted += (await ingestor.ingest(body)).accepted;
      return accepted;
    });
    note('ndjson', ndjson, base);
  }
}
const med = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
if (rounds > 1) {
  for (const path of ['batch', 'ndjson'] as const) {
    const r = ratios[path];
    if (r.wall.length > 0)
      log(
        `${path}: median ratio to baseline ${med(r.wall).toFixed(2)} wall (rounds ${r.wall.map((x) => x.toFixed(2)).join(', ')}), ${med(r.cpu).toFixed(2)} per CPU-second, ${med(r.user).toFixed(2)} per user CPU-second`,
      );
  }
}
