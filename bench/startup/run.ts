// bench/startup: spawn-to-ready time of the built server (first `GET /_edgeplane/health` answering 200),
// on a fresh data dir, on an existing (already migrated) data dir and with --memory, against a bare
// node:http server spawned the same way in the same run. Runs are interleaved so machine noise hits every
// kind alike. Prints median, p90 and the ratio of medians to the bare server.
//   npm run build && npx tsx bench/startup/run.ts [--runs 15] [--entry dist/edgeplane.mjs] [--node-options "..."]
// --compare <entry> measures another build in the same runs (e.g. an older checkout's dist/src/cli.js).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { EDGEPLANE_ENTRY, median, root } from '../lib/servers.js';
import { option } from '../lib/options.js';

const args = process.argv.slice(2);
const runs = Number(option('runs', '15'));
const entry = path.resolve(root, option('entry', EDGEPLANE_ENTRY));
const nodeOptions = option('node-options', '').split(' ').filter(Boolean);
const compare = args.includes('--compare') ? path.resolve(root, option('compare', '')) : undefined;
const port = Number(option('port', '18291'));
const POLL_MS = 2;

/** One GET without keep-alive; resolves with the status, or 0 while nothing listens yet. */
function probe(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
  });
}

/**
 * CPU time the process has used so far, all its threads (Linux /proc; undefined elsewhere). On a shared
 * machine wall time depends on what else runs; CPU time much less so.
 */
function cpuMs(pid: number): number | undefined {
  try {
    let ns = 0;
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) ns += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    return ns / 1e6;
  } catch {
    return undefined;
  }
}

interface Sample {
  wallMs: number;
  cpuMs?: number;
}

/** Spawns `argv`, measures until `url` answers 200 (wall time from spawn, and the child's CPU time), then stops the child. */
async function timeToReady(argv: string[], url: string, env: Record<string, string> = {}): Promise<Sample> {
  const started = performance.now();
  const child = spawn(process.execPath, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${argv.join(' ')} exited with ${child.exitCode}: ${stderr}`);
      if ((await probe(url)) === 200) return { wallMs: performance.now() - started, cpuMs: cpuMs(child.pid!) };
      if (performance.now() - started > 20_000) throw new Error(`${url} did not answer 200 within 20 s: ${stderr}`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-startup-'));
const serveWith = (file: string, ...flags: string[]) => [
  ...nodeOptions,
  file,
  'serve',
  '--port',
  String(port),
  '--host',
  '127.0.0.1',
  '--log-level',
  'error',
  ...flags,
];
const health = `http://127.0.0.1:${port}/_edgeplane/health`;
let fresh = 0;
/** The three ways to start one build: fresh data dir, existing (already migrated) data dir, --memory. */
function edgeplaneKinds(label: string, file: string): Record<string, () => Promise<Sample>> {
  const existing = path.join(scratch, `existing-${label}`);
  return {
    [`${label} --memory`]: () => timeToReady(serveWith(file, '--memory'), health),
    [`${label}, fresh data dir`]: () => timeToReady(serveWith(file, '--data-dir', path.join(scratch, `fresh-${(fresh += 1)}`)), health),
    [`${label}, existing data dir`]: () => timeToReady(serveWith(file, '--data-dir', existing), health),
  };
}
const kinds: Record<string, () => Promise<Sample>> = {
  'bare node:http': () => timeToReady([path.join(root, 'bench/lib/bare-server.mjs'), String(port)], `http://127.0.0.1:${port}/`),
  ...edgeplaneKinds('edgeplane', entry),
  ...(compare ? edgeplaneKinds('compared', compare) : {}),
};
// The caller's EDGEPLANE_* settings (a database URL, a port, a seed) must not steer the measured servers.
for (const name of Object.keys(process.env)) if (name.startsWith('EDGEPLANE_')) delete process.env[name];

const loadBefore = os.loadavg();
try {
  // One untimed start of each kind first: creates and migrates the existing data dirs, warms the file cache.
  for (const measure of Object.values(kinds)) await measure();
  const samples: Record<string, Sample[]> = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
  for (let run = 0; run < runs; run += 1) {
    for (const [kind, measure] of Object.entries(kinds)) samples[kind].push(await measure());
  }
  const loadAfter = os.loadavg();
  const p90 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(values.length * 0.9) - 1)];
  const ms = (value: number) => `${value.toFixed(0)} ms`.padStart(8);
  const bare = median(samples['bare node:http'].map((s) => s.wallMs));
  console.log(
    `spawn -> first 200, ${runs} interleaved runs each, entry ${path.relative(root, entry)}${compare ? `, compared: ${compare}` : ''}${nodeOptions.length ? ` with ${nodeOptions.join(' ')}` : ''}`,
  );
  console.log(
    `node ${process.version}, ${os.cpus().length} cores, load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${loadAfter.map((l) => l.toFixed(2)).join(' ')} after\n`,
  );
  console.log(`${'kind'.padEnd(32)} ${'median'.padStart(8)} ${'p90'.padStart(8)} ${'min'.padStart(8)} ${'x bare'.padStart(8)} ${'CPU med'.padStart(8)}`);
  for (const [kind, values] of Object.entries(samples)) {
    const wall = values.map((s) => s.wallMs);
    const cpu = values.flatMap((s) => (s.cpuMs === undefined ? [] : [s.cpuMs]));
    const m = median(wall);
    console.log(
      `${kind.padEnd(32)} ${ms(m)} ${ms(p90(wall))} ${ms(Math.min(...wall))} ${(m / bare).toFixed(2).padStart(8)} ${cpu.length ? ms(median(cpu)) : '       -'}`,
    );
  }
  console.log("\nmedian, p90, min: wall time from spawn to the first 200; x bare: median over the bare server's median;");
  console.log('CPU med: median CPU time the server process (all threads) had used when it answered.');
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
