// Noisy neighbours: does one client's worst traffic slow everyone else down? One built server (a SQLite
// data dir, or a fresh PostgreSQL schema); a noisy client (noise.ts, its own process) sends the worst
// request of each product in a loop, while a victim client's GET /iam/clients/me and GET
// /cloud/v1/projects latencies are measured, against phases of the same run without the noise. Quiet
// and noisy phases alternate (`--rounds`), so the machine's own load hits both alike. Goal: victim p99
// with the noise at most 1.5 times its p99 without. Each kind is sent once before the first phase (warm-up):
// first calls of routes compile on the main thread, which bench/first-call measures.
// The victim also calls a bare node:http server beside it that answers the bytes of GET /iam/clients/me
// (the floor): what the same noise does to a server that does nothing, which is the machine's share of
// the ratio (the noise client, the server's threads and the victim share the cores).
//
//   npm run build && npx tsx bench/noisy/run.ts [--database-url postgres://...] [--events 300000]
//     [--seconds 15] [--rounds 3] [--noise all|kind,...] [--each] [--profile DIR] [--entry FILE]
//   --each   after all kinds together, each kind alone (which one breaks the goal)
//   --profile DIR   the server runs with --cpu-prof; its profiles are summarised at the end
//   --env NAME=VALUE   a setting of the server (repeatable), e.g. EDGEPLANE_HEAP_GROWTH=0 to compare
//   --node-args "..."  flags for the server's node, e.g. "--trace-gc" to see its collections
//   --idle-seconds N   after the run, wait N s (default 60; 0: not at all) and print the server's memory again
import { fork } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ALL_KINDS, type Fixtures, setUp } from './fixtures.js';
import { call, cpuMsOf, freshStore, loadAverage, memoryOf, percentile, startServer, type Server } from './lib.js';
import { summariseDir } from './profile.js';
import { type Child, settingsOf, startBare } from '../lib/servers.js';

const { values: args } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    events: { type: 'string', default: '300000' },
    seconds: { type: 'string', default: '15' },
    rounds: { type: 'string', default: '3' },
    noise: { type: 'string', default: 'all' },
    each: { type: 'boolean', default: false },
    profile: { type: 'string' },
    entry: { type: 'string' },
    env: { type: 'string', multiple: true, default: [] },
    'node-args': { type: 'string', default: '' },
    port: { type: 'string', default: '18591' },
    'idle-seconds': { type: 'string', default: '60' },
  },
});
const here = path.dirname(fileURLToPath(import.meta.url));
const phaseMs = Number(args.seconds) * 1000;
const rounds = Number(args.rounds);
const log = (line: string) => process.stdout.write(`${line}\n`);
const GOAL = 1.5;
/** Pause between two victim requests: a steady client, not a load test of its own. */
const VICTIM_PAUSE_MS = 10;

const VICTIM_CALLS = [
  { name: 'GET /iam/clients/me', path: '/iam/clients/me' },
  { name: 'GET /cloud/v1/projects', path: '/cloud/v1/projects' },
] as const;
/** The floor's row in the latencies and the report. */
const FLOOR = 'floor: bare node:http, same bytes';
/** Every latency series of a phase: the victim's calls, then the floor. */
const MEASURED = [...VICTIM_CALLS.map((c) => c.name), FLOOR];

type Latencies = Record<string, number[]>;

/**
 * The victim: its calls in turn, one at a time, for `ms`; latencies per call. After each Edgeplane call it
 * calls the floor (a bare server beside it) once, so both see the same moments of the phase.
 */
async function victim(fixtures: Fixtures, floorUrl: string, ms: number): Promise<Latencies> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const floorAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const out: Latencies = Object.fromEntries(MEASURED.map((name) => [name, []]));
  const headers = { authorization: `APIKey ${fixtures.victim.token}` };
  const end = performance.now() + ms;
  while (performance.now() < end) {
    for (const c of VICTIM_CALLS) {
      const answer = await call(agent, 'GET', `${fixtures.url}${c.path}`, headers);
      if (answer.status !== 200) throw new Error(`victim ${c.name}: ${answer.status} ${answer.body.slice(0, 200)}`);
      out[c.name].push(answer.ms);
      out[FLOOR].push((await call(floorAgent, 'GET', floorUrl, {})).ms);
      await new Promise((r) => setTimeout(r, VICTIM_PAUSE_MS));
    }
  }
  agent.destroy();
  floorAgent.destroy();
  return out;
}

