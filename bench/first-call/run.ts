// bench/first-call: how long the first call of a route takes in a fresh process, over 50 different
// routes, against the second call of the same routes in the same run (warm: everything compiled).
//   npm run build && npx tsx bench/first-call/run.ts [--runs 5] [--routes 50] [--entry <entry>] [--compare <entry>]
//   --pause-ms <n>  wait n ms between ready and the first calls, as a test runner that loads its files
//                   after the server is up does (the server warms up when quiet: src/platform/warm-up.ts)
//
// Each run spawns a fresh server (in memory), waits until GET /_edgeplane/health answers (ready, as
// bench/startup measures it), then calls each route once, one after the other over one keep-alive
// connection, then each again. The routes are authenticated GETs that need no object to exist: every
// modelled and catalogue-engine operation whose only path parameters are a project and a region (the
// account's default project, region 76) and that has no required query parameter, taken from the
// server's own /openapi.json (read from a separate server first, so the measured one compiles nothing
// before its first calls): half of them modelled routes, half served by the catalogue engine, each
// half spread evenly over its list. Start-up (spawn to ready) is printed beside.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import http from 'node:http';
import { benchEntry, median, startEdgeplane } from '../lib/servers.js';
import { option } from '../lib/options.js';

const args = process.argv.slice(2);
const runs = Number(option('runs', '5'));
const routeCount = Number(option('routes', '50'));
const compare = option('compare', '');
const pauseMs = Number(option('pause-ms', '0'));
// e.g. --node-args "--cpu-prof --cpu-prof-dir=/tmp/first-call" to profile the measured servers.
const nodeArgs = option('node-args', '').split(' ').filter(Boolean);
// --detail: every route's first calls (one per process, in order) and its median second call.
const detail = args.includes('--detail');
const apiKey = 'bench-first-call-token-0123456789';
const port = 18301;

interface Operation {
  path: string;
  implementation: string;
}

/** GET operations that can answer 200 for a fresh account, from the server's OpenAPI document. */
async function candidateRoutes(): Promise<Operation[]> {
  const server = await startEdgeplane(port, { EDGEPLANE_API_KEY: apiKey });
  try {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { parameters?: { in: string; required?: boolean }[]; 'x-edgeplane-implementation'?: string }>>;
    };
    const found: Operation[] = [];
    for (const [p, item] of Object.entries(doc.paths)) {
      const op = item.get;
      if (!op || p.startsWith('/_edgeplane')) continue;
      const params = p.match(/\{[^}]+\}/g) ?? [];
      if (!params.every((name) => name === '{project_id}' || name === '{region_id}')) continue;
      if ((op.parameters ?? []).some((param) => param.in === 'query' && param.required)) continue;
      found.push({ path: p, implementation: op['x-edgeplane-implementation'] ?? 'modelled' });
    }
    return found;
  } finally {
    await server.stop();
  }
}

/** `count` routes evenly spread over a list. */
function spreadOver(all: Operation[], count: number): Operation[] {
  if (all.length <= count) return all;
  return Array.from({ length: count }, (_, i) => all[Math.floor((i * all.length) / count)]);
}

/** Half modelled routes (as many as there are, up to half), the rest served by the catalogue engine. */
function spread(all: Operation[], count: number): Operation[] {
  const modelled = spreadOver(
    all.filter((o) => o.implementation !== 'catalogue'),
    Math.ceil(count / 2),
  );
  return [
    ...modelled,
    ...spreadOver(
      all.filter((o) => o.implementation === 'catalogue'),
      count - modelled.length,
    ),
  ];
}

/** One GET over the agent's single keep-alive connection; resolves with the status once the body is read. */
function get(agent: http.Agent, url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

interface Call {
  path: string;
  implementation: string;
  status: number;
  ms: number;
}

/** One fresh server: spawn to ready, then the first and second call of each route. */
async function run(entry: string, routes: Operation[]): Promise<{ startupMs: number; first: Call[]; second: Call[] }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('EDGEPLANE_')));
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, entry, 'serve', '--memory', '--port', String(port), '--host', '127.0.0.1', '--log-level', 'error'], {
    env: { ...env, EDGEPLANE_API_KEY: apiKey },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (;;) {
      try {
        if ((await get(agent, `${base}/_edgeplane/health`)) === 200) break;
      } catch {
        /* not listening yet */
      }
      if (performance.now() - started > 20_000) throw new Error('the server did not become ready');
      await new Promise((r) => setTimeout(r, 2));
    }
    const startupMs = performance.now() - started;
    const headers = { authorization: `APIKey ${apiKey}` };
    // The demo account (EDGEPLANE_API_KEY) of a fresh database gets project 1 as its default project.
    const fill = (p: string) => p.replace('{project_id}', '1').replace('{region_id}', '76');
    const pass = async (): Promise<Call[]> => {
      const calls: Call[] = [];
      for (const route of routes) {
        const t = performance.now();
        const status = await get(agent, `${base}${fill(route.path)}`, headers);
        calls.push({ path: route.path, implementation: route.implementation, status, ms: performance.now() - t });
      }
      return calls;
    };
    if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
    const first = await pass();
    const second = await pass();
    return { startupMs, first, second };
  } finally {
    agent.destroy();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * q) - 1)];
};

