// bench/tasks: (1) tasks per second from create to FINISHED in instant mode, 10,000 network creates
// over 50 concurrent connections; (2) GET /cloud/v1/tasks/{id} under 50 connections against a bare
// node:http server returning the same bytes, alternating in the same run. Prints the ratios.
//   npm run build && npx tsx bench/tasks/run.ts [--tasks 10000] [--seconds 10] [--rounds 3]
import { load, median, startBare, startEdgeplane } from '../lib/servers.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const total = option('tasks', 10_000);
const seconds = option('seconds', 10);
const rounds = option('rounds', 3);
const apiKey = 'bench-tasks-token-0123456789';
const admin = 'bench-tasks-admin-0123456789';
const headers = { authorization: `APIKey ${apiKey}` };

const edgeplane = await startEdgeplane(18191, { EDGEPLANE_API_KEY: apiKey, EDGEPLANE_ADMIN_TOKEN: admin, EDGEPLANE_TASK_MODE: 'instant' });
const json = async (method: string, path: string, body?: unknown, token = apiKey) => {
  const res = await fetch(`${edgeplane.url}${path}`, { method, headers: { authorization: `APIKey ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${await res.text()}`);
  return res.json();
};
const me = await json('GET', '/iam/clients/me');
const project = (await json('GET', '/cloud/v1/projects')).results[0].id;
await json('PUT', `/_edgeplane/cloud/quotas/${me.id}`, { network_count_limit: total + 10 }, admin);

// (1) create -> FINISHED. In instant mode the create answers once its task has run, so the task is
// FINISHED when the response arrives; each one is still checked by reading it back at the end.
const ids: string[] = [];
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: 50 }, async () => {
    while (next < total) {
      const i = next++;
      const created = await json('POST', `/cloud/v1/networks/${project}/76`, { name: `bench-${i}` });
      ids.push(created.tasks[0]);
    }
  }),
);
const elapsed = (performance.now() - started) / 1000;
const finished = await json('GET', `/cloud/v1/tasks?limit=1&state=FINISHED&task_type=create_network`);
console.log(`create -> FINISHED: ${total} tasks in ${elapsed.toFixed(1)} s = ${(total / elapsed).toFixed(0)} tasks/s (FINISHED: ${finished.count})`);

// (2) GET /cloud/v1/tasks/{id} vs bare node:http with the same bytes.
const taskPath = `/cloud/v1/tasks/${ids[Math.floor(ids.length / 2)]}`;
const sample = await fetch(`${edgeplane.url}${taskPath}`, { headers });
const body = await sample.text();
const bare = await startBare(18192, body, { 'content-type': 'application/json; charset=utf-8' });
const results: { e: Awaited<ReturnType<typeof load>>; b: Awaited<ReturnType<typeof load>> }[] = [];
try {
  await load(`${edgeplane.url}${taskPath}`, { seconds: 2, headers });
  await load(`${bare.url}${taskPath}`, { seconds: 2 });
  for (let round = 1; round <= rounds; round += 1) {
    const b = await load(`${bare.url}${taskPath}`, { seconds });
    const e = await load(`${edgeplane.url}${taskPath}`, { seconds, headers });
    results.push({ e, b });
    console.log(`round ${round}: edgeplane ${e.requestsPerSecond.toFixed(0)} req/s p50 ${e.p50} ms p99 ${e.p99} ms (non-2xx ${e.non2xx}) | bare ${b.requestsPerSecond.toFixed(0)} req/s p50 ${b.p50} ms p99 ${b.p99} ms`);
  }
} finally {
  await edgeplane.stop();
  await bare.stop();
}
const m = (f: (r: (typeof results)[number]) => number) => median(results.map(f));
console.log(`\nGET /cloud/v1/tasks/{id}, 50 connections, ${rounds} x ${seconds}s alternating rounds`);
console.log(`edgeplane: ${m((r) => r.e.requestsPerSecond).toFixed(0)} req/s, p50 ${m((r) => r.e.p50)} ms, p99 ${m((r) => r.e.p99)} ms`);
console.log(`bare:      ${m((r) => r.b.requestsPerSecond).toFixed(0)} req/s, p50 ${m((r) => r.b.p50)} ms, p99 ${m((r) => r.b.p99)} ms`);
console.log(`ratios (edgeplane / bare): throughput ${m((r) => r.e.requestsPerSecond / r.b.requestsPerSecond).toFixed(3)}, p50 latency ${m((r) => r.e.p50 / Math.max(r.b.p50, 1)).toFixed(2)}, p99 latency ${m((r) => r.e.p99 / Math.max(r.b.p99, 1)).toFixed(2)}`);
