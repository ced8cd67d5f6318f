// What the control hooks cost: throughput of GET /iam/clients/me with the request journal on (default
// size, and with bodies) against the journal off, alternating rounds in the same run. Fault matching is
// free while no fault is declared (one size check), so the journal is the hook that matters.
//   npx tsc -p tsconfig.build.json --outDir node_modules/.cache/edgeplane-bench && npx tsx scripts/bench-journal.ts [--seconds 5] [--rounds 3]
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, median } from '../bench/lib/servers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name: string, fallback: number) => (args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : fallback);
const seconds = option('seconds', 5);
const rounds = option('rounds', 3);
const apiKey = 'bench-journal-token-0123456789';
const headers = { authorization: `APIKey ${apiKey}` };

async function start(port: number, env: Record<string, string>) {
  const child = spawn(process.execPath, [path.join(root, 'node_modules/.cache/edgeplane-bench/src/cli.js'), 'serve', '--port', String(port), '--log-level', 'error'], {
    env: { ...process.env, EDGEPLANE_MEMORY: 'true', EDGEPLANE_API_KEY: apiKey, ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i += 1) {
    try {
      if ((await fetch(`${url}/_edgeplane/health`)).ok) break;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, stop: () => new Promise<void>((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM'); }) };
}

const variants = [
  { name: 'journal off', env: { EDGEPLANE_JOURNAL_SIZE: '0' }, port: 18391 },
  { name: 'journal 1000', env: { EDGEPLANE_JOURNAL_SIZE: '1000' }, port: 18392 },
  { name: 'journal 1000 + bodies', env: { EDGEPLANE_JOURNAL_SIZE: '1000', EDGEPLANE_JOURNAL_BODIES: 'true' }, port: 18393 },
];
const servers = await Promise.all(variants.map((v) => start(v.port, v.env)));
const rps: number[][] = variants.map(() => []);
try {
  for (const server of servers) await load(`${server.url}/iam/clients/me`, { seconds: 1, headers });
  for (let round = 0; round < rounds; round += 1) {
    for (const [i, server] of servers.entries()) rps[i].push((await load(`${server.url}/iam/clients/me`, { seconds, headers })).requestsPerSecond);
  }
} finally {
  await Promise.all(servers.map((s) => s.stop()));
}
const base = median(rps[0]);
for (const [i, v] of variants.entries()) console.log(`${v.name}: median ${median(rps[i]).toFixed(0)} req/s (${(median(rps[i]) / base).toFixed(3)} of journal off)`);
