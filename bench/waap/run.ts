// WAAP request-log benchmark: generates N events over 30 days for C clients (the first holding a fifth),
// then measures, through HTTP against the built server (`npm run build` first) in a separate process,
// the list call with its exact count for the largest client over the whole 30 days, while a probe
// measures GET /iam/clients/me latency. The baseline of each shape is the same server's idle
// GET /iam/clients/me, measured in the same run: the ratio is what the query adds to the request floor.
//
//   npx tsx bench/waap/run.ts --events 10000000 --clients 50                      # embedded SQLite
//   npx tsx bench/waap/run.ts --events 10000000 --clients 50 --database-url postgres://postgres@127.0.0.1:5432/postgres
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config.js';
import { createIam } from '../../src/iam/index.js';
import { Clock } from '../../src/platform/clock.js';
import { dropPostgresSchema } from '../../src/platform/db/index.js';
import { openAndMigrate } from '../../src/server.js';
import { createWaap } from '../../src/waap/index.js';
import { startEdgeplane } from '../lib/servers.js';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '10000000' },
    clients: { type: 'string', default: '50' },
    iterations: { type: 'string', default: '200' },
    'database-url': { type: 'string' },
    'data-dir': { type: 'string', default: '/tmp/edgeplane-waap-bench' },
    port: { type: 'string', default: '18480' },
    'keep-data': { type: 'boolean', default: false },
    'reuse-data': { type: 'boolean', default: false },
  },
});
const events = Number(args.events);
const clientCount = Number(args.clients);
const iterations = Number(args.iterations);
const databaseUrl = args['database-url'];
const engine = databaseUrl ? 'postgres' : 'sqlite';
const schema = 'waap_bench';
const dataDir = args['data-dir']!;
const port = Number(args.port);
// Calls per shape left out of the figures: the first reads of a freshly started server fill its caches.
const WARM_UP = 30;
const stateFile = path.join(dataDir, `state-${engine}.json`);
const log = (line: string) => process.stdout.write(`${line}\n`);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
function request(method: string, url: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; body: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function prepare(): Promise<{
  token: string;
  clientId: number;
  otherClientId: number;
  operator: string;
  ingest: Record<string, number> & { ingestSeconds?: number; ingestWall?: number; ingestCpu?: number };
}> {
  if (args['reuse-data'] && fs.existsSync(stateFile)) return JSON.parse(fs.readFileSync(stateFile, 'utf8'));
  if (databaseUrl) await dropPostgresSchema(databaseUrl, schema);
  else fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true });
  const config = loadConfig(
    {},
    { dataDir, databaseUrl, databaseSchema: databaseUrl ? schema : undefined, adminToken: 'bench-operator-token-0123456789abcdef' },
  );
  const db = await openAndMigrate(config);
  const clock = new Clock();
  const iam = createIam({ config, db, clock });
  const clientIds: number[] = [];
  let token = '';
  for (let i = 0; i < clientCount; i += 1) {
    const { clientId, adminUserId } = await iam.accounts.createAccount({ email: `bench${i}@example.test`, companyName: `Bench ${i}` });
    if (i === 0) token = (await iam.tokens.issue({ clientId, userId: adminUserId, role: 'Administrators', name: 'bench' })).token;
    clientIds.push(clientId);
  }
  const waap = createWaap({ config, db, clock });
  log(`generating ${events} events for ${clientCount} clients on ${engine} ...`);
  // Ingestion is timed on its own: the generator's batches are timed from the moment they are handed
  // to the ingestor until they are written, so generating the events is not counted as ingestion.
  const ingestRows = waap.ingestor.ingestRows.bind(waap.ingestor);
  let ingestMs = 0;
  let ingestCpu = 0;
  waap.ingestor.ingestRows = async (rows) => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const accepted = await ingestRows(rows);
    ingestMs += performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    ingestCpu += (cpu.user + cpu.system) / 1e6;
    return accepted;
  };
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  const result = await waap.generate({ clientIds, events, days: 30, seed: 1, firstShare: clientCount > 1 ? 0.2 : 1 });
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  log(
    `generated+ingested ${result.accepted} in ${seconds.toFixed(1)} s: ${Math.round(result.accepted / seconds)} events/s wall, ${Math.round(result.accepted / cpuSeconds)} events/s per CPU-second`,
  );
  log(
    `ingestion alone: ${(ingestMs / 1000).toFixed(1)} s: ${Math.round(result.accepted / (ingestMs / 1000))} events/s wall, ${Math.round(result.accepted / ingestCpu)} events/s per CPU-second`,
  );
  // What an operator does after a bulk load: statistics for the planner and, on PostgreSQL, a vacuum so
  // the counters can be read by index-only scans.
  if (engine === 'postgres') await db.raw.pg!.query('vacuum analyze');
  else db.raw.sqlite!.exec('analyze');
  await db.close();
  const state = {
    token,
    clientId: clientIds[0],
    otherClientId: clientIds[1] ?? clientIds[0],
    operator: 'bench-operator-token-0123456789abcdef',
    ingest: {
      events: result.accepted,
      seconds,
      wallRate: result.accepted / seconds,
      cpuRate: result.accepted / cpuSeconds,
      ingestSeconds: ingestMs / 1000,
      ingestWall: result.accepted / (ingestMs / 1000),
      ingestCpu: result.accepted / ingestCpu,
      largest: result.perClient[clientIds[0]],
    },
  };
  fs.writeFileSync(stateFile, JSON.stringify(state));
  return state;
}