/** The floor: a bare node:http server answering what the victim's first call answers, with its content type. */
async function startFloor(fixtures: Fixtures, port: number): Promise<Child> {
  const agent = new http.Agent({ keepAlive: false });
  const answer = await call(agent, 'GET', `${fixtures.url}${VICTIM_CALLS[0].path}`, { authorization: `APIKey ${fixtures.victim.token}` });
  agent.destroy();
  return startBare(port, answer.body, { 'content-type': 'application/json; charset=utf-8' });
}

type NoiseSummary = Record<string, { n: number; p50: number; max: number; statuses: Record<string, number> }>;

/** The noisy client in its own process, until `stop` is called; resolves with what it sent. */
async function startNoise(fixtures: Fixtures, kinds: string[]): Promise<{ stop(): Promise<NoiseSummary> }> {
  const child = fork(path.join(here, 'noise.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, NOISE_FIXTURES: JSON.stringify(fixtures), NOISE_KINDS: kinds.join(',') },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the noise process exited with ${code}`)));
  });
  return {
    stop: () =>
      new Promise((resolve) => {
        child.once('message', (message) => resolve((message as { summary: NoiseSummary }).summary));
        child.send('stop');
      }),
  };
}

/**
 * One request of each kind before the first phase: the first call of a route compiles its validators and
 * serializers on the main thread (tens of ms; bench/first-call measures that), which would otherwise land
 * in the first noisy phase only and make it a measure of start-up, not of the noise.
 */
