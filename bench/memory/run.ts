// bench/memory: the built server's resident memory (RSS) after a number of mixed requests, and its growth
// under a held mixed load, next to a bare node:http server's RSS measured the same way in the same run.
//   npm run build && npx tsx bench/memory/run.ts [--requests 100000] [--idle-seconds 13] [--minutes 0] [--connections 16] [--memory] [--env NAME=VALUE]
//
// Starts `dist/edgeplane.mjs serve` on a fresh data dir (--memory: in memory, where the data itself
// counts in the RSS), makes a few objects, then sends the mix below until --requests have been answered,
// sampling RSS every second. With --minutes, it then holds the same mix at 70% of the throughput it
// measured for that many minutes and prints each minute's lowest RSS (after collections, which shows a
// leak where single samples mostly show GC timing) and the growth from the first minute to the last.
// The V8 heap (from the server's own /metrics) is printed beside the RSS.
//
// The mix, cycled by every connection: authenticated reads of several products (account, task polls,
// task lists, WAAP request log, CDN resources, DNS zones), writes (a rule template PATCH, a network create
// every 16th request), and refusals (an unknown route, a query that fails validation, a wrong token).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { type Child, median, rssMiB, rssParts, settingsOf, startBare, startEdgeplane } from '../lib/servers.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const total = option('requests', 100_000);
const minutes = option('minutes', 0);
// Seconds without a request after the requests, then the RSS again (what a burst leaves once it is over;
// the server collects 5 and 10 s into its idleness, src/platform/idle-collection.ts).
const idleSeconds = option('idle-seconds', 13);
const connections = option('connections', 16);
const inMemory = args.includes('--memory');
// --env NAME=VALUE (repeatable): a setting of the server, e.g. EDGEPLANE_HEAP_GROWTH=0 to compare.
const settings = settingsOf(args.filter((_, i) => args[i - 1] === '--env'));
const apiKey = 'bench-memory-token-0123456789';
const admin = 'bench-memory-admin-0123456789';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-memory-'));

const env: Record<string, string> = {
  EDGEPLANE_API_KEY: apiKey,
  EDGEPLANE_ADMIN_TOKEN: admin,
  EDGEPLANE_TASK_MODE: 'instant',
  ...settings,
};
if (!inMemory) Object.assign(env, { EDGEPLANE_MEMORY: 'false', EDGEPLANE_DATA_DIR: dataDir });
const server = await startEdgeplane(18501, env);

