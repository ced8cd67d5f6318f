// `npm start &` then `kill $PID`, as CI scripts do: the signal must reach the server (npm start execs it,
// and npm forwards signals to its child), and when npm itself goes (even by SIGKILL, where nothing is
// forwarded) the server must follow instead of running on, orphaned, on its port.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { alive, answers, assertBuilt, childrenOf, cleanEnv, freePort, reap, ROOT, waitUntil } from '../support/built.js';

const started: ChildProcess[] = [];
beforeAll(() => assertBuilt());
afterEach(async () => {
  for (const child of started.splice(0)) await reap(child);
});

/** `npm start -- --memory --port P`, as a user's script runs it; resolves once the server answers. */
async function npmStart(): Promise<{ npm: ChildProcess; server: number; url: string; output: () => string }> {
  const port = await freePort();
  const npm = spawn('npm', ['start', '--', '--memory', '--port', String(port)], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(npm);
  let output = '';
  npm.stdout!.on('data', (chunk) => (output += chunk));
  npm.stderr!.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  await waitUntil(`${url} to answer\n${output}`, () => answers(`${url}/_edgeplane/health`));
  const [server] = childrenOf(npm.pid!);
  return { npm, server, url, output: () => output };
}

describe('npm start', () => {
  it('runs the server as its own child, so npm forwards signals to it', async () => {
    const { npm, server } = await npmStart();
    expect(childrenOf(npm.pid!)).toEqual([server]);
    // No shell in between, which would take the signal and leave the server orphaned.
    expect(fs.readFileSync(`/proc/${server}/cmdline`, 'utf8').split('\0').slice(1, 4)).toEqual(['dist/edgeplane.mjs', 'serve', '--exit-with-parent']);
  });

  it('kill $PID (SIGTERM to npm) drains and stops the server; npm exits 0', async () => {
    const { npm, server, url, output } = await npmStart();
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    npm.kill('SIGTERM');
    expect(await exited).toBe(0);
    await waitUntil('the server to exit', () => !alive(server), 10_000);
    expect(await answers(url)).toBe(false);
    expect(output()).toContain('SIGTERM received, draining');
  });

  it('SIGKILL of npm (nothing forwarded) still stops the server, within a second or two', async () => {
    const { npm, server, url } = await npmStart();
    npm.kill('SIGKILL');
    await waitUntil('the orphaned server to notice and exit', () => !alive(server), 10_000);
    expect(await answers(url)).toBe(false);
  });
});
