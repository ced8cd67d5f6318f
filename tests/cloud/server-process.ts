// Runs Edgeplane as a real child process, the built command (dist/edgeplane.mjs serve) as users run it,
// so tests can SIGKILL it. The command is one node process: a SIGKILL leaves nothing running. Each restart
// of a crash test costs the built server's start-up (about 0.7 s here) instead of loading every source
// file through tsx again (4-8 s).
import { spawn, type ChildProcess } from 'node:child_process';
import { assertBuilt, CLI, ROOT } from '../support/built.js';

export const API_KEY = 'crash-test-api-key-0123456789';
export const ADMIN = 'crash-test-admin-token-0123456789';

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

// Ports below Linux's ephemeral range (32768 and up), where outgoing connections take theirs: a restart on
// a port in that range found it taken by someone's connection now and then (EADDRINUSE in CI).
let nextPort = 10_000 + Math.floor(Math.random() * 20_000);

export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnPort(nextPort++, env);
    } catch (error) {
      // Another process holds the port: the next one will do.
      if (attempt >= 5 || !String((error as Error).message).includes('EADDRINUSE')) throw error;
    }
  }
}

let checkedBuild = false;

async function startOnPort(port: number, env: Record<string, string>): Promise<ServerProcess> {
  if (!checkedBuild) {
    assertBuilt();
    checkedBuild = true;
  }
  const child = spawn(process.execPath, [CLI, 'serve'], {
    cwd: ROOT,
    env: { ...process.env, EDGEPLANE_PORT: String(port), EDGEPLANE_API_KEY: API_KEY, EDGEPLANE_ADMIN_TOKEN: ADMIN, EDGEPLANE_LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += String(d)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited: ${stderr}`);
    try {
      const res = await fetch(`${url}/_edgeplane/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    kill: (signal = 'SIGKILL') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}

export async function call(server: ServerProcess, method: string, url: string, body?: unknown, token = API_KEY): Promise<any> {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: { authorization: `APIKey ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} -> ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** Waits (polling the API, the only view a child process gives) until no task is NEW or RUNNING. */
export async function waitForQuiet(server: ServerProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = await call(server, 'GET', '/cloud/v1/tasks?limit=1&state=NEW&state=RUNNING');
    if (pending.count === 0) return;
    if (Date.now() > deadline) throw new Error(`${pending.count} tasks still pending`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function allTasks(server: ServerProcess, type: string): Promise<any[]> {
  const out: any[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await call(server, 'GET', `/cloud/v1/tasks?limit=1000&offset=${offset}&task_type=${type}`);
    out.push(...page.results);
    if (offset + 1000 >= page.count) return out;
  }
}

/** Every network of a project and region, page by page (a fast machine creates thousands in a test). */
export async function allNetworks(server: ServerProcess, project: number, region: number): Promise<any[]> {
  const out: any[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await call(server, 'GET', `/cloud/v1/networks/${project}/${region}?limit=1000&offset=${offset}`);
    out.push(...page.results);
    if (offset + 1000 >= page.count) return out;
  }
}

/** Sends `count` creates, `concurrency` at a time. */
export async function createNetworks(server: ServerProcess, project: number, region: number, count: number, concurrency = 16, prefix = 'n'): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const res = await call(server, 'POST', `/cloud/v1/networks/${project}/${region}`, { name: `${prefix}-${i}` });
        ids.push(res.tasks[0]);
      }
    }),
  );
  return ids;
}
