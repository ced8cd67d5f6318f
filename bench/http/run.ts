// bench/http: throughput and p99 of an authenticated GET /iam/clients/me against a bare node:http server
// returning the same bytes, measured alternately in the same run. Prints the ratio. A third server,
// Fastify with nothing registered, shows how much of the gap is the framework itself.
//   npm run build && npx tsx bench/http/run.ts [--seconds 10] [--rounds 3]
//   --compare <entry>   also an older build (its dist/edgeplane.mjs), in the same rounds: before/after
//   --compare-env K=V,K2=V2  the compared server's settings (alone: the same build with other settings)
//   --rate <n>          a second pass at n requests/s for every server: CPU per request at equal load
//   --path <path>       another authenticated GET route (default /iam/clients/me)
import { benchEntry, type Child, cpuMicros, load, median, settingsOf, startBare, startEdgeplane } from '../lib/servers.js';
import { option } from '../lib/options.js';

const seconds = Number(option('seconds', '10'));
const rounds = Number(option('rounds', '3'));
const rate = Number(option('rate', '0'));
const compareEnv = settingsOf(option('compare-env', '').split(',').filter(Boolean));
const compare = option('compare', Object.keys(compareEnv).length > 0 ? benchEntry() : '');
const route = option('path', '/iam/clients/me');
const apiKey = 'bench-http-token-0123456789';
const headers = { authorization: `APIKey ${apiKey}` };

/** Load one server and note its CPU per answered request: steadier than throughput on a shared machine. */
async function measure(child: Child, requestHeaders: Record<string, string> | undefined, duration: number, atRate = 0) {
  const before = cpuMicros(child);
  const result = await load(`${child.url}${route}`, { seconds: duration, headers: requestHeaders, rate: atRate });
  return { ...result, cpuPerRequest: (cpuMicros(child) - before) / Math.max(1, result.requests) };
}

const edgeplane = await startEdgeplane(18181, { EDGEPLANE_API_KEY: apiKey });
const sample = await fetch(`${edgeplane.url}${route}`, { headers });
if (sample.status !== 200) throw new Error(`Edgeplane answered ${sample.status}`);
const body = await sample.text();
const contentType = { 'content-type': 'application/json; charset=utf-8' };
const servers = [
  { name: 'edgeplane', child: edgeplane, headers },
  ...(compare
    ? [{ name: 'edgeplane (compared build)', child: await startEdgeplane(18184, { EDGEPLANE_API_KEY: apiKey, ...compareEnv }, compare), headers }]
    : []),
  { name: 'fastify (nothing registered)', child: await startBare(18183, body, contentType, 'framework'), headers: undefined },
  { name: 'bare node:http', child: await startBare(18182, body, contentType), headers: undefined },
];

type Measured = Awaited<ReturnType<typeof measure>>;
const results = new Map<string, Measured[]>(servers.map((s) => [s.name, []]));
const rated = new Map<string, Measured[]>(servers.map((s) => [s.name, []]));
try {
  for (const server of servers) await measure(server.child, server.headers, 2); // warm-up (JIT, caches)
  for (let round = 1; round <= rounds; round += 1) {
    const line: string[] = [];
    for (const server of servers) {
      const m = await measure(server.child, server.headers, seconds);
      results.get(server.name)!.push(m);
      line.push(
        `${server.name} ${m.requestsPerSecond.toFixed(0)} req/s p99 ${m.p99} ms ${m.cpuPerRequest.toFixed(1)} us CPU/req${m.non2xx || m.errors ? ` (non-2xx ${m.non2xx}, errors ${m.errors})` : ''}`,
      );
    }
    console.log(`round ${round}: ${line.join(' | ')}`);
    if (rate > 0) {
      const atRate: string[] = [];
      for (const server of servers) {
        const m = await measure(server.child, server.headers, seconds, rate);
        rated.get(server.name)!.push(m);
        atRate.push(`${server.name} ${m.requestsPerSecond.toFixed(0)} req/s ${m.cpuPerRequest.toFixed(1)} us CPU/req`);
      }
      console.log(`round ${round} at ${rate} req/s: ${atRate.join(' | ')}`);
    }
  }
} finally {
  for (const server of servers) await server.child.stop();
}

const bare = results.get('bare node:http')!;
const framework = results.get('fastify (nothing registered)')!;
console.log(`\nGET ${route}, 50 connections, ${rounds} x ${seconds}s rounds, servers alternating`);
for (const server of servers) {
  const runs = results.get(server.name)!;
  const ratio = median(runs.map((r, i) => r.requestsPerSecond / bare[i].requestsPerSecond));
  const toFramework = median(runs.map((r, i) => r.requestsPerSecond / framework[i].requestsPerSecond));
  console.log(
    `${server.name}: median ${median(runs.map((r) => r.requestsPerSecond)).toFixed(0)} req/s, p99 ${median(runs.map((r) => r.p99))} ms, ` +
      `${median(runs.map((r) => r.cpuPerRequest)).toFixed(1)} us CPU/req, throughput ratio to bare ${ratio.toFixed(3)} ` +
      `(rounds ${runs.map((r, i) => (r.requestsPerSecond / bare[i].requestsPerSecond).toFixed(2)).join(', ')}), to fastify ${toFramework.toFixed(3)}` +
      (rate > 0 ? `; at ${rate} req/s ${median(rated.get(server.name)!.map((r) => r.cpuPerRequest)).toFixed(1)} us CPU/req` : ''),
  );
}