async function startServer(): Promise<() => Promise<void>> {
  const env: Record<string, string> = { EDGEPLANE_ADMIN_TOKEN: 'bench-operator-token-0123456789abcdef', EDGEPLANE_MEMORY: 'false' };
  if (databaseUrl) Object.assign(env, { EDGEPLANE_DATABASE_URL: databaseUrl, EDGEPLANE_DATABASE_SCHEMA: schema });
  else env.EDGEPLANE_DATA_DIR = dataDir;
  const server = await startEdgeplane(port, env);
  return server.stop;
}

async function main() {
  const state = await prepare();
  const stop = await startServer();
  const base = `http://127.0.0.1:${port}`;
  const headers = { authorization: `APIKey ${state.token}` };
  try {
    const start = () => new Date(Date.now() - 30 * 86_400_000 + 60_000).toISOString();
    const first = JSON.parse((await request('GET', `${base}/waap/v1/analytics/requests?start=${start()}&limit=1&decision=blocked`, headers)).body);
    const ip = first.results[0].client_ip as string;
    const shapes: [string, string][] = [
      ['no filter', ''],
      ['decision in (blocked, monitored)', '&decision=blocked&decision=monitored'],
      ['country and method', '&countries=US&http_methods=GET'],
      ['path glob /api/*', `&path=${encodeURIComponent('/api/*')}`],
      ['one client IP', `&ips=${encodeURIComponent(ip)}`],
      ['deep page (offset 100000)', '&offset=100000'],
    ];
    // The baseline: GET /iam/clients/me with nothing else running (also the probe's idle figure).
    const idle: number[] = [];
    for (let i = 0; i < 200 + WARM_UP; i += 1) {
      const ms = (await request('GET', `${base}/iam/clients/me`, headers)).ms;
      if (i >= WARM_UP) idle.push(ms);
    }
    const floor = percentile(idle, 50);
    const rows: string[] = [];
    const probe: number[] = [];
    let probing = true;
    const probeLoop = (async () => {
      while (probing) {
        probe.push((await request('GET', `${base}/iam/clients/me`, headers)).ms);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    for (const [name, query] of shapes) {
      const times: number[] = [];
      let count = 0;
      for (let i = 0; i < iterations + WARM_UP; i += 1) {
        const res = await request('GET', `${base}/waap/v1/analytics/requests?start=${start()}${query}`, headers);
        if (res.status !== 200) throw new Error(`${name}: ${res.status} ${res.body.slice(0, 300)}`);
        if (i >= WARM_UP) times.push(res.ms);
        count = JSON.parse(res.body).count;
      }
      rows.push(
        `| ${name} | ${count} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 99).toFixed(1)} | ${(percentile(times, 50) / floor).toFixed(1)} |`,
      );
      log(rows[rows.length - 1]);
    }
    probing = false;
    await probeLoop;
    // Bulk NDJSON ingestion through HTTP (gzip-compressed body), into a new domain of another client so
    // a later --reuse-data run still measures the largest client as generated.
    const operator = { authorization: `APIKey ${state.operator}`, 'content-type': 'application/json' };
    await request('PUT', `${base}/_edgeplane/waap/clients/${state.otherClientId}`, operator, Buffer.from(JSON.stringify({ domain_quota: 1000 })));
    const made = await request(
      'POST',
      `${base}/_edgeplane/waap/domains`,
      operator,
      Buffer.from(JSON.stringify({ client_id: state.otherClientId, name: `bulk-${Date.now()}.example.com` })),
    );
    const domains = made.status === 201 ? [JSON.parse(made.body) as { id: number }] : [];
    if (domains.length === 0) throw new Error(`bulk domain: ${made.status} ${made.body}`);
    const lines: string[] = [];
    const now = Date.now();
    for (let i = 0; i < 200_000; i += 1) {
      lines.push(
        JSON.stringify({
          domain_id: domains[0].id,
          request_time: now - i * 10,
          decision: i % 10 === 0 ? 'blocked' : 'passed',
          network: { client_ip: `10.1.${(i >> 8) & 255}.${i & 255}`, country: 'US' },
          method: 'GET',
          path: `/bulk/${i % 100}`,
          http_status_code: i % 10 === 0 ? 403 : 200,
          session_id: (i % 5000).toString(16).padStart(32, '0'),
        }),
      );
    }
    const body = gzipSync(lines.join('\n'));
    const ingest = await request(
      'POST',
      `${base}/_edgeplane/waap/events`,
      { authorization: `APIKey ${state.operator}`, 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
      body,
    );
    const report = JSON.parse(ingest.body);
    const httpRate = report.accepted / (ingest.ms / 1000);
    const lines2 = [
      `### ${engine} (${state.ingest.events.toLocaleString('en')} events, largest client ${state.ingest.largest.toLocaleString('en')}, ${iterations} calls per shape)`,
      '',
      '| shape | count | p50 ms | p99 ms | p50 / idle GET /iam/clients/me p50 |',
      '|---|---:|---:|---:|---:|',
      ...rows,
      '',
      `- generator + ingestion: ${Math.round(state.ingest.wallRate).toLocaleString('en')} events/s wall, ${Math.round(state.ingest.cpuRate).toLocaleString('en')} events/s per CPU-second (${state.ingest.seconds.toFixed(0)} s for all)`,
      `- ingestion alone (generator's batches, ${state.ingest.ingestSeconds?.toFixed(0)} s): ${Math.round(state.ingest.ingestWall ?? 0).toLocaleString('en')} events/s wall, ${Math.round(state.ingest.ingestCpu ?? 0).toLocaleString('en')} events/s per CPU-second`,
      `- HTTP NDJSON ingestion (200,000 gzip lines, one request): ${Math.round(httpRate).toLocaleString('en')} events/s (${report.accepted} accepted, ${report.rejected} rejected)`,
      `- GET /iam/clients/me: idle p50 ${percentile(idle, 50).toFixed(1)} ms / p99 ${percentile(idle, 99).toFixed(1)} ms; during the WAAP calls p50 ${percentile(probe, 50).toFixed(1)} ms / p99 ${percentile(probe, 99).toFixed(1)} ms / max ${Math.max(...probe).toFixed(1)} ms (${probe.length} probes)`,
    ];
    log(`\n${lines2.join('\n')}`);
    fs.writeFileSync(path.join('bench/waap', `results-${engine}.md`), `${lines2.join('\n')}\n`);
  } finally {
    await stop();
    agent.destroy();
    if (!args['keep-data'] && databaseUrl) await dropPostgresSchema(databaseUrl, schema);
  }
}

await main();
