// bench/instructions: instructions the server's main thread executes per request, counted by valgrind's
// callgrind, for Edgeplane, Fastify with nothing registered and a bare node:http server sending the same
// bytes, each alone in the same run. Prints each count and its ratio to the bare server's.
//   npm run build && npx tsx bench/instructions/run.ts [--requests 2000] [--rounds 3] [--runs 2]
//   --path <path>       another authenticated GET route (default /iam/clients/me)
//   --compare <entry>   also an older build (its dist/edgeplane.mjs): before/after
//   --connections <n>   autocannon's connections (default 10)
//   --runs <n>          fresh processes of each server, one after the other (default 2)
//
// Why: on a shared 2-core machine throughput and CPU time per request move by 30-50% from one run to the
// next (bench/README.md), so a change of a few percent cannot be seen. Counted instructions do not depend
// on what else the machine runs: a process's rounds agree within 2%. Processes of one build differ more
// (up to a third seen: what V8's compiler threads optimise, and when), hence --runs. The counts are of
// user-space work only (the kernel's share, one read and one writev a request, is the same
// for all three servers) and weigh every instruction alike (a cache miss costs as much as an add).
//
// Under callgrind a server runs about 50 times slower, so work done per unit of time (timers, such as
// prom-client's event-loop monitor every 10 ms) weighs about 50 times more per request than at full
// speed. Each server's main thread is therefore also counted idle for a few seconds after its warm-up,
// and that rate times each round's duration is taken off the round's count ("net"). Servers run one at a
// time: a second valgrind on the other core changes how requests batch, and the counts with it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { benchEntry, type Child, median, startBare, startEdgeplane, type Wrapper } from '../lib/servers.js';
import { option } from '../lib/options.js';

const requests = Number(option('requests', '2000'));
const rounds = Number(option('rounds', '3'));
const runs = Number(option('runs', '2'));
const connections = Number(option('connections', '10'));
const route = option('path', '/iam/clients/me');
const compare = option('compare', '');
const idleMs = 5_000;
/** Requests sent at least and at most to warm a server up (small batches look steady too early). */
const MIN_WARM_UP = 6_000;
const MAX_WARM_UP = 40_000;
const apiKey = 'bench-instructions-token-0123456789';
const headers = { authorization: `APIKey ${apiKey}` };

try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('bench/instructions needs valgrind (Debian package valgrind)');
  process.exit(1);
}

const outDir = mkdtempSync(path.join(tmpdir(), 'edgeplane-callgrind-'));
/** The server's node under callgrind: one output file per thread and dump, JIT code allowed to change. */
function underCallgrind(name: string): Wrapper {
  const out = path.join(outDir, `${name}.%p`);
  return {
    command: ['valgrind', '-q', '--tool=callgrind', '--separate-threads=yes', '--smc-check=all-non-file', `--callgrind-out-file=${out}`],
    startTimeoutMs: 180_000,
  };
}

/** Main-thread instructions since the last zeroing: dumps, reads the dump's thread-1 file. */
function dumpMainThread(name: string, pid: number, dump: number): number {
  execFileSync('callgrind_control', ['-d', String(pid)], { stdio: 'ignore' });
  // callgrind names thread n's file of dump d `<out>.<pid>.<d>-<nn>`; thread 1 is the main thread.
  const file = path.join(outDir, `${name}.${pid}.${dump}-01`);
  const summary = /^summary: (\d+)$/m.exec(readFileSync(file, 'utf8'));
  if (!summary) throw new Error(`no summary in ${file}`);
  return Number(summary[1]);
}

async function send(child: Child, amount: number, requestHeaders: Record<string, string> | undefined) {
  const started = performance.now();
  const result = await autocannon({ url: `${child.url}${route}`, connections, amount, headers: requestHeaders });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${child.url}${route}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return performance.now() - started;
}

/**
 * Sends batches of requests until the server's rate under callgrind stops rising. Valgrind runs one
 * thread at a time, so V8's compiler threads finish late: a fixed warm-up left the first rounds
 * 10-30% above the later ones. Returns the requests sent.
 */