const routes = spread(await candidateRoutes(), routeCount);
console.log(
  `${routes.length} routes (${routes.filter((r) => r.implementation === 'catalogue').length} served by the catalogue engine), ${runs} fresh processes per build, first calls ${pauseMs} ms after ready`,
);
const builds = [{ name: 'edgeplane', entry: benchEntry() }, ...(compare ? [{ name: 'compared build', entry: path.resolve(compare) }] : [])];
const results = new Map(builds.map((b) => [b.name, [] as Awaited<ReturnType<typeof run>>[]]));
for (let i = 0; i < runs; i += 1) {
  for (const build of builds) {
    const r = await run(build.entry, routes);
    results.get(build.name)!.push(r);
    const firsts = r.first.map((c) => c.ms);
    console.log(
      `${build.name} run ${i + 1}: ready ${r.startupMs.toFixed(0)} ms; first calls p50 ${quantile(firsts, 0.5).toFixed(1)} p99 ${quantile(firsts, 0.99).toFixed(1)} ` +
        `max ${Math.max(...firsts).toFixed(1)} ms (${r.first.reduce((s, c) => s + c.ms, 0).toFixed(0)} ms in all); second calls p50 ${quantile(
          r.second.map((c) => c.ms),
          0.5,
        ).toFixed(2)} p99 ${quantile(
          r.second.map((c) => c.ms),
          0.99,
        ).toFixed(2)} ms`,
    );
  }
}
for (const build of builds) {
  const all = results.get(build.name)!;
  const firsts = all.flatMap((r) => r.first.map((c) => c.ms));
  const seconds = all.flatMap((r) => r.second.map((c) => c.ms));
  const statuses = new Map<number, number>();
  for (const c of all[0].first) statuses.set(c.status, (statuses.get(c.status) ?? 0) + 1);
  console.log(`\n${build.name}: ${firsts.length} first calls over ${runs} processes`);
  console.log(
    `  first call  p50 ${quantile(firsts, 0.5).toFixed(1)} ms, p90 ${quantile(firsts, 0.9).toFixed(1)} ms, p99 ${quantile(firsts, 0.99).toFixed(1)} ms, max ${Math.max(...firsts).toFixed(1)} ms`,
  );
  console.log(
    `  second call p50 ${quantile(seconds, 0.5).toFixed(2)} ms, p99 ${quantile(seconds, 0.99).toFixed(2)} ms; first/second p99 ${(quantile(firsts, 0.99) / quantile(seconds, 0.99)).toFixed(1)}x`,
  );
  for (const implementation of ['modelled', 'catalogue']) {
    const own = all.flatMap((r) => r.first.filter((c) => (c.implementation === 'catalogue') === (implementation === 'catalogue')).map((c) => c.ms));
    if (own.length > 0)
      console.log(
        `  ${implementation} routes' first calls (${own.length}): p50 ${quantile(own, 0.5).toFixed(1)} ms, p90 ${quantile(own, 0.9).toFixed(1)} ms, p99 ${quantile(own, 0.99).toFixed(1)} ms, max ${Math.max(...own).toFixed(1)} ms`,
      );
  }
  console.log(
    `  ready (spawn to first health 200) median ${median(all.map((r) => r.startupMs)).toFixed(0)} ms; statuses of the first calls ${[...statuses].map(([s, n]) => `${s} x${n}`).join(', ')}`,
  );
  const slowest = new Map<string, number>();
  for (const r of all) for (const c of r.first) slowest.set(c.path, Math.max(slowest.get(c.path) ?? 0, c.ms));
  console.log(
    `  slowest first calls: ${[...slowest]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([p, ms]) => `${p} ${ms.toFixed(1)} ms`)
      .join(', ')}`,
  );
  if (detail) {
    console.log('  each route: first calls per process (ms), median second call (ms), status');
    for (const [i, route] of routes.entries()) {
      const firstMs = all.map((r) => r.first[i].ms.toFixed(1)).join(' ');
      console.log(
        `    ${route.implementation.padEnd(9)} ${route.path}: ${firstMs}; ${median(all.map((r) => r.second[i].ms)).toFixed(2)}; ${all[0].first[i].status}`,
      );
    }
  }
}
