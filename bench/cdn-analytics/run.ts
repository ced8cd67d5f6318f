// Advanced-analytics benchmark: generates N access records for one client (SQLite in memory by
// default, PostgreSQL with EDGEPLANE_DATABASE_URL), then times each query shape through HTTP inject,
// against a baseline measured in the same run: aggregating the same records in plain JavaScript.
// It also measures how long a tiny request waits while a heavy aggregation runs (the event loop):
// with a SQLite file (BENCH_FILE=1) reads run in worker threads, in memory on the main thread.
// Usage: [BENCH_FILE=1] npx tsx bench/cdn-analytics/run.ts [records=200000] [days=30]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { build } from '../../src/app.js';
import { generateRecords } from '../../src/cdn-analytics/records/generator.js';
import { directoryOf, visitorKey } from '../../src/cdn-analytics/records/model.js';
import { loadConfig } from '../../src/config.js';
import { Clock } from '../../src/platform/clock.js';
import { openAndMigrate } from '../../src/server.js';

const records = Number(process.argv[2] ?? 200_000);
const days = Number(process.argv[3] ?? 30);
const dataDir = process.env.BENCH_FILE ? fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-bench-')) : undefined;
const config = loadConfig(process.env, { memory: !dataDir, dataDir, adminToken: 'bench-operator-token-0123456789', logLevel: 'error' });
const clock = new Clock();
clock.freeze();
const db = await openAndMigrate(config);
const edgeplane = await build({ config, db, clock });
const { clientId, adminUserId } = await edgeplane.iam.accounts.createAccount({ email: 'bench@example.test', companyName: 'Bench' });
const { token } = await edgeplane.iam.tokens.issue({ clientId, userId: adminUserId, role: 'Administrators', name: 'bench' });
const end = clock.now();

let t0 = performance.now();
const generated = await edgeplane.app.inject({
  method: 'POST',
  url: '/_edgeplane/cdn/access-records/generate',
  headers: { authorization: 'APIKey bench-operator-token-0123456789' },
  payload: { clientId, records, days, seed: 1, end: new Date(end).toISOString() },
});
const ingestMs = performance.now() - t0;
if (generated.statusCode !== 200) throw new Error(generated.body);
const all = [...generateRecords({ clientId, records, days, seed: 1, end })];

const window = `from: "${new Date(end - days * 86_400_000).toISOString()}", to: "${new Date(end).toISOString()}"`;
const shapes: [string, string, (r: (typeof all)[number]) => string | null][] = [
  ['totals', `totals { requests traffic uniqueVisitors }`, () => ''],
  ['by country', `rows { country requests traffic uniqueVisitors }`, (r) => r.country],
  ['by day x country', `rows { time country requests traffic uniqueVisitors }`, (r) => `${Math.floor(r.timestamp / 86_400_000)}|${r.country}`],
  ['by hour', `rows { time requests traffic uniqueVisitors }`, (r) => String(Math.floor(r.timestamp / 3_600_000))],
  ['by directory, mobile only', `rows { directory requests uniqueVisitors }`, (r) => (r.device === 'mobile' ? directoryOf(r.path) : null)],
];
const args: Record<string, string> = {
  totals: '',
  'by country': ', groupBy: [COUNTRY]',
  'by day x country': ', groupBy: [COUNTRY], granularity: DAY',
  'by hour': ', granularity: HOUR',
  'by directory, mobile only': ', groupBy: [DIRECTORY], filter: { devices: [MOBILE] }',
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `${records} records over ${days} days, ${db.engine}; generate+store: ${(ingestMs / 1000).toFixed(1)} s (${Math.round(records / (ingestMs / 1000))} records/s)`,
);
console.log('shape | query p50 ms | JS baseline p50 ms | ratio');
for (const [name, selection, keyOf] of shapes) {
  const query = `{ statistics(${window}${args[name]}, limit: 10000) { ${selection} } }`;
  const times: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    t0 = performance.now();
    const res = await edgeplane.app.inject({
      method: 'POST',
      url: '/cdn/advanced/v2/query',
      headers: { authorization: `APIKey ${token}` },
      payload: { query },
    });
    times.push(performance.now() - t0);
    if (res.statusCode !== 200 || res.json().errors) throw new Error(res.body);
    t0 = performance.now();
    const groups = new Map<string, { n: number; bytes: number; visitors: Set<string> }>();
    for (const r of all) {
      const key = keyOf(r);
      if (key === null) continue;
      const g = groups.get(key) ?? { n: 0, bytes: 0, visitors: new Set<string>() };
      g.n += 1;
      g.bytes += r.bytes;
      g.visitors.add(visitorKey(r));
      groups.set(key, g);
    }
    base.push(performance.now() - t0);
  }
  console.log(`${name} | ${median(times).toFixed(1)} | ${median(base).toFixed(1)} | ${(median(times) / median(base)).toFixed(2)}`);
}
// A heavy query and, meanwhile, small ones: how long do the small ones wait?
const heavy = `{ statistics(${window}, groupBy: [COUNTRY, BROWSER], granularity: HOUR, limit: 10000) { rows { time country browser uniqueVisitors } } }`;
const started = performance.now();
const heavyDone = edgeplane.app
  .inject({ method: 'POST', url: '/cdn/advanced/v2/query', headers: { authorization: `APIKey ${token}` }, payload: { query: heavy } })
  .then(() => performance.now() - started);
const small: number[] = [];
let finished = false;
void heavyDone.then(() => (finished = true));
while (!finished) {
  const t1 = performance.now();
  await edgeplane.app.inject({ method: 'GET', url: '/_edgeplane/health', headers: { authorization: 'APIKey bench-operator-token-0123456789' } });
  small.push(performance.now() - t1);
  // Let the event loop turn, as a real server's would between requests (worker answers are events).
  await new Promise((resolve) => setImmediate(resolve));
}
console.log(
  `heavy query ${(await heavyDone).toFixed(0)} ms; ${small.length} health checks meanwhile took p50 ${median(small).toFixed(1)} ms, max ${Math.max(...small).toFixed(1)} ms (${dataDir ? 'reads in worker threads' : 'reads on the main thread'})`,
);
await edgeplane.app.close();
await db.close();
if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
