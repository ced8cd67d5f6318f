// Bounded load and soak (loopback only). Starts Edgeplane as a child process on a fresh SQLite data dir,
// measures the maximum throughput of a realistic mix (task polling, WAAP event queries, DDoS event-log
// reads, rule-template writes), then holds 70% of it for --minutes, reporting per minute: requests,
// errors, p50/p99 latency and the server's RSS (floor and peak of 5-second samples). Fails (exit 1) on
// any error or on growth >= 10% of the RSS floor from the first (warm-up) minute to the last.
//   npx tsx scripts/reliability/soak.ts [--minutes 10] [--measure-seconds 20] [--share 0.7] [--connections 16]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const minutes = option('minutes', 10);
const measureSeconds = option('measure-seconds', 20);
const share = option('share', 0.7);
const connections = option('connections', 16);
const apiKey = 'soak-api-key-0123456789';
const admin = 'soak-admin-token-0123456789';
const port = 18_400 + Math.floor(Math.random() * 500);
const url = `http://127.0.0.1:${port}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-soak-'));

const server = spawn(path.join(root, 'node_modules/.bin/tsx'), ['src/cli.ts', 'serve'], {
  cwd: root,
  env: {
    ...process.env,
    EDGEPLANE_PORT: String(port),
    EDGEPLANE_HOST: '127.0.0.1',
    EDGEPLANE_DATA_DIR: dataDir,
    EDGEPLANE_API_KEY: apiKey,
    EDGEPLANE_ADMIN_TOKEN: admin,
    EDGEPLANE_LOG_LEVEL: 'error',
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const stop = async () => {
  if (server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
};

async function json(method: string, p: string, body?: unknown, token = apiKey): Promise<any> {
  const res = await fetch(`${url}${p}`, {
    method,
    headers: { authorization: `APIKey ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${p} -> ${res.status} ${await res.text()}`);
  return res.status === 204 ? null : res.json();
}

/** RSS of the server process: tsx runs the server in a child of its own, so the largest descendant counts. */
function serverRssMb(): number {
  const pids = [server.pid!];
  for (let i = 0; i < pids.length; i++) {
    try {
      const children = fs.readFileSync(`/proc/${pids[i]}/task/${pids[i]}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
      pids.push(...children);
    } catch {
      // process gone
    }
  }
  const rss = pids.map((pid) => {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    } catch {
      return 0;
    }
  });
  return Math.round(Math.max(...rss) * 10) / 10;
}

async function setup(): Promise<autocannon.Request[]> {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/_edgeplane/health`)).ok) break;
    } catch {
      // not up yet
    }
    if (i > 600) throw new Error('server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  const me = await json('GET', '/iam/clients/me');
  const project = (await json('GET', '/cloud/v1/projects')).results[0].id;
  const region = (await json('GET', '/cloud/v1/regions')).results[0].id;
  const tasks: string[] = [];
  for (let i = 0; i < 20; i++)
    tasks.push((await json('POST', `/cloud/v1/networks/${project}/${region}`, { name: `soak-${i}`, create_router: false, type: 'vxlan' })).tasks[0]);
  await json('POST', '/_edgeplane/waap/domains', { client_id: me.id, name: 'soak.example.com' }, admin);
  await json('POST', '/_edgeplane/waap/generate', { client_ids: [me.id], events: 50_000, days: 1, seed: 1 }, admin);
  await json('POST', '/_edgeplane/security/event-logs/generate', { client_id: me.id, count: 200 }, admin).catch(() => null);
  const templates: number[] = [];
  for (let i = 0; i < 20; i++)
    templates.push((await json('POST', '/cdn/resources/rule_templates', { name: `soak-${i}`, rule: `/soak/${i}/*`, ruleType: 0 })).id);
  const start = encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString());
  const headers = { authorization: `APIKey ${apiKey}`, 'content-type': 'application/json' };
  let n = 0;
  // The mix, cycled by every connection: 4 task polls, 2 event queries, 1 event-log read, 1 template write.
  return [
    ...tasks.slice(0, 4).map((id) => ({ method: 'GET' as const, path: `/cloud/v1/tasks/${id}`, headers })),
    { method: 'GET', path: `/waap/v1/analytics/requests?start=${start}&limit=25`, headers },
    { method: 'GET', path: `/waap/v1/analytics/requests?start=${start}&limit=25&decision=blocked`, headers },
    { method: 'GET', path: '/security/notifier/v1/event_logs?limit=10', headers },
    {
      method: 'PATCH',
      path: `/cdn/resources/rule_templates/${templates[0]}`,
      headers,
      setupRequest: (req: any) => ({
        ...req,
        path: `/cdn/resources/rule_templates/${templates[n % templates.length]}`,
        body: JSON.stringify({ weight: (n++ % 1000) + 1 }),
      }),
    },
  ];
}

interface Minute {
  minute: number;
  requests: number;
  rps: number;
  errors: number;
  non2xx: number;
  p50: number;
  p99: number;
  /** Lowest RSS sampled in the minute (every 5 s). */
  rssMb: number;
  rssMaxMb: number;
}

async function run(requests: autocannon.Request[], seconds: number, overallRate?: number): Promise<autocannon.Result> {
  return autocannon({ url, connections, duration: seconds, requests, overallRate, timeout: 10 });
}

try {
  const requests = await setup();
  await run(requests, 5); // warm the JIT and caches before measuring
  const max = await run(requests, measureSeconds);
  const target = Math.max(1, Math.round(max.requests.average * share));
  console.log(
    `maximum ${Math.round(max.requests.average)} req/s (p99 ${max.latency.p99} ms, errors ${max.errors}, non-2xx ${max.non2xx}); soak at ${target} req/s for ${minutes} min`,
  );
  const perMinute: Minute[] = [];
  for (let minute = 1; minute <= minutes; minute++) {
    // RSS sampled every 5 s: the minute's floor (after collections) shows a leak, single samples mostly GC timing.
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(serverRssMb()), 5000);
    const r = await run(requests, 60, target);
    clearInterval(sampler);
    samples.push(serverRssMb());
    const row = {
      minute,
      requests: r.requests.total,
      rps: Math.round(r.requests.average),
      errors: r.errors + r.timeouts,
      non2xx: r.non2xx,
      p50: r.latency.p50,
      p99: r.latency.p99,
      rssMb: Math.min(...samples),
      rssMaxMb: Math.max(...samples),
    };
    perMinute.push(row);
    console.log(JSON.stringify(row));
  }
  const warm = perMinute[0]?.rssMb ?? 0;
  const last = perMinute.at(-1)?.rssMb ?? 0;
  const growth = warm > 0 ? (last - warm) / warm : 0;
  const errors = perMinute.reduce((n, m) => n + m.errors + m.non2xx, 0);
  const summary = {
    at: new Date().toISOString(),
    cpus: os.cpus().length,
    loadavg: os.loadavg(),
    maximumRps: Math.round(max.requests.average),
    targetRps: target,
    minutes,
    perMinute,
    rssGrowthAfterWarmup: Math.round(growth * 1000) / 10,
    errors,
  };
  fs.mkdirSync(path.join(root, '.ci/out/reliability'), { recursive: true });
  fs.writeFileSync(path.join(root, '.ci/out/reliability/soak.json'), JSON.stringify(summary, null, 2));
  console.log(`errors ${errors}; RSS ${warm} MB after warm-up -> ${last} MB (${summary.rssGrowthAfterWarmup}%)`);
  await stop();
  process.exit(errors === 0 && growth < 0.1 ? 0 : 1);
} catch (error) {
  console.error(error);
  await stop();
  process.exit(1);
}
