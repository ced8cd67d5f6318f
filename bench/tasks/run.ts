// bench/tasks: (1) tasks per second from create to FINISHED in instant mode, 10,000 network creates
// over 50 concurrent connections; (2) GET /cloud/v1/tasks/{id} under 50 connections against a bare
// node:http server returning the same bytes, alternating in the same run. Prints the ratios.
//   npm run build && npx tsx bench/tasks/run.ts [--tasks 10000] [--seconds 10] [--rounds 3]
//   --database-url postgres://...   on PostgreSQL (in a schema of its own, dropped afterwards)
//   --compare <entry>               also an older build's dist/edgeplane.mjs, alternating: before/after (creates and GETs)
//   --skip-get                      the create phase only
//   --kind instance                 instance creates (a new volume and a public address each) instead of networks
//   --node-args "..."               node options of the measured servers (e.g. --cpu-prof)
import { randomBytes } from 'node:crypto';
import { type Child, cpuMicros, load, type LoadResult, median, postgresCpuMicros, startBare, startEdgeplane } from '../lib/servers.js';
import { dropPostgresSchema } from '../../src/platform/db/index.js';
import { option } from '../lib/options.js';

const args = process.argv.slice(2);
const total = Number(option('tasks', '10000'));
const seconds = Number(option('seconds', '10'));
const rounds = Number(option('rounds', '3'));
const databaseUrl = option('database-url', '');
const compare = option('compare', '');
const skipGet = args.includes('--skip-get');
/** What each create makes: its path, body, task type and the quotas it needs raised. */
const KINDS = {
  network: {
    path: (project: number) => `/cloud/v1/networks/${project}/76`,
    body: (i: number) => ({ name: `bench-${i}` }),
    taskType: 'create_network',
    limits: { network_count_limit: total + 10 },
  },
  instance: {
    path: (project: number) => `/cloud/v2/instances/${project}/76`,
    body: (i: number) => ({ name: `bench-${i}`, flavor: 'g1-standard-1-2', volumes: [{ source: 'new-volume', size: 10 }], interfaces: [{ type: 'external' }] }),
    taskType: 'create_vm',
    limits: {
      vm_count_limit: total + 10,
      cpu_count_limit: 2 * total + 10,
      ram_limit: 4096 * total,
      volume_count_limit: total + 10,
      volume_size_limit: 10 * total + 10,
      external_ip_count_limit: total + 10,
    },
  },
};
const kind = KINDS[option('kind', 'network') as keyof typeof KINDS];
if (!kind) throw new Error(`--kind is one of ${Object.keys(KINDS).join(', ')}`);
// e.g. --node-args "--cpu-prof --cpu-prof-dir=/tmp/tasks" to profile the measured servers.
const nodeArgs = option('node-args', '').split(' ').filter(Boolean);
const apiKey = 'bench-tasks-token-0123456789';
const admin = 'bench-tasks-admin-0123456789';
const headers = { authorization: `APIKey ${apiKey}` };
const schemas: string[] = [];
// PostgreSQL's own CPU a task, when it runs on this machine: it shares the cores with the server.
const databaseCpu = databaseUrl ? await postgresCpuMicros(databaseUrl) : undefined;

/** A fresh server of one build, on a fresh database (in memory, or a new PostgreSQL schema). */
async function start(port: number, entry?: string): Promise<Child> {
  const env: Record<string, string> = { EDGEPLANE_API_KEY: apiKey, EDGEPLANE_ADMIN_TOKEN: admin, EDGEPLANE_TASK_MODE: 'instant' };
  if (databaseUrl) {
    const schema = `bench_tasks_${randomBytes(4).toString('hex')}`;
    schemas.push(schema);
    Object.assign(env, { EDGEPLANE_MEMORY: 'false', EDGEPLANE_DATABASE_URL: databaseUrl, EDGEPLANE_DATABASE_SCHEMA: schema });
  }
  return startEdgeplane(port, env, entry, nodeArgs);
}

function client(server: Child) {
  return async (method: string, path: string, body?: unknown, token = apiKey) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `APIKey ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${await res.text()}`);
    return res.json();
  };
}

/**
 * (1) create -> FINISHED. In instant mode the create answers once its task has run, so the task is
 * FINISHED when the response arrives; the FINISHED count is read back at the end.
 */
async function creates(server: Child): Promise<{ rate: number; finished: number; ids: string[]; cpuPerTask: number; databaseCpuPerTask?: number }> {
  const json = client(server);
  const me = await json('GET', '/iam/clients/me');
  const project = (await json('GET', '/cloud/v1/projects')).results[0].id;
  await json('PUT', `/_edgeplane/cloud/quotas/${me.id}`, kind.limits, admin);
  const ids: string[] = [];
  let next = 0;
  const cpuBefore = cpuMicros(server);
  const databaseBefore = databaseCpu?.();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < total) {
        const i = next++;
        const created = await json('POST', kind.path(project), kind.body(i));
        ids.push(created.tasks[0]);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpuPerTask = (cpuMicros(server) - cpuBefore) / total;
  const databaseCpuPerTask = databaseBefore === undefined ? undefined : (databaseCpu!() - databaseBefore) / total;
  const finished = (await json('GET', `/cloud/v1/tasks?limit=1&state=FINISHED&task_type=${kind.taskType}`)).count;
  return { rate: total / elapsed, finished, ids, cpuPerTask, databaseCpuPerTask };
}

