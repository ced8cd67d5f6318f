// Helpers of the noisy-neighbour benchmarks: the built server started as a child process on a SQLite
// data dir or a fresh PostgreSQL schema (with node flags such as --cpu-prof), HTTP calls with keep-alive,
// the server's memory from /proc, and percentiles.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const OPERATOR = 'noisy-bench-operator-token-0123456789';

export interface Store {
  engine: 'sqlite' | 'postgres';
  /** Server environment that selects the database. */
  env: Record<string, string>;
  /** Removes the data (SQLite directory or PostgreSQL schema). */
  drop(): Promise<void>;
}

/** A fresh SQLite data dir, or a fresh schema of the PostgreSQL database at `databaseUrl`. */
export async function freshStore(databaseUrl: string | undefined, name: string): Promise<Store> {
  if (!databaseUrl) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `edgeplane-${name}-`));
    return { engine: 'sqlite', env: { EDGEPLANE_DATA_DIR: dataDir }, drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  }
  const schema = `${name.replace(/\W/g, '_')}_${process.pid}`;
  const pg = (await import('pg')).default;
  const dropSchema = async () => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(`drop schema if exists "${schema}" cascade`);
    } finally {
      await client.end();
    }
  };
  await dropSchema();
  return { engine: 'postgres', env: { EDGEPLANE_DATABASE_URL: databaseUrl, EDGEPLANE_DATABASE_SCHEMA: schema }, drop: dropSchema };
}

export interface Server {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `node [nodeArgs] <entry> serve` on the store (the built server, what `npm start` runs). The
 * entry defaults to this checkout's dist/edgeplane.mjs; `--entry` points at a copy of a build.
 */
export async function startServer(
  store: Store,
  port: number,
  options: { nodeArgs?: string[]; env?: Record<string, string>; entry?: string } = {},
): Promise<Server> {
  const entry = path.resolve(root, options.entry ?? 'dist/edgeplane.mjs');
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), entry, 'serve', '--port', String(port), '--log-level', 'error'], {
    env: { ...process.env, EDGEPLANE_MEMORY: 'false', EDGEPLANE_ADMIN_TOKEN: OPERATOR, ...store.env, ...options.env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} before answering`);
    try {
      if ((await fetch(`${url}/_edgeplane/health`)).status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`${url} did not come up`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { url, process: child, stop };
}

export interface Answer {
  status: number;
  body: string;
  ms: number;
}

/** One HTTP call; `agent` keeps the connection (one client = one agent). */
export function call(agent: http.Agent, method: string, url: string, headers: Record<string, string>, body?: Buffer | string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export const json = (token: string) => ({ authorization: `APIKey ${token}`, 'content-type': 'application/json' });

/** Creates clients with one API token each through the control API; returns id and token by ref. */
export async function seedClients(url: string, refs: string[]): Promise<Record<string, { clientId: number; token: string }>> {
  const agent = new http.Agent({ keepAlive: false });
  const body = JSON.stringify({
    clients: refs.map((ref) => ({ ref, email: `${ref}-${Date.now()}@example.test`, companyName: ref, tokens: [{ name: 'bench' }] })),
  });
  const answer = await call(agent, 'POST', `${url}/_edgeplane/seed`, json(OPERATOR), body);
  if (answer.status !== 200) throw new Error(`seed: ${answer.status} ${answer.body.slice(0, 300)}`);
  const result = JSON.parse(answer.body) as { clients: { ref: string; clientId: number; tokens: { token: string }[] }[] };
  return Object.fromEntries(result.clients.map((c) => [c.ref, { clientId: c.clientId, token: c.tokens[0].token }]));
}

/** The server's resident memory from /proc, in MiB: all, anonymous (heaps, buffers) and file-backed (mapped files, code). */
export function memoryOf(pid: number): { rss: number; anon: number; file: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kib('VmRSS') / 1024, anon: kib('RssAnon') / 1024, file: kib('RssFile') / 1024 };
}

/** CPU time (user + system) the process has used, in ms: all its threads, or its main thread alone. */
export function cpuMsOf(pid: number, mainThread = false): number {
  const fields = fs
    .readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8')
    .split(') ')[1]
    .split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export const loadAverage = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
