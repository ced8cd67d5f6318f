// What the control hooks cost: throughput of GET /iam/clients/me with the request journal on (default
// size, and with bodies) against the journal off, alternating rounds in the same run. Fault matching is
// free while no fault is declared (one size check), so the journal is the hook that matters.
//   npm run build && npx tsx bench/journal/run.ts [--seconds 5] [--rounds 3]
import { load, median, startEdgeplane } from '../lib/servers.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => (args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : fallback);
const seconds = option('seconds', 5);
const rounds = option('rounds', 3);
const apiKey = 'bench-journal-token-0123456789';
const headers = { authorization: `APIKey ${apiKey}` };

const variants: { name: string; env: Record<string, string>; port: number }[] = [
  { name: 'journal off', env: { EDGEPLANE_JOURNAL_SIZE: '0' }, port: 18391 },
  { name: 'journal 1000', env: { EDGEPLANE_JOURNAL_SIZE: '1000' }, port: 18392 },
  { name: 'journal 1000 + bodies', env: { EDGEPLANE_JOURNAL_SIZE: '1000', EDGEPLANE_JOURNAL_BODIES: 'true' }, port: 18393 },
];
const servers = await Promise.all(variants.map((v) => startEdgeplane(v.port, { EDGEPLANE_API_KEY: apiKey, ...v.env })));
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
for (const [i, v] of variants.entries())
  console.log(`${v.name}: median ${median(rps[i]).toFixed(0)} req/s (${(median(rps[i]) / base).toFixed(3)} of journal off)`);
