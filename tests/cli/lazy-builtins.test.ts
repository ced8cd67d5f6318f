// The bundles' Fastify, prom-client, cli-progress and Commander (rewritten by scripts/lazy-builtins.ts)
// no longer load https, http2, tls, readline or child_process when they are loaded, and still use them
// once asked to: an HTTP/2 server listening on a host name (http2, dns), a push to an HTTPS gateway
// (https), cursor moves on a terminal (readline).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { lazyBuiltins } from '../../scripts/lazy-builtins.js';

const LAZY = ['https', 'http2', 'tls', 'readline', 'child_process'];

// Run in a process of its own, so that nothing the test runner loaded counts.
const ENTRY = `
const loaded = () => process.moduleLoadList.filter((m) => ${JSON.stringify(LAZY.map((m) => `NativeModule ${m}`))}.includes(m)).map((m) => m.slice(13));
const Fastify = require('fastify');
const { Pushgateway, Registry } = require('prom-client');
const Terminal = require('cli-progress/lib/terminal');
require('commander');
const atLoad = loaded();
(async () => {
  const app = Fastify({ http2: true });
  app.get('/', async () => ({ ok: true }));
  await app.listen({ host: 'localhost', port: 0 });
  const port = app.server.address().port;
  const answer = await new Promise((resolve, reject) => {
    const session = require('node:http2').connect('http://127.0.0.1:' + port);
    const stream = session.request({ ':path': '/' });
    let body = '';
    stream.on('data', (chunk) => (body += chunk));
    stream.on('end', () => { session.close(); resolve(body); });
    stream.on('error', reject);
  });
  await app.close();
  const pushed = await new Pushgateway('https://127.0.0.1:1', {}, new Registry()).pushAdd({ jobName: 'test' }).then(() => 'sent', (error) => error.code);
  let written = '';
  new Terminal({ isTTY: true, write: (text) => (written += text) }).cursorTo(3, null);
  console.log(JSON.stringify({ atLoad, answer, pushed, written, after: loaded() }));
})();
`;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-builtins-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function runBundled(): Promise<{ atLoad: string[]; answer: string; pushed: string; written: string; after: string[] }> {
  const file = path.join(dir, 'bundle.cjs');
  await build({
    stdin: { contents: ENTRY, resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: file,
    plugins: [lazyBuiltins],
    logLevel: 'silent',
  });
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, [file], { timeout: 20_000 }, (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out))),
  );
  return JSON.parse(stdout);
}

describe('the bundled dependencies load some Node modules on first use (lazy-builtins)', () => {
  it('are loaded without https, http2, tls, readline or child_process, and still serve HTTP/2 on a host name, push over HTTPS and move a cursor', async () => {
    const run = await runBundled();
    expect(run.atLoad).toEqual([]);
    expect(JSON.parse(run.answer)).toEqual({ ok: true });
    expect(run.pushed).toBe('ECONNREFUSED');
    expect(run.written).toBe('\u001b[4G');
    expect(run.after).toEqual(expect.arrayContaining(['http2', 'https', 'tls', 'readline']));
  }, 60_000);
});