async function warmUp(child: Child, requestHeaders: Record<string, string> | undefined): Promise<number> {
  let sent = 0;
  let best = 0;
  let steady = 0;
  while ((steady < 2 || sent < MIN_WARM_UP) && sent < MAX_WARM_UP) {
    const rate = requests / ((await send(child, requests, requestHeaders)) / 1000);
    sent += requests;
    steady = rate < best * 1.05 ? steady + 1 : 0;
    best = Math.max(best, rate);
  }
  return sent;
}

interface Counted {
  name: string;
  /** Requests sent before counting. */
  warmed: number;
  idlePerSecond: number;
  gross: number[];
  net: number[];
}

/** `runs` fresh processes of one server, counted one after the other. */
async function countRuns(name: string, start: (under: Wrapper) => Promise<Child>, requestHeaders?: Record<string, string>): Promise<Counted[]> {
  const counted: Counted[] = [];
  for (let run = 1; run <= runs; run += 1) counted.push(await count(name, run, start, requestHeaders));
  return counted;
}

async function count(name: string, run: number, start: (under: Wrapper) => Promise<Child>, requestHeaders?: Record<string, string>): Promise<Counted> {
  const file = `${name.replace(/[^a-z0-9]+/gi, '-')}-${run}`;
  const child = await start(underCallgrind(file));
  const pid = child.process.pid!;
  let dump = 0;
  try {
    const warmed = await warmUp(child, requestHeaders);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // the warm-up's last collections
    execFileSync('callgrind_control', ['-z', String(pid)], { stdio: 'ignore' });
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    const idlePerSecond = dumpMainThread(file, pid, (dump += 1)) / (idleMs / 1000);
    const counted: Counted = { name, warmed, idlePerSecond, gross: [], net: [] };
    for (let round = 1; round <= rounds; round += 1) {
      execFileSync('callgrind_control', ['-z', String(pid)], { stdio: 'ignore' });
      const ms = await send(child, requests, requestHeaders);
      const instructions = dumpMainThread(file, pid, (dump += 1));
      counted.gross.push(instructions / requests);
      counted.net.push((instructions - (idlePerSecond * ms) / 1000) / requests);
      console.log(
        `${name} process ${run} round ${round}: ${Math.round(instructions / requests)} instructions a request, ${Math.round(counted.net.at(-1)!)} net of idle work (${(requests / (ms / 1000)).toFixed(0)} req/s under callgrind)`,
      );
    }
    return counted;
  } finally {
    await child.stop();
  }
}

try {
  const probe = await startEdgeplane(18191, { EDGEPLANE_API_KEY: apiKey });
  const sample = await fetch(`${probe.url}${route}`, { headers });
  const body = await sample.text();
  await probe.stop();
  if (sample.status !== 200) throw new Error(`Edgeplane answered ${sample.status} to ${route}`);
  const contentType = { 'content-type': sample.headers.get('content-type') ?? 'application/json; charset=utf-8' };

  const results: Counted[][] = [];
  results.push(await countRuns('edgeplane', (under) => startEdgeplane(18192, { EDGEPLANE_API_KEY: apiKey }, benchEntry(), [], under), headers));
  if (compare) {
    results.push(await countRuns('edgeplane (compared build)', (under) => startEdgeplane(18193, { EDGEPLANE_API_KEY: apiKey }, compare, [], under), headers));
  }
  results.push(await countRuns('fastify (nothing registered)', (under) => startBare(18194, body, contentType, 'framework', under)));
  results.push(await countRuns('bare node:http', (under) => startBare(18195, body, contentType, 'bare', under)));

  // A process's rounds agree within about 2%; processes of the same build have differed by up to a third
  // (V8's compiler threads decide what is optimised, and when), so each process is reported.
  const bareNet = median(results.at(-1)!.map((r) => median(r.net)));
  console.log(
    `\nGET ${route}: main-thread instructions a request under callgrind, ${runs} processes x ${rounds} rounds of ${requests}, ${connections} connections`,
  );
  for (const processes of results) {
    const nets = processes.map((r) => median(r.net));
    const each = processes.map(
      (r) => `${Math.round(median(r.net))} (gross ${Math.round(median(r.gross))}, idle ${(r.idlePerSecond / 1e6).toFixed(2)}M/s, warmed with ${r.warmed})`,
    );
    console.log(
      `${processes[0].name}: median ${Math.round(median(nets))} net of idle work, ${(median(nets) / bareNet).toFixed(2)}x bare; processes ${each.join('; ')}`,
    );
  }
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