async function warmUp(fixtures: Fixtures, kinds: string[]): Promise<void> {
  const child = fork(path.join(here, 'noise.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, NOISE_FIXTURES: JSON.stringify(fixtures), NOISE_KINDS: kinds.join(','), NOISE_ONCE: '1' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.on('message', (message) => {
      if (typeof message === 'object' && message !== null && 'summary' in message) resolve();
    });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the warm-up noise process exited with ${code}`))));
  });
  await settle(fixtures.url);
}

/** Waits until the server answers its health check quickly again (a long noise request has ended). */
async function settle(url: string): Promise<void> {
  const agent = new http.Agent({ keepAlive: true });
  const deadline = performance.now() + 30_000;
  let fast = 0;
  while (fast < 5 && performance.now() < deadline) {
    fast = (await call(agent, 'GET', `${url}/_edgeplane/health`, {})).ms < 20 ? fast + 1 : 0;
    await new Promise((r) => setTimeout(r, 50));
  }
  agent.destroy();
  await new Promise((r) => setTimeout(r, 1000));
}

const merge = (into: Latencies, from: Latencies) => {
  for (const [k, v] of Object.entries(from)) (into[k] ??= []).push(...v);
};

interface Measured {
  kinds: string;
  quiet: Latencies;
  noisy: Latencies;
  /** Each round's p99 ratio of each victim call, and of the floor. */
  perRound: { name: string; ratio: number }[][];
  noise: NoiseSummary;
  /** Share of a core, all threads and the main thread, in the quiet and the noisy phases. */
  cpu: { quiet: number; noisy: number; mainQuiet: number; mainNoisy: number };
}

async function measure(server: Server, fixtures: Fixtures, floorUrl: string, kinds: string[]): Promise<Measured> {
  const quiet: Latencies = {};
  const noisy: Latencies = {};
  const perRound: { name: string; ratio: number }[][] = [];
  const noise: NoiseSummary = {};
  const cpu = { quiet: 0, noisy: 0, mainQuiet: 0, mainNoisy: 0 };
  const pid = server.process.pid!;
  await warmUp(fixtures, kinds);
  for (let round = 1; round <= rounds; round += 1) {
    let cpu0 = cpuMsOf(pid);
    let main0 = cpuMsOf(pid, true);
    const q = await victim(fixtures, floorUrl, phaseMs);
    cpu.quiet += (cpuMsOf(pid) - cpu0) / phaseMs;
    cpu.mainQuiet += (cpuMsOf(pid, true) - main0) / phaseMs;
    const running = await startNoise(fixtures, kinds);
    cpu0 = cpuMsOf(pid);
    main0 = cpuMsOf(pid, true);
    const n = await victim(fixtures, floorUrl, phaseMs);
    cpu.noisy += (cpuMsOf(pid) - cpu0) / phaseMs;
    cpu.mainNoisy += (cpuMsOf(pid, true) - main0) / phaseMs;
    const sent = await running.stop();
    await settle(fixtures.url);
    merge(quiet, q);
    merge(noisy, n);
    perRound.push(MEASURED.map((name) => ({ name, ratio: percentile(n[name], 99) / percentile(q[name], 99) })));
    for (const [kind, s] of Object.entries(sent)) {
      const into = (noise[kind] ??= { n: 0, p50: 0, max: 0, statuses: {} });
      into.p50 = (into.p50 * into.n + s.p50 * s.n) / (into.n + s.n);
      into.n += s.n;
      into.max = Math.max(into.max, s.max);
      for (const [status, count] of Object.entries(s.statuses)) into.statuses[status] = (into.statuses[status] ?? 0) + count;
    }
    log(
      `  round ${round}: ${perRound
        .at(-1)!
        .map((r) => `${r.name} p99 x${r.ratio.toFixed(2)} (${percentile(q[r.name], 99).toFixed(1)} -> ${percentile(n[r.name], 99).toFixed(1)} ms)`)
        .join(', ')} (load average ${loadAverage()})`,
    );
  }
  const average = (share: number) => share / rounds;
  return {
    kinds: kinds.join(', '),
    quiet,
    noisy,
    perRound,
    noise,
    cpu: { quiet: average(cpu.quiet), noisy: average(cpu.noisy), mainQuiet: average(cpu.mainQuiet), mainNoisy: average(cpu.mainNoisy) },
  };
}

/** The main thread's CPU a noise request costs: its extra time in the noisy phases over the requests sent then. */
function mainPerNoise(m: Measured): string {
  const sent = Object.values(m.noise).reduce((n, s) => n + s.n, 0);
  if (sent === 0) return '';
  const extraMs = (m.cpu.mainNoisy - m.cpu.mainQuiet) * phaseMs * rounds;
  return ` (${(extraMs / sent).toFixed(1)} ms of the main thread a noise request)`;
}

function report(m: Measured): string[] {
  const lines = [
    `#### noise: ${m.kinds}`,
    '',
    '| victim call | quiet p50 / p99 ms | noisy p50 / p99 ms | p99 ratio (all rounds) | per round | goal <= 1.5 |',
    '|---|---:|---:|---:|---|---|',
  ];
  const ratioOf = (name: string) => percentile(m.noisy[name], 99) / percentile(m.quiet[name], 99);
  for (const name of MEASURED) {
    const ratio = ratioOf(name);
    const verdict = name === FLOOR ? '(the machine)' : ratio <= GOAL ? 'met' : 'missed';
    lines.push(
      `| ${name} | ${percentile(m.quiet[name], 50).toFixed(1)} / ${percentile(m.quiet[name], 99).toFixed(1)} | ${percentile(m.noisy[name], 50).toFixed(1)} / ${percentile(m.noisy[name], 99).toFixed(1)} | **${ratio.toFixed(2)}** | ${m.perRound.map((r) => r.find((x) => x.name === name)!.ratio.toFixed(2)).join(', ')} | ${verdict} |`,
    );
  }
  const floor = ratioOf(FLOOR);
  const added = (name: string) => percentile(m.noisy[name], 99) - percentile(m.quiet[name], 99);
  lines.push(
    '',
    `What is the server's own: its p99 ratio over the floor's, ${VICTIM_CALLS.map((c) => `${c.name} x${(ratioOf(c.name) / floor).toFixed(2)}`).join(', ')}; ` +
      `the p99 the noise added, ${VICTIM_CALLS.map((c) => `${c.name} ${added(c.name).toFixed(1)} ms`).join(', ')}, the floor's ${added(FLOOR).toFixed(1)} ms.`,
    '',
    `Server CPU: ${(m.cpu.quiet * 100).toFixed(0)}% of a core quiet, ${(m.cpu.noisy * 100).toFixed(0)}% with the noise; its main thread ${(m.cpu.mainQuiet * 100).toFixed(0)}% and ${(m.cpu.mainNoisy * 100).toFixed(0)}%${mainPerNoise(m)}. Noise sent (p50 / slowest ms, statuses):`,
    '',
  );
  for (const [kind, s] of Object.entries(m.noise))
    lines.push(
      `- ${kind}: ${s.n} sent, ${s.p50.toFixed(0)} / ${s.max.toFixed(0)} ms, ${Object.entries(s.statuses)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')}`,
    );
  return lines;
}

