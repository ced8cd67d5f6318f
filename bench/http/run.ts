// bench/http: throughput and p99 of an authenticated GET /iam/clients/me against a bare node:http server
// returning the same bytes, measured alternately in the same run. Prints the ratio.
//   npm run build && npx tsx bench/http/run.ts [--seconds 10] [--rounds 3]
import { readFileSync } from 'node:fs';
import { type Child, load, median, startBare, startEdgeplane } from '../lib/servers.js';

/** CPU time (user + system) a child process has used, in microseconds, from /proc (Linux). */
function cpuMicros(child: Child): number {
  const fields = readFileSync(`/proc/${child.process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000; // clock ticks of 10 ms
}

/** Load one server and note its CPU per answered request: steadier than throughput on a shared machine. */
async function measure(child: Child, seconds: number, headers?: Record<string, string>) {
  const before = cpuMicros(child);
  const result = await load(`${child.url}/iam/clients/me`, { seconds, headers });
  return { ...result, cpuPerRequest: (cpuMicros(child) - before) / Math.max(1, result.requests) };
}

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const seconds = option('seconds', 10);
const rounds = option('rounds', 3);
const apiKey = 'bench-http-token-0123456789';
const headers = { authorization: `APIKey ${apiKey}` };

const edgeplane = await startEdgeplane(18181, { EDGEPLANE_API_KEY: apiKey });
const sample = await fetch(`${edgeplane.url}/iam/clients/me`, { headers });
if (sample.status !== 200) throw new Error(`Edgeplane answered ${sample.status}`);
const body = await sample.text();
const bare = await startBare(18182, body, { 'content-type': 'application/json; charset=utf-8' });

const results: { round: number; edgeplane: Awaited<ReturnType<typeof measure>>; bare: Awaited<ReturnType<typeof measure>> }[] = [];
try {
  await load(`${edgeplane.url}/iam/clients/me`, { seconds: 2, headers }); // warm-up (JIT, caches)
  await load(`${bare.url}/iam/clients/me`, { seconds: 2 });
  for (let round = 1; round <= rounds; round += 1) {
    const b = await measure(bare, seconds);
    const e = await measure(edgeplane, seconds, headers);
    results.push({ round, edgeplane: e, bare: b });
    console.log(
      `round ${round}: edgeplane ${e.requestsPerSecond.toFixed(0)} req/s p99 ${e.p99} ms ${e.cpuPerRequest.toFixed(1)} us CPU/req (non-2xx ${e.non2xx}, errors ${e.errors}) | ` +
        `bare ${b.requestsPerSecond.toFixed(0)} req/s p99 ${b.p99} ms ${b.cpuPerRequest.toFixed(1)} us CPU/req | ratio ${(e.requestsPerSecond / b.requestsPerSecond).toFixed(3)}`,
    );
  }
} finally {
  await edgeplane.stop();
  await bare.stop();
}
const ratio = median(results.map((r) => r.edgeplane.requestsPerSecond / r.bare.requestsPerSecond));
console.log(`\nGET /iam/clients/me, 50 connections, ${rounds} x ${seconds}s alternating rounds`);
console.log(`edgeplane: median ${median(results.map((r) => r.edgeplane.requestsPerSecond)).toFixed(0)} req/s, p99 ${median(results.map((r) => r.edgeplane.p99))} ms`);
console.log(`bare node:http: median ${median(results.map((r) => r.bare.requestsPerSecond)).toFixed(0)} req/s, p99 ${median(results.map((r) => r.bare.p99))} ms`);
console.log(`server CPU per request: edgeplane ${median(results.map((r) => r.edgeplane.cpuPerRequest)).toFixed(1)} us, bare ${median(results.map((r) => r.bare.cpuPerRequest)).toFixed(1)} us`);
console.log(`throughput ratio (edgeplane / bare): ${ratio.toFixed(3)}`);
