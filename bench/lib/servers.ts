// Helpers shared by the benchmarks: start the built Edgeplane server and a bare node:http baseline as
// child processes (so the load generator does not share their event loop), and run autocannon.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The built server: the bundle `npm run build` writes (the same file `npm start` runs). */
export const EDGEPLANE_ENTRY = 'dist/edgeplane.mjs';

/**
 * The entry the benchmarks start: `--entry <file>` on their command line (a copy of a build, so a
 * rebuild of dist/ by someone else during a long run cannot change or remove it), else EDGEPLANE_ENTRY.
 */
export function benchEntry(): string {
  const i = process.argv.indexOf('--entry');
  return path.resolve(root, i >= 0 ? process.argv[i + 1] : EDGEPLANE_ENTRY);
}

export interface Child {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

async function waitFor(url: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`${url} did not come up`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
}

/** A program the server's node runs under (valgrind, for bench/instructions), and how long it may take to start. */
export interface Wrapper {
  command: string[];
  startTimeoutMs: number;
}
const NO_WRAPPER: Wrapper = { command: [], startTimeoutMs: 15_000 };

function spawnNode(under: Wrapper, args: string[], env: Record<string, string>): ChildProcess {
  const [command, ...before] = [...under.command, process.execPath];
  return spawn(command, [...before, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
}

/**
 * Starts the built server, `node <benchEntry()> serve` (run `npm run build` first), or another build's
 * entry (`entry`, e.g. a copy of an older dist/ for a before/after comparison in the same run).
 */
export async function startEdgeplane(
  port: number,
  env: Record<string, string> = {},
  entry = benchEntry(),
  nodeArgs: string[] = [],
  under: Wrapper = NO_WRAPPER,
): Promise<Child> {
  const child = spawnNode(under, [...nodeArgs, entry, 'serve', '--port', String(port), '--log-level', 'error'], { EDGEPLANE_MEMORY: 'true', ...env });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/_edgeplane/health`, under.startTimeoutMs);
  return { url, process: child, stop: stopper(child) };
}

/**
 * Starts a baseline server that answers every request with the given bytes: bare node:http, or Fastify
 * with nothing registered (`framework`).
 */
export async function startBare(
  port: number,
  body: string,
  headers: Record<string, string>,
  kind: 'bare' | 'framework' = 'bare',
  under: Wrapper = NO_WRAPPER,
): Promise<Child> {
  const script = kind === 'bare' ? 'bench/lib/bare-server.mjs' : 'bench/lib/fastify-server.mjs';
  const child = spawnNode(under, [path.join(root, script), String(port)], { BARE_BODY: body, BARE_HEADERS: JSON.stringify(headers) });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(url, under.startTimeoutMs);
  return { url, process: child, stop: stopper(child) };
}

export interface LoadResult {
  requestsPerSecond: number;
  /** Requests answered in the whole run. */
  requests: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/**
 * autocannon against one URL. `rate` caps the requests per second (all connections together): at a rate
 * every server can sustain, the load generator is idle alike between answers whatever the server, so
 * the server's CPU time per request compares the servers' own work (see bench/README.md).
 */
export async function load(
  url: string,
  options: { connections?: number; seconds?: number; headers?: Record<string, string>; rate?: number } = {},
): Promise<LoadResult> {
  const result = await autocannon({
    url,
    connections: options.connections ?? 50,
    duration: options.seconds ?? 10,
    headers: options.headers,
    ...(options.rate ? { overallRate: options.rate } : {}),
  });
  return {
    requestsPerSecond: result.requests.average,
    requests: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/** CPU time (user + system) a child process has used, in microseconds, from /proc (Linux). */
export function cpuMicros(child: Child): number {
  const fields = readFileSync(`/proc/${child.process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000; // clock ticks of 10 ms
}

/**
 * CPU time in microseconds used by a PostgreSQL server on this machine: its postmaster, its live
 * processes (the backends) and those it has reaped (an exiting child's time is added to its parent's),
 * found through a connection's backend. Undefined when the server is elsewhere or /proc is not readable.
 */
export async function postgresCpuMicros(url: string): Promise<(() => number) | undefined> {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    // The fields after the command: state, ppid, ..., utime (12th), stime, cutime, cstime.
    const stat = (pid: number | string) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const postmaster = stat(rows[0].pid)[1];
    const ticks = (fields: string[], count: number) => fields.slice(11, 11 + count).reduce((sum, field) => sum + Number(field), 0);
    ticks(stat(postmaster), 4); // throws when it cannot be read: undefined below
    return () => {
      let total = ticks(stat(postmaster), 4);
      for (const pid of readdirSync('/proc')) {
        if (!/^\d+$/.test(pid)) continue;
        try {
          const fields = stat(pid);
          if (fields[1] === postmaster) total += ticks(fields, 2);
        } catch {
          // Gone since the listing: its time is now its parent's.
        }
      }
      return total * 10_000; // clock ticks of 10 ms
    };
  } catch {
    return undefined;
  } finally {
    await client.end();
  }
}

/** Resident set size of a child process in MiB, from /proc (Linux). */
export function rssMiB(child: Child): number {
  return rssParts(child).total;
}

/**
 * The resident set in MiB and its parts (Linux): anonymous memory (the heaps: V8's, malloc's, SQLite's
 * page cache) and file pages mapped in (code, and database files read through mmap).
 */
export function rssParts(child: Child): { total: number; anon: number; file: number } {
  const status = readFileSync(`/proc/${child.process.pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0) / 1024;
  return { total: kib('VmRSS'), anon: kib('RssAnon'), file: kib('RssFile') };
}

/**
 * Server settings given as `NAME=VALUE` (benchmarks' --env and --compare-env), split at the first '=' only:
 * a value may hold one (NODE_OPTIONS=--max-semi-space-size=2).
 */
export function settingsOf(pairs: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at <= 0) throw new Error(`a server setting is NAME=VALUE; got "${pair}"`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