async function main(): Promise<void> {
  const profileDir = args.profile ? path.resolve(args.profile) : undefined;
  if (profileDir) fs.mkdirSync(profileDir, { recursive: true });
  const store = await freshStore(args['database-url'], 'noisy_bench');
  log(
    `noisy neighbours on ${store.engine}: ${Number(args.events).toLocaleString('en')} WAAP events, ${rounds} rounds of ${phaseMs / 1000} s quiet and ${phaseMs / 1000} s noisy; load average ${loadAverage()}`,
  );
  const nodeArgs = [...args['node-args']!.split(' ').filter(Boolean), ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])];
  const env = settingsOf(args.env!);
  if (Object.keys(env).length > 0) log(`server settings: ${args.env!.join(' ')}`);
  const server = await startServer(store, Number(args.port), { entry: args.entry, nodeArgs, env });
  const out: string[] = [];
  try {
    const fixtures = await setUp(server.url, { events: Number(args.events), log });
    const floor = await startFloor(fixtures, Number(args.port) + 1);
    try {
      const all = args.noise === 'all' ? ALL_KINDS : args.noise!.split(',');
      const sets = [all, ...(args.each ? all.map((k) => [k]) : [])];
      for (const kinds of sets) {
        log(`noise: ${kinds.join(', ')}`);
        out.push(...report(await measure(server, fixtures, floor.url, kinds)), '');
      }
    } finally {
      await floor.stop();
    }
    out.push(`Server memory after the run: ${memoryLine(server.process.pid!)}.`);
    // What the server keeps once its clients are gone: the threads the noise used stop after 30 s, then
    // the idle collection gives back the heaps (src/platform/idle-collection.ts).
    const idleSeconds = Number(args['idle-seconds']);
    if (idleSeconds > 0) {
      await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
      out.push(`Server memory ${idleSeconds} s after the run, idle: ${memoryLine(server.process.pid!)}.`);
    }
  } finally {
    await server.stop();
    await store.drop();
  }
  log(`\n${out.join('\n')}`);
  if (profileDir) {
    for (const s of summariseDir(profileDir).slice(0, 3)) {
      log(`\nprofile ${path.basename(s.file)}: ${((s.totalMs - s.idleMs) / 1000).toFixed(1)} s busy of ${(s.totalMs / 1000).toFixed(1)} s`);
      log(`  by source: ${s.byWhere.map(([w, ms]) => `${w} ${(ms / 1000).toFixed(2)} s`).join(', ')}`);
      log(`  by function: ${s.byFunction.map(([w, ms]) => `${w} ${(ms / 1000).toFixed(2)} s`).join('; ')}`);
    }
  }
}

function memoryLine(pid: number): string {
  const memory = memoryOf(pid);
  return `RSS ${memory.rss.toFixed(0)} MiB (anonymous ${memory.anon.toFixed(0)}, file-backed ${memory.file.toFixed(0)})`;
}

await main();
