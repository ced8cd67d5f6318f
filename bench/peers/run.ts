// bench/peers: Edgeplane next to Prism, the usual mock server for an OpenAPI document, in the same run:
// start-up (spawn to the first answer), throughput, p99 latency and resident memory, side by side, with a
// bare node:http server as the same-run baseline.
//   npm run build && npx tsx bench/peers/run.ts --openapi <file> [--seconds 5] [--rounds 3] [--starts 3]
//     [--paths /iam/clients/me,/cloud/v1/projects] [--prism-version 5.16.0]
//
// Prism (@stoplight/prism-cli, from the npm registry) is fetched at bench time with `npm exec` (npx's
// cache; nothing is added to this package) and serves the provider's OpenAPI document, which this project
// does not ship: --openapi names it and is required (the path is printed). Prism runs as `prism mock <document> -v error` (static examples, request validation;
// its per-request log off, as Edgeplane's is). Edgeplane is the built server in memory with an API key.
// Both get the same authenticated GETs; Prism answers each with the document's example, Edgeplane with
// the account's data. Each line gives the server's CPU time per request (from /proc) beside its
// throughput, and its RSS after the load.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchEntry, type Child, cpuMicros, load, median, root, rssMiB } from '../lib/servers.js';
import { option } from '../lib/options.js';

const openapiOption = option('openapi', '');
if (!openapiOption) {
  console.error("bench/peers: --openapi <file> is required: the provider's OpenAPI document, which this project does not ship");
  process.exit(2);
}
const openapi = path.resolve(openapiOption);
const seconds = Number(option('seconds', '5'));
const rounds = Number(option('rounds', '3'));
const starts = Number(option('starts', '3'));
const prismVersion = option('prism-version', '5.16.0');
const paths = option('paths', '/iam/clients/me,/cloud/v1/projects,/cdn/resources').split(',');
const apiKey = 'bench-peers-token-0123456789';
const headers = { authorization: `APIKey ${apiKey}` };

if (!fs.existsSync(openapi)) {
  console.error(`The provider's OpenAPI document is not at ${openapi}: give its path with --openapi <file>.`);
  process.exit(2);
}