async function json(method: string, p: string, body?: unknown, token = apiKey): Promise<any> {
  const res = await fetch(`${server.url}${p}`, {
    method,
    headers: { authorization: `APIKey ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${p} -> ${res.status} ${await res.text()}`);
  return res.status === 204 ? null : res.json();
}

/**
 * The V8 heap in use and allocated, and the memory outside it that V8 is told of (Buffers, SQLite's
 * statements...), in MiB, from the server's /metrics (prom-client's process metrics): what grows when
 * the RSS grows.
 */
async function heapMiB(child: Child): Promise<{ used: number; total: number; external: number }> {
  const text = await (await fetch(`${child.url}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 1024 / 1024;
  return {
    used: value('edgeplane_nodejs_heap_size_used_bytes'),
    total: value('edgeplane_nodejs_heap_size_total_bytes'),
    external: value('edgeplane_nodejs_external_memory_bytes'),
  };
}

async function mix(): Promise<autocannon.Request[]> {
  const me = await json('GET', '/iam/clients/me');
  const project = (await json('GET', '/cloud/v1/projects')).results[0].id;
  await json('PUT', `/_edgeplane/cloud/quotas/${me.id}`, { network_count_limit: 1_000_000 }, admin);
  const tasks: string[] = [];
  for (let i = 0; i < 8; i++) tasks.push((await json('POST', `/cloud/v1/networks/${project}/76`, { name: `memory-${i}` })).tasks[0]);
  await json('POST', '/_edgeplane/waap/domains', { client_id: me.id, name: 'memory.example.com' }, admin);
  await json('POST', '/_edgeplane/waap/generate', { client_ids: [me.id], events: 20_000, days: 1, seed: 1 }, admin);
  const templates: number[] = [];
  for (let i = 0; i < 8; i++)
    templates.push((await json('POST', '/cdn/resources/rule_templates', { name: `memory-${i}`, rule: `/memory/${i}/*`, ruleType: 0 })).id);
  const start = encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString());
  const headers = { authorization: `APIKey ${apiKey}`, 'content-type': 'application/json' };
  let patches = 0;
  let creates = 0;
  return [
    { method: 'GET', path: '/iam/clients/me', headers },
    ...tasks.slice(0, 4).map((id) => ({ method: 'GET' as const, path: `/cloud/v1/tasks/${id}`, headers })),
    { method: 'GET', path: '/cloud/v1/tasks?limit=10', headers },
    { method: 'GET', path: `/waap/v1/analytics/requests?start=${start}&limit=25`, headers },
    { method: 'GET', path: '/cdn/resources', headers },
    { method: 'GET', path: '/dns/v2/zones', headers },
    { method: 'GET', path: '/cdn/resources/rule_templates', headers },
    {
      method: 'PATCH',
      path: `/cdn/resources/rule_templates/${templates[0]}`,
      headers,
      setupRequest: (req: autocannon.Request) => ({
        ...req,
        path: `/cdn/resources/rule_templates/${templates[patches % templates.length]}`,
        body: JSON.stringify({ weight: (patches++ % 1000) + 1 }),
      }),
    },
    { method: 'GET', path: '/no/such/route', headers },
    { method: 'GET', path: '/cloud/v1/tasks?limit=not-a-number', headers },
    { method: 'GET', path: '/iam/clients/me', headers: { authorization: 'APIKey wrong-token-0123456789' } },
    { method: 'GET', path: `/cloud/v1/projects/${project}`, headers },
    {
      method: 'POST',
      path: `/cloud/v1/networks/${project}/76`,
      headers,
      setupRequest: (req: autocannon.Request) => ({ ...req, body: JSON.stringify({ name: `memory-net-${creates++}` }) }),
    },
  ];
}

interface Sample {
  rss: number;
}

/** Runs the mix for a number of requests or seconds, sampling RSS every second. */
async function run(requests: autocannon.Request[], limit: { amount?: number; duration?: number; overallRate?: number }) {
  const samples: Sample[] = [];
  const sampler = setInterval(() => samples.push({ rss: rssMiB(server) }), 1000);
  const result = await autocannon({ url: server.url, connections, requests, timeout: 10, ...limit });
  clearInterval(sampler);
  samples.push({ rss: rssMiB(server) });
  return { result, rss: samples.map((s) => s.rss) };
}

const bare = await startBare(18502, '{}', { 'content-type': 'application/json' });
try {
  const bareIdle = rssMiB(bare);
  await autocannon({ url: bare.url, connections, amount: Math.min(total, 50_000) });
  const bareLoaded = rssMiB(bare);
  const idle = rssMiB(server);
  const requests = await mix();
  const setupRss = rssMiB(server);
  const started = performance.now();
  const first = await run(requests, { amount: total });
  const seconds = (performance.now() - started) / 1000;
  const heap = await heapMiB(server);
  const r = first.result;
  console.log(
    `edgeplane ${inMemory ? '(in memory)' : '(data dir)'}${
      Object.keys(settings).length
        ? ` with ${Object.entries(settings)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')}`
        : ''
    }, node ${process.version}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(`RSS idle after start ${idle.toFixed(1)} MiB, after setup ${setupRss.toFixed(1)} MiB`);
  console.log(
    `${r.requests.total} mixed requests in ${seconds.toFixed(0)} s (${Math.round(r.requests.total / seconds)} req/s, 2xx ${r['2xx']}, 4xx ${r['4xx']}, 5xx ${r['5xx']}, errors ${r.errors}): ` +
      `RSS after ${first.rss.at(-1)!.toFixed(1)} MiB, peak ${Math.max(...first.rss).toFixed(1)} MiB; V8 heap used ${heap.used.toFixed(1)} of ${heap.total.toFixed(1)} MiB`,
  );
  console.log(`bare node:http: RSS idle ${bareIdle.toFixed(1)} MiB, after ${Math.min(total, 50_000)} requests ${bareLoaded.toFixed(1)} MiB`);
  if (idleSeconds > 0) {
    // No request meanwhile (RSS is read from /proc): the server's collection after a burst waits for 5 s of quiet.
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
    const rss = rssMiB(server);
    const after = await heapMiB(server);
    console.log(`after ${idleSeconds} s idle: RSS ${rss.toFixed(1)} MiB; V8 heap used ${after.used.toFixed(1)} of ${after.total.toFixed(1)} MiB`);
  }

  if (minutes > 0) {
    const rate = Math.max(1, Math.round((r.requests.total / seconds) * 0.7));
    console.log(`\nheld at ${rate} req/s for ${minutes} min`);
    const floors: number[] = [];
    for (let minute = 1; minute <= minutes; minute += 1) {
      const m = await run(requests, { duration: 60, overallRate: rate });
      const floor = Math.min(...m.rss);
      floors.push(floor);
      const h = await heapMiB(server);
      const parts = rssParts(server);
      console.log(
        `minute ${minute}: ${m.result.requests.total} requests, 5xx ${m.result['5xx']}, errors ${m.result.errors}, p99 ${m.result.latency.p99} ms, RSS floor ${floor.toFixed(1)} MiB, median ${median(m.rss).toFixed(1)}, peak ${Math.max(...m.rss).toFixed(1)}; heap used ${h.used.toFixed(1)} of ${h.total.toFixed(1)} MiB, external ${h.external.toFixed(1)} MiB; at the end anonymous ${parts.anon.toFixed(1)}, file ${parts.file.toFixed(1)} MiB`,
      );
    }
    const growth = (floors.at(-1)! - floors[0]) / floors[0];
    console.log(`RSS floor, first minute ${floors[0].toFixed(1)} MiB -> last ${floors.at(-1)!.toFixed(1)} MiB (${(growth * 100).toFixed(1)}%)`);
  }
} finally {
  await server.stop();
  await bare.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
