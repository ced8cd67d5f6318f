// bench/ddos: ingest rate of the DDoS event-log generator and latency of the list/detail reads at N
// records for one client (others' records in the table too), on a file-backed SQLite database or, with
// EDGEPLANE_DATABASE_URL, PostgreSQL. Baseline in the same run: the same reads through the service,
// without HTTP, so the ratio shows what routing, validation and serialization add.
//   npx tsx bench/ddos/run.ts [--records 100000] [--iterations 200]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { Clock } from '../../src/platform/clock.js';
import { EventLogService } from '../../src/security/event-logs/service.js';
import { EventLogStore } from '../../src/security/event-logs/store.js';
import type { Principal } from '../../src/platform/auth/principal.js';
import { openAndMigrate } from '../../src/server.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const records = option('records', 100_000);
const iterations = option('iterations', 200);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-bench-ddos-'));
const config = loadConfig(process.env, { dataDir: dir, logLevel: 'error', adminToken: 'bench-operator-token-0123456789' });
const clock = new Clock();
const db = await openAndMigrate(config);
const edgeplane = await build({ config, db, clock });
const service = new EventLogService(new EventLogStore(db), clock, edgeplane.iam.accounts);

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

try {
  const { clientId, adminUserId } = await edgeplane.iam.accounts.createAccount({ email: 'bench@example.test', companyName: 'Bench' });
  const { clientId: otherId } = await edgeplane.iam.accounts.createAccount({ email: 'other@example.test', companyName: 'Other' });
  const { token } = await edgeplane.iam.tokens.issue({ clientId, userId: adminUserId, role: 'Administrators', name: 'bench' });
  const headers = { authorization: `APIKey ${token}` };
  const principal: Principal = { kind: 'client', clientId, userId: adminUserId, role: 'Administrators', tokenId: 0 };
  const operator = { authorization: 'APIKey bench-operator-token-0123456789' };

  const started = performance.now();
  for (const [client, count] of [
    [clientId, records],
    [otherId, records],
  ] as const) {
    for (let done = 0; done < count; done += 10_000) {
      const res = await edgeplane.app.inject({
        method: 'POST',
        url: '/_edgeplane/security/event-logs/generate',
        headers: operator,
        payload: { client_id: client, count: Math.min(10_000, count - done), seed: done + 1, days: 300 },
      });
      if (res.statusCode !== 201) throw new Error(res.body);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`ingest: ${2 * records} generated records in ${seconds.toFixed(1)} s = ${Math.round((2 * records) / seconds)} records/s (${db.engine})`);

  const sample = (await edgeplane.app.inject({ method: 'GET', url: '/security/notifier/v1/event_logs?limit=1&ordering=-attack_power_bps', headers })).json();
  const { id, targeted_ip_addresses: targets } = sample.results[0];
  const queries: [string, string][] = [
    ['default page (10, last year)', ''],
    ['limit 500', 'limit=500'],
    ['alert_type=rtbh_alert', 'alert_type=rtbh_alert'],
    ['targeted_ip_addresses', `targeted_ip_addresses=${encodeURIComponent(targets.split(', ')[0])}`],
    ['ordering=-attack_power_bps', 'ordering=-attack_power_bps'],
    ['offset 50000', 'offset=50000&limit=100'],
    ['7-day window', `date_from=${new Date(clock.now() - 7 * 86_400_000).toISOString()}`],
  ];
  console.log(`\n${records} records of the client (and as many of another), ${iterations} sequential requests each`);
  console.log('query | HTTP p50 / p95 ms | service p50 ms | ratio');
  for (const [name, query] of [...queries, ['detail by id', `@${id}`] as [string, string]]) {
    const url = query.startsWith('@') ? `/security/notifier/v1/event_logs/${query.slice(1)}` : `/security/notifier/v1/event_logs?${query}`;
    const http: number[] = [];
    for (let i = 0; i < iterations; i += 1) {
      const t0 = performance.now();
      const res = await edgeplane.app.inject({ method: 'GET', url, headers });
      http.push(performance.now() - t0);
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    }
    const direct: number[] = [];
    const params = Object.fromEntries(new URLSearchParams(query));
    const listQuery = {
      ordering: 'attack_start_time',
      limit: 10,
      offset: 0,
      ...params,
      ...('limit' in params ? { limit: Number(params.limit) } : {}),
      ...('offset' in params ? { offset: Number(params.offset) } : {}),
    };
    for (let i = 0; i < iterations; i += 1) {
      const t0 = performance.now();
      if (query.startsWith('@')) await service.get(principal, query.slice(1));
      else await service.list(principal, listQuery as Parameters<EventLogService['list']>[1]);
      direct.push(performance.now() - t0);
    }
    const p50 = quantile(http, 0.5);
    console.log(
      `${name} | ${p50.toFixed(2)} / ${quantile(http, 0.95).toFixed(2)} | ${quantile(direct, 0.5).toFixed(2)} | ${(p50 / quantile(direct, 0.5)).toFixed(1)}`,
    );
  }
} finally {
  await edgeplane.app.close();
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
