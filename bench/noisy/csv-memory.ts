// Memory of the WAAP CSV export (GET /_edgeplane/waap/requests.csv): a client's whole log (1,000,000
// events by default) exported from the built server while its resident memory is sampled every 100 ms.
// The client first reads slowly (`--slow-seconds` at `--slow-rate` bytes per second), then as fast as
// it can: an export that ignored back-pressure would fill memory during the slow part, one that keeps
// results or caches would grow with the export's size.
//
//   npm run build && npx tsx bench/noisy/csv-memory.ts [--events 1000000] [--database-url postgres://...]
//   --data-dir DIR keeps the generated data (SQLite there; with --database-url the schema csv_memory,
//   its state in DIR) and reuses it on the next run;
//   --query-threads N runs the server with N reader threads (0: queries on the main thread);
//   --repeat N exports N times from the same process (bounded memory: later exports add nothing).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { call, freshStore, json, loadAverage, memoryOf, OPERATOR, seedClients, startServer, type Server, type Store } from './lib.js';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    'database-url': { type: 'string' },
    entry: { type: 'string' },
    port: { type: 'string', default: '18590' },
    'slow-seconds': { type: 'string', default: '20' },
    'slow-rate': { type: 'string', default: String(1024 * 1024) },
    'data-dir': { type: 'string' },
    'query-threads': { type: 'string' },
    repeat: { type: 'string', default: '1' },
  },
});
const events = Number(args.events);
const port = Number(args.port);
const slowMs = Number(args['slow-seconds']) * 1000;
const slowRate = Number(args['slow-rate']);
const log = (line: string) => process.stdout.write(`${line}\n`);

interface Sample {
  at: number;
  rss: number;
  anon: number;
  file: number;
}

/** Reads the export, slowly for `slowMs`, then at full speed; samples the server's memory meanwhile. */
function exportCsv(server: Server, url: string): Promise<{ bytes: number; lines: number; ms: number; samples: Sample[]; slowBytes: number }> {
  const pid = server.process.pid!;
  const samples: Sample[] = [];
  const started = performance.now();
  const sampler = setInterval(() => samples.push({ at: performance.now() - started, ...memoryOf(pid) }), 100);
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { authorization: `APIKey ${OPERATOR}` } }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`export answered ${res.statusCode}`));
        let bytes = 0;
        let lines = 0;
        let slowBytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines += 1;
          const elapsed = performance.now() - started;
          if (elapsed >= slowMs) return;
          slowBytes = bytes;
          // Ahead of the slow rate: stop reading until the rate catches up (the socket's buffers fill and
          // the server is asked to wait).
          const due = (bytes / slowRate) * 1000 - elapsed;
          if (due > 0) {
            res.pause();
            setTimeout(() => res.resume(), Math.min(due, slowMs - elapsed));
          }
        });
        res.on('end', () => {
          clearInterval(sampler);
          resolve({ bytes, lines, ms: performance.now() - started, samples, slowBytes });
        });
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

const peak = (samples: Sample[], key: 'rss' | 'anon' | 'file') => Math.max(...samples.map((s) => s[key]));
const mib = (n: number) => `${n.toFixed(0)} MiB`;

