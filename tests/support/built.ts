// For tests of what a user runs: the built command (dist/edgeplane.mjs, what `npm start`, `npx edgeplane`
// and the package's bin run), processes started as a user starts them, and the README's own snippets.
// dist/ is built by `npm ci` (and `npm run build`); a dist/ older than the sources is refused, so these
// tests never pass or fail on code that is not the code under test.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILD_FINGERPRINT, inputsFingerprint } from '../../scripts/build-inputs.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(ROOT, 'dist/edgeplane.mjs');

/** Throws unless dist/ was built from the sources as they are now. */
export function assertBuilt(): void {
  const file = path.join(ROOT, 'dist', BUILD_FINGERPRINT);
  const built = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
  if (built !== inputsFingerprint(ROOT)) throw new Error('dist/ is missing or older than the sources: run `npm run build` first');
}

/** The environment of a user's shell, without the developer's EDGEPLANE_* settings. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('EDGEPLANE_')));
  return { ...env, ...extra };
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `edgeplane ...args` (the built command) to its end. */
export function runCli(args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, env: cleanEnv(env), timeout: timeoutMs }, (error, stdout, stderr) => {
      const code = error ? ((error as { code?: unknown }).code as number) : 0;
      resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr });
    });
  });
}

/** A TCP port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Whether something answers HTTP at the URL. */
export async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return true;
  } catch {
    return false;
  }
}

/** Polls until `check` holds, or throws after `timeoutMs`. */
export async function waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Whether a process id is alive (and not a zombie). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/** The pids of a process's children (Linux). */
export function childrenOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Kills a process started by a test if it is still there, and waits for it. */
export async function reap(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}

/** Starts a shell command the way a user's terminal or CI step would, output collected. */
export function shell(
  script: string,
  options: { cwd?: string; env?: Record<string, string> } = {},
): { child: ChildProcess; output: () => string; done: Promise<number> } {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd: options.cwd ?? ROOT, env: cleanEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const done = new Promise<number>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1))));
  return { child, output: () => output, done };
}

/** One fenced block of the README: the `index`th of `language` after the heading that contains `heading`. */
export function readmeBlock(heading: string, language: string, index = 0): string {
  // Headings outside code blocks only: a shell or Python comment line looks like one.
  let fenced = false;
  const lines = fs
    .readFileSync(path.join(ROOT, 'README.md'), 'utf8')
    .split('\n')
    .map((text) => {
      if (text.startsWith('```')) fenced = !fenced;
      return { text, heading: !fenced && /^#+ /.test(text) ? text.match(/^#+/)![0].length : 0 };
    });
  const start = lines.findIndex((line) => line.heading > 0 && line.text.includes(heading));
  if (start < 0) throw new Error(`README has no heading with "${heading}"`);
  const end = lines.findIndex((line, i) => i > start && line.heading > 0 && line.heading <= 3);
  const text = lines
    .slice(start + 1, end < 0 ? undefined : end)
    .map((line) => line.text)
    .join('\n');
  const blocks = [...text.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\``, 'gm'))].map((m) => m[1]);
  if (blocks[index] === undefined) throw new Error(`README section "${heading}" has no ${language} block #${index + 1}`);
  return blocks[index];
}

/** The JSON values printed one after another (curl adds no newline after a body). */
export function jsonValues(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (depth === 0) start = i;
      depth += 1;
    } else if ((c === '}' || c === ']') && --depth === 0) values.push(JSON.parse(text.slice(start, i + 1)));
  }
  return values;
}