const builds = [{ name: 'edgeplane', entry: undefined as string | undefined }, ...(compare ? [{ name: 'compared build', entry: compare }] : [])];
const rates = new Map<string, number[]>(builds.map((b) => [b.name, []]));
// The first server of each build stays up for the GET phase: every server gets a port of its own.
const kept = new Map<string, { server: Child; ids: string[] }>();
let nextPort = 18200;
try {
  for (let round = 1; round <= (compare ? rounds : 1); round += 1) {
    for (const build of builds) {
      const server = await start(nextPort++, build.entry);
      const r = await creates(server);
      rates.get(build.name)!.push(r.rate);
      console.log(
        `${build.name}: create -> FINISHED ${total} tasks = ${r.rate.toFixed(0)} tasks/s, ${r.cpuPerTask.toFixed(0)} us server CPU per task${r.databaseCpuPerTask === undefined ? '' : `, ${r.databaseCpuPerTask.toFixed(0)} us PostgreSQL CPU per task`} (FINISHED: ${r.finished})`,
      );
      if (!kept.has(build.name) && !skipGet) kept.set(build.name, { server, ids: r.ids });
      else await server.stop();
    }
  }
  if (compare) {
    const ratio = median(rates.get('edgeplane')!.map((r, i) => r / rates.get('compared build')![i]));
    console.log(
      `create -> FINISHED: edgeplane median ${median(rates.get('edgeplane')!).toFixed(0)} tasks/s, compared build ${median(rates.get('compared build')!).toFixed(0)}, ratio ${ratio.toFixed(2)}`,
    );
  }

  // (2) GET /cloud/v1/tasks/{id} vs bare node:http with the same bytes (and the compared build's GET of
  // one of its own tasks, in the same rounds).
  const own = kept.get('edgeplane');
  if (own) {
    const taskPath = (k: { ids: string[] }) => `/cloud/v1/tasks/${k.ids[Math.floor(k.ids.length / 2)]}`;
    const body = await (await fetch(`${own.server.url}${taskPath(own)}`, { headers })).text();
    const bare = await startBare(18192, body, { 'content-type': 'application/json; charset=utf-8' });
    const targets = [...kept].map(([name, k]) => ({ name, server: k.server, url: `${k.server.url}${taskPath(k)}` }));
    // Server CPU per request beside the rates: steadier than req/s on a shared machine.
    const results: { b: LoadResult; e: Map<string, LoadResult>; cpu: Map<string, number> }[] = [];
    try {
      for (const t of targets) await load(t.url, { seconds: 2, headers });
      await load(`${bare.url}${taskPath(own)}`, { seconds: 2 });
      for (let round = 1; round <= rounds; round += 1) {
        const b = await load(`${bare.url}${taskPath(own)}`, { seconds });
        const e = new Map<string, LoadResult>();
        const cpu = new Map<string, number>();
        for (const t of targets) {
          const before = cpuMicros(t.server);
          const r = await load(t.url, { seconds, headers });
          cpu.set(t.name, (cpuMicros(t.server) - before) / (r.requestsPerSecond * seconds));
          e.set(t.name, r);
        }
        results.push({ b, e, cpu });
        console.log(
          `round ${round}: ${targets.map((t) => `${t.name} ${e.get(t.name)!.requestsPerSecond.toFixed(0)} req/s p50 ${e.get(t.name)!.p50} ms p99 ${e.get(t.name)!.p99} ms (non-2xx ${e.get(t.name)!.non2xx})`).join(' | ')} | bare ${b.requestsPerSecond.toFixed(0)} req/s p50 ${b.p50} ms p99 ${b.p99} ms`,
        );
      }
    } finally {
      await bare.stop();
    }
    const m = (f: (r: (typeof results)[number]) => number) => median(results.map(f));
    console.log(`\nGET /cloud/v1/tasks/{id}, 50 connections, ${rounds} x ${seconds}s alternating rounds`);
    for (const t of targets) {
      const e = (r: (typeof results)[number]) => r.e.get(t.name)!;
      console.log(
        `${t.name}: ${m((r) => e(r).requestsPerSecond).toFixed(0)} req/s, p50 ${m((r) => e(r).p50)} ms, p99 ${m((r) => e(r).p99)} ms, ${m((r) => r.cpu.get(t.name)!).toFixed(0)} us server CPU per request`,
      );
      console.log(
        `  ratios (${t.name} / bare): throughput ${m((r) => e(r).requestsPerSecond / r.b.requestsPerSecond).toFixed(3)} (rounds ${results.map((r) => (e(r).requestsPerSecond / r.b.requestsPerSecond).toFixed(2)).join(', ')}), p50 latency ${m((r) => e(r).p50 / Math.max(r.b.p50, 1)).toFixed(2)}, p99 latency ${m((r) => e(r).p99 / Math.max(r.b.p99, 1)).toFixed(2)}`,
      );
    }
    console.log(`bare:      ${m((r) => r.b.requestsPerSecond).toFixed(0)} req/s, p50 ${m((r) => r.b.p50)} ms, p99 ${m((r) => r.b.p99)} ms`);
  }
} finally {
  for (const k of kept.values()) await k.server.stop();
  for (const schema of schemas) await dropPostgresSchema(databaseUrl, schema);
}
