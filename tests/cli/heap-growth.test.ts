// EDGEPLANE_HEAP_GROWTH as the built command applies it (src/launcher.ts): before the bundle is compiled,
// as the build made the code cache; and the value reaches V8, which shows in the limits V8 traces after a
// full collection. (What it changes under one client's large bodies is measured by bench/noisy.)
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answers, assertBuilt, cleanEnv, CLI, freePort, reap, runCli, waitUntil } from '../support/built.js';

const started: ChildProcess[] = [];
beforeAll(() => assertBuilt());
afterEach(async () => {
  for (const child of started.splice(0)) await reap(child);
});

const API_KEY = 'heap-growth-test-key-0123456789';

/** The heap limits V8 sets after each full collection of the main thread's heap, over a start of the built server with this growth. */
async function heapLimitFactors(growth: string): Promise<string[]> {
  const port = await freePort();
  // V8's own tracing (these flags make V8 refuse the code cache: only the heap is looked at here).
  const child = spawn(process.execPath, ['--trace-gc', '--trace-gc-verbose', CLI, 'serve', '--memory', '--port', String(port), '--log-level', 'error'], {
    env: cleanEnv({ EDGEPLANE_API_KEY: API_KEY, EDGEPLANE_HEAP_GROWTH: growth }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  started.push(child);
  let trace = '';
  child.stdout!.on('data', (chunk) => (trace += chunk));
  const url = `http://127.0.0.1:${port}`;
  await waitUntil(`${url} to answer`, () => answers(`${url}/_edgeplane/health`));
  // The start itself collects the whole heap at least once (a fresh heap is far smaller than the bundle's needs).
  await waitUntil('a full collection', () => /\[HeapController\] Limit/.test(trace));
  return [...trace.matchAll(/\[HeapController\] Limit: .*\((\d+(?:\.\d+)?)\)/g)].map((m) => m[1]);
}

describe('EDGEPLANE_HEAP_GROWTH in the built command', () => {
  it('is set before the bundle is compiled, as the build made the code cache: read under the default, refused under another value', async () => {
    expect((await runCli(['--version'], { EDGEPLANE_REPORT_CODE_CACHE: '1' })).stderr).toContain('code cache accepted');
    const other = await runCli(['--version'], { EDGEPLANE_REPORT_CODE_CACHE: '1', EDGEPLANE_HEAP_GROWTH: '0' });
    expect(other.code).toBe(0);
    expect(other.stderr).toContain('code cache refused');
  });

  it("reaches V8: the heap's limit after a full collection is the collected size times 1 + growth / 100", async () => {
    const factors = await heapLimitFactors('150');
    expect(factors.length).toBeGreaterThan(0);
    expect(new Set(factors)).toEqual(new Set(['2.5']));
  });

  it('refuses a value that is not a whole percent within bounds (exit 2)', async () => {
    const run = await runCli(['serve', '--memory'], { EDGEPLANE_HEAP_GROWTH: 'lots' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('edgeplane: EDGEPLANE_HEAP_GROWTH must be a whole number from 0 to 900 (percent); got "lots"');
  });
});