/** Prism's entry script, installed in npx's cache by npm exec on first use. */
function prismEntry(): string {
  const bin = execFileSync('npm', ['exec', '--yes', `--package=@stoplight/prism-cli@${prismVersion}`, '--', 'which', 'prism'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
  return fs.realpathSync(bin);
}

/** One GET; resolves with the status, or 0 while nothing listens. */
function probe(url: string): Promise<number> {
  return new Promise((resolve) => {
    http
      .get(url, { agent: false, headers }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', () => resolve(0));
  });
}

interface Server {
  name: string;
  argv: string[];
  env?: Record<string, string>;
  port: number;
}

/** Spawns a server and waits for its first answer on the first path: wall time from spawn, and the process. */
async function start(server: Server): Promise<{ child: Child; startupMs: number }> {
  const started = performance.now();
  const processEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('EDGEPLANE_')));
  const child = spawn(process.execPath, server.argv, { env: { ...processEnv, ...server.env }, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${server.port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${server.name} exited with ${child.exitCode}`);
    const status = await probe(`${url}${paths[0]}`);
    if (status > 0) break;
    if (performance.now() - started > 120_000) throw new Error(`${server.name} did not answer within 120 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
  const startupMs = performance.now() - started;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { child: { url, process: child, stop }, startupMs };
}

const bareBody = await (async () => {
  const probeServer = await start({
    name: 'edgeplane',
    argv: [benchEntry(), 'serve', '--memory', '--port', '18611', '--host', '127.0.0.1', '--log-level', 'error'],
    env: { EDGEPLANE_API_KEY: apiKey },
    port: 18611,
  });
  const text = await (await fetch(`${probeServer.child.url}${paths[0]}`, { headers })).text();
  await probeServer.child.stop();
  return text;
})();

console.log(`Prism ${prismVersion} from the npm registry; OpenAPI document: ${openapi}`);
const prism = prismEntry();
const servers: Server[] = [
  {
    name: 'edgeplane',
    argv: [benchEntry(), 'serve', '--memory', '--port', '18611', '--host', '127.0.0.1', '--log-level', 'error'],
    env: { EDGEPLANE_API_KEY: apiKey },
    port: 18611,
  },
  { name: `prism ${prismVersion}`, argv: [prism, 'mock', openapi, '-h', '127.0.0.1', '-p', '18612', '-v', 'error'], port: 18612 },
  {
    name: 'bare node:http',
    argv: [path.join(root, 'bench/lib/bare-server.mjs'), '18613'],
    env: { BARE_BODY: bareBody, BARE_HEADERS: JSON.stringify({ 'content-type': 'application/json; charset=utf-8' }) },
    port: 18613,
  },
];

// Start-up: each server spawned `starts` times, kinds interleaved; RSS right after its first answer.
const startup = new Map<string, { ms: number[]; rss: number[] }>(servers.map((s) => [s.name, { ms: [], rss: [] }]));
for (let i = 0; i < starts; i += 1) {
  for (const server of servers) {
    const { child, startupMs } = await start(server);
    startup.get(server.name)!.ms.push(startupMs);
    startup.get(server.name)!.rss.push(rssMiB(child));
    await child.stop();
  }
}

// Load: one process of each, the paths in turn, servers alternating within each round.
interface Run {
  rps: number;
  p99: number;
  cpu: number;
  non2xx: number;
}
const running = await Promise.all(servers.map(async (server) => ({ server, child: (await start(server)).child })));
const results = new Map<string, Run[]>();
const rssAfter = new Map<string, number>();
try {
  for (const { child } of running) for (const p of paths) await load(`${child.url}${p}`, { seconds: 1, headers });
  for (let round = 1; round <= rounds; round += 1) {
    for (const p of paths) {
      for (const { server, child } of running) {
        const before = cpuMicros(child);
        const r = await load(`${child.url}${p}`, { seconds, headers });
        const key = `${server.name} ${p}`;
        results.set(key, [
          ...(results.get(key) ?? []),
          { rps: r.requestsPerSecond, p99: r.p99, cpu: (cpuMicros(child) - before) / Math.max(1, r.requests), non2xx: r.non2xx },
        ]);
      }
    }
  }
  for (const { server, child } of running) rssAfter.set(server.name, rssMiB(child));
} finally {
  for (const { child } of running) await child.stop();
}

console.log(`\nstart-up: spawn to the first answer of GET ${paths[0]}, median of ${starts} interleaved starts; RSS then and after the load`);
console.log(`${'server'.padEnd(20)} ${'start-up'.padStart(10)} ${'RSS ready'.padStart(10)} ${'RSS loaded'.padStart(11)}`);
for (const server of servers) {
  const s = startup.get(server.name)!;
  console.log(
    `${server.name.padEnd(20)} ${`${median(s.ms).toFixed(0)} ms`.padStart(10)} ${`${median(s.rss).toFixed(0)} MiB`.padStart(10)} ${`${rssAfter.get(server.name)!.toFixed(0)} MiB`.padStart(11)}`,
  );
}
console.log(`\nthroughput: autocannon, 50 connections, ${rounds} x ${seconds} s rounds per path, servers alternating; medians`);
for (const p of paths) {
  console.log(`GET ${p}`);
  const bare = results.get(`bare node:http ${p}`)!;
  for (const server of servers) {
    const runs = results.get(`${server.name} ${p}`)!;
    const ratio = median(runs.map((r, i) => r.rps / bare[i].rps));
    const refused = runs.reduce((n, r) => n + r.non2xx, 0);
    console.log(
      `  ${server.name.padEnd(20)} ${median(runs.map((r) => r.rps))
        .toFixed(0)
        .padStart(7)} req/s, p99 ${median(runs.map((r) => r.p99))} ms, ${median(runs.map((r) => r.cpu)).toFixed(0)} us CPU/req, ` +
        `${ratio.toFixed(3)} of bare${server.name === 'bare node:http' ? " (same bytes as edgeplane's first path)" : ''}${refused ? `, non-2xx ${refused}` : ''}`,
    );
  }
}