/** The exporting client and its generated log: made once per store (kept with --data-dir). */
async function prepare(store: Store, stateFile: string | undefined): Promise<{ clientId: number }> {
  if (stateFile && fs.existsSync(stateFile)) return JSON.parse(fs.readFileSync(stateFile, 'utf8'));
  const server = await startServer(store, port, { entry: args.entry });
  try {
    const { exporter } = await seedClients(server.url, ['exporter']);
    const agent = new http.Agent({ keepAlive: true });
    const generated = await call(
      agent,
      'POST',
      `${server.url}/_edgeplane/waap/generate`,
      json(OPERATOR),
      JSON.stringify({ client_ids: [exporter.clientId], events, days: 29, seed: 1 }),
    );
    agent.destroy();
    if (generated.status !== 200) throw new Error(`generate: ${generated.status} ${generated.body.slice(0, 300)}`);
    log(`generated in ${(generated.ms / 1000).toFixed(0)} s`);
    const state = { clientId: exporter.clientId };
    if (stateFile) fs.writeFileSync(stateFile, JSON.stringify(state));
    return state;
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const dataDir = args['data-dir'];
  if (dataDir) fs.mkdirSync(dataDir, { recursive: true });
  const databaseUrl = args['database-url'];
  const kept: Store | undefined = !dataDir
    ? undefined
    : databaseUrl
      ? { engine: 'postgres', env: { EDGEPLANE_DATABASE_URL: databaseUrl, EDGEPLANE_DATABASE_SCHEMA: 'csv_memory' }, drop: async () => {} }
      : { engine: 'sqlite', env: { EDGEPLANE_DATA_DIR: dataDir }, drop: async () => {} };
  const store = kept ?? (await freshStore(databaseUrl, 'csv_memory'));
  const threads = args['query-threads'];
  log(`csv-memory: ${events.toLocaleString('en')} events on ${store.engine}${threads ? `, ${threads} query threads` : ''}; load average ${loadAverage()}`);
  try {
    const { clientId } = await prepare(store, dataDir && path.join(dataDir, `csv-memory-${store.engine}.json`));
    // A fresh process, so the figures start from a server that has only started.
    const server = await startServer(store, port, { entry: args.entry, env: threads ? { EDGEPLANE_QUERY_THREADS: threads } : {} });
    const start = new Date(Date.now() - 29.5 * 86_400_000).toISOString();
    // One list call first: reader threads start with the first query, and their start is not the export's.
    const warm = await fetch(`${server.url}/_edgeplane/waap/requests.csv?client_id=${clientId}&start=${new Date(Date.now() - 60_000).toISOString()}`, {
      headers: { authorization: `APIKey ${OPERATOR}` },
    });
    await warm.text();
    await new Promise((r) => setTimeout(r, 2000));
    const idle = memoryOf(server.process.pid!);
    log('| | RSS | anonymous | file-backed |');
    log('|---|---:|---:|---:|');
    log(`| started, reader threads up, idle | ${mib(idle.rss)} | ${mib(idle.anon)} | ${mib(idle.file)} |`);
    for (let round = 1; round <= Number(args.repeat); round += 1) {
      const result = await exportCsv(server, `${server.url}/_edgeplane/waap/requests.csv?client_id=${clientId}&start=${start}`);
      await new Promise((r) => setTimeout(r, 3000));
      const after = memoryOf(server.process.pid!);
      const slow = result.samples.filter((s) => s.at < slowMs);
      const which = Number(args.repeat) > 1 ? ` (export ${round})` : '';
      log(`| peak while the client reads slowly${which} | ${mib(peak(slow, 'rss'))} | ${mib(peak(slow, 'anon'))} | ${mib(peak(slow, 'file'))} |`);
      log(
        `| peak over the whole export${which} | ${mib(peak(result.samples, 'rss'))} | ${mib(peak(result.samples, 'anon'))} | ${mib(peak(result.samples, 'file'))} |`,
      );
      log(`| 3 s after the export${which} | ${mib(after.rss)} | ${mib(after.anon)} | ${mib(after.file)} |`);
      log(
        `  exported ${result.lines - 1} rows, ${(result.bytes / 1e6).toFixed(0)} MB in ${(result.ms / 1000).toFixed(1)} s (the first ${slowMs / 1000} s read at ${(slowRate / 1024 / 1024).toFixed(1)} MiB/s: ${(result.slowBytes / 1e6).toFixed(0)} MB)`,
      );
      // Every 5 s: whether memory levels off (bounded) or keeps growing with what has been exported.
      const series = result.samples.filter((_, i) => i % 50 === 0).map((s) => `${(s.at / 1000).toFixed(0)}s ${s.anon.toFixed(0)}+${s.file.toFixed(0)}`);
      log(`  anonymous+file-backed MiB over time: ${series.join(', ')}`);
      if (result.lines - 1 !== events)
        log(`  note: ${events - (result.lines - 1)} events fell out of the exported window (generated over 29 days, exported from 29.5 days back)`);
    }
    await server.stop();
  } finally {
    await store.drop();
  }
}

await main();
