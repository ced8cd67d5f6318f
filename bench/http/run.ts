// bench/http: throughput and p99 of an authenticated GET /iam/clients/me against a bare node:http server
// returning the same bytes, measured alternately in the same run. Prints the ratio.
//   npm run build && npx tsx bench/http/run.ts [--seconds 10] [--rounds 3]
import { load, median, startBare, startEdgeplane } from '../lib/servers.js';

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

const results: { round: number; edgeplane: Awaited<ReturnType<typeof load>>; bare: Awaited<ReturnType<typeof load>> }[] = [];
try {
  await load(`${edgeplane.url}/iam/clients/me`, { seconds: 2, headers }); // warm-up (JIT, caches)
  await load(`${bare.url}/iam/clients/me`, { seconds: 2 });
  for (let round = 1; round <= rounds; round += 1) {
    const b = await load(`${bare.url}/iam/clients/me`, { seconds });
    const e = await load(`${edgeplane.url}/iam/clients/me`, { seconds, headers });
    results.push({ round, edgeplane: e, bare: b });
    console.log(
      `round ${round}: edgeplane ${e.requestsPerSecond.toFixed(0)} req/s p99 ${e.p99} ms (non-2xx ${e.non2xx}, errors ${e.errors}) | ` +
        `bare ${b.requestsPerSecond.toFixed(0)} req/s p99 ${b.p99} ms | ratio ${(e.requestsPerSecond / b.requestsPerSecond).toFixed(3)}`,
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
console.log(`throughput ratio (edgeplane / bare): ${ratio.toFixed(3)}`);
