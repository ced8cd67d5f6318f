// bench/http: throughput and p99 of an authenticated GET /iam/clients/me against a bare node:http server
// returning the same bytes, measured alternately in the same run. Prints the ratio. A third server,
// Fastify with nothing registered, shows how much of the gap is the framework itself.
//   npm run build && npx tsx bench/http/run.ts [--seconds 10] [--rounds 3]
import { readFileSync } from 'node:fs';
import { type Child, load, median, startBare, startEdgeplane } from '../lib/servers.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const seconds = option('seconds', 10);
const rounds = option('rounds', 3);
const apiKey = 'bench-http-token-0123456789';
const headers = { authorization: `APIKey ${apiKey}` };

/** CPU time (user + system) a child process has used, in microseconds, from /proc (Linux). */
function cpuMicros(child: Child): number {
  const fields = readFileSync(`/proc/${child.process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000; // clock ticks of 10 ms
}

/** Load one server and note its CPU per answered request: steadier than throughput on a shared machine. */
async function measure(child: Child, requestHeaders?: Record<string, string>, duration = seconds) {
  const before = cpuMicros(child);
  const result = await load(`${child.url}/iam/clients/me`, { seconds: duration, headers: requestHeaders });
  return { ...result, cpuPerRequest: (cpuMicros(child) - before) / Math.max(1, result.requests) };
}

const edgeplane = await startEdgeplane(18181, { EDGEPLANE_API_KEY: apiKey });
const sample = await fetch(`${edgeplane.url}/iam/clients/me`, { headers });
if (sample.status !== 200) throw new Error(`Edgeplane answered ${sample.status}`);
const body = await sample.text();
const contentType = { 'content-type': 'application/json; charset=utf-8' };
const servers = [
  { name: 'edgeplane', child: edgeplane, headers },
  { name: 'fastify (nothing registered)', child: await startBare(18183, body, contentType, 'framework'), headers: undefined },
  { name: 'bare node:http', child: await startBare(18182, body, contentType), headers: undefined },
];

type Measured = Awaited<ReturnType<typeof measure>>;
const results = new Map<string, Measured[]>(servers.map((s) => [s.name, []]));
try {
  for (const server of servers) await measure(server.child, server.headers, 2); // warm-up (JIT, caches)
  for (let round = 1; round <= rounds; round += 1) {
    const line: string[] = [];
    for (const server of servers) {
      const m = await measure(server.child, server.headers);
      results.get(server.name)!.push(m);
      line.push(`${server.name} ${m.requestsPerSecond.toFixed(0)} req/s p99 ${m.p99} ms ${m.cpuPerRequest.toFixed(1)} us CPU/req${m.non2xx || m.errors ? ` (non-2xx ${m.non2xx}, errors ${m.errors})` : ''}`);
    }
    console.log(`round ${round}: ${line.join(' | ')}`);
  }
} finally {
  for (const server of servers) await server.child.stop();
}

const bare = results.get('bare node:http')!;
console.log(`\nGET /iam/clients/me, 50 connections, ${rounds} x ${seconds}s rounds, servers alternating`);
for (const server of servers) {
  const runs = results.get(server.name)!;
  const ratio = median(runs.map((r, i) => r.requestsPerSecond / bare[i].requestsPerSecond));
  console.log(
    `${server.name}: median ${median(runs.map((r) => r.requestsPerSecond)).toFixed(0)} req/s, p99 ${median(runs.map((r) => r.p99))} ms, ` +
      `${median(runs.map((r) => r.cpuPerRequest)).toFixed(1)} us CPU/req, throughput ratio to bare ${ratio.toFixed(3)}`,
  );
}
