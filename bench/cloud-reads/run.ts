// bench/cloud-reads: what the reads every cloud client makes cost the server: a resource by id (a network,
// with its subnets), a page of resources (the networks of a project and region), and a task poll. Each
// route is loaded at a fixed rate, which every server sustains, so the server's CPU time per request
// compares its own work; a bare node:http server answering the same bytes at the same rate is the
// baseline, measured in the same round. Rounds alternate the servers (a slow moment of a shared machine
// hits them alike).
//   npm run build && npx tsx bench/cloud-reads/run.ts [--rate 2500] [--seconds 4] [--rounds 3] [--networks 1]
//   --compare <entry>   also an older build (its dist/edgeplane.mjs), in the same rounds: before/after
//   --database-url postgres://...   on PostgreSQL (a schema of its own per server, dropped afterwards)
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { dropPostgresSchema } from '../../src/platform/db/index.js';
import { type Child, cpuMicros, load, median, startBare, startEdgeplane } from '../lib/servers.js';

const { values: args } = parseArgs({
  options: {
    rate: { type: 'string', default: '2500' },
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    networks: { type: 'string', default: '1' },
    compare: { type: 'string' },
    'database-url': { type: 'string' },
  },
});
const rate = Number(args.rate);
const seconds = Number(args.seconds);
const apiKey = 'bench-cloud-reads-token-0123456789';
const headers = { authorization: `APIKey ${apiKey}` };
const log = (line: string) => process.stdout.write(`${line}\n`);
const schemas: string[] = [];

/** A fresh server of one build with `--networks` networks (one subnet each), and the paths of its reads. */
async function start(entry: string | undefined, port: number): Promise<{ server: Child; paths: Record<string, string> }> {
  const env: Record<string, string> = { EDGEPLANE_API_KEY: apiKey, EDGEPLANE_TASK_MODE: 'instant' };
  if (args['database-url']) {
    const schema = `bench_reads_${randomBytes(4).toString('hex')}`;
    schemas.push(schema);
    Object.assign(env, { EDGEPLANE_MEMORY: 'false', EDGEPLANE_DATABASE_URL: args['database-url'], EDGEPLANE_DATABASE_SCHEMA: schema });
  }
  const server = await startEdgeplane(port, env, entry);
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`POST ${path} -> ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: string; tasks: string[] };
  };
  let network = { id: '', tasks: [''] };
  for (let i = 0; i < Number(args.networks); i += 1) {
    network = await post('/cloud/v1/networks/1/76', { name: `bench-net-${i}` });
    await post('/cloud/v1/subnets/1/76', { name: `bench-subnet-${i}`, network_id: network.id, cidr: `10.${i % 250}.0.0/24` });
  }
  return {
    server,
    paths: {
      'GET a network': `/cloud/v1/networks/1/76/${network.id}`,
      'GET the networks': '/cloud/v1/networks/1/76',
      'GET a task': `/cloud/v1/tasks/${network.tasks[0]}`,
    },
  };
}

interface Sample {
  requestsPerSecond: number;
  cpuMicros: number;
  non2xx: number;
}

/** One route loaded at the fixed rate; the server's CPU per request from /proc. */
async function measure(server: Child, path: string): Promise<Sample> {
  const before = cpuMicros(server);
  const result = await load(`${server.url}${path}`, { seconds, headers, rate });
  return { requestsPerSecond: result.requestsPerSecond, cpuMicros: (cpuMicros(server) - before) / result.requests, non2xx: result.non2xx + result.errors };
}

const builds = [{ name: 'edgeplane', entry: undefined as string | undefined }, ...(args.compare ? [{ name: 'compared build', entry: args.compare }] : [])];
const samples: Record<string, Record<string, Sample[]>> = {};
const note = (build: string, route: string, sample: Sample) => ((samples[build] ??= {})[route] ??= []).push(sample);
log(`cloud reads at ${rate} req/s, ${args.networks} network(s) with a subnet each, ${args.rounds} round(s) of ${seconds} s per route`);
for (let round = 1; round <= Number(args.rounds); round += 1) {
  for (const [k, build] of builds.entries()) {
    const { server, paths } = await start(build.entry, 18620 + k);
    try {
      for (const [route, path] of Object.entries(paths)) {
        // The bare server answers this route's bytes: the same response size, no work.
        const body = await (await fetch(`${server.url}${path}`, { headers })).text();
        const bare = await startBare(18630, body, { 'content-type': 'application/json; charset=utf-8' });
        try {
          await load(`${server.url}${path}`, { seconds: 1, headers, rate });
          const ours = await measure(server, path);
          const baseline = await measure(bare, '/');
          note(build.name, route, ours);
          note(`bare for ${build.name}`, route, baseline);
          log(
            `round ${round} ${build.name.padEnd(14)} ${route.padEnd(18)} ${ours.cpuMicros.toFixed(0).padStart(5)} us a request (bare ${baseline.cpuMicros.toFixed(0)} us), ` +
              `${ours.requestsPerSecond.toFixed(0)} req/s${ours.non2xx ? `, ${ours.non2xx} not 2xx` : ''}`,
          );
        } finally {
          await bare.stop();
        }
      }
    } finally {
      await server.stop();
    }
  }
}
log('');
log('| route | build | server CPU a request (median, rounds) | bare at the same rate | ratio to bare |');
log('|---|---|---|---|---|');
for (const route of Object.keys(samples.edgeplane)) {
  for (const build of builds) {
    const ours = samples[build.name][route].map((s) => s.cpuMicros);
    const bare = median(samples[`bare for ${build.name}`][route].map((s) => s.cpuMicros));
    log(
      `| ${route} | ${build.name} | ${median(ours).toFixed(0)} us (${ours.map((v) => v.toFixed(0)).join(', ')}) | ${bare.toFixed(0)} us | x${(median(ours) / bare).toFixed(2)} |`,
    );
  }
}
for (const schema of schemas) await dropPostgresSchema(args['database-url']!, schema);
