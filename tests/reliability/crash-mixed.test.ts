// Crash safety under a mixed write load: rule templates, cloud networks (asynchronous tasks) and DDoS
// event ingestion run concurrently while the server is SIGKILLed at a random moment, EDGEPLANE_CRASH_ROUNDS
// times (20 in CI). After every restart each acknowledged write is there and whole; at the end every task
// is FINISHED or ERROR and each finished task made its network exactly once.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../../src/config.js';
import { dropPostgresSchema } from '../../src/platform/db/index.js';
import { ADMIN, allNetworks, allTasks, call, startServerProcess, waitForQuiet, type ServerProcess } from '../cloud/server-process.js';

const ROUNDS = Number(process.env.EDGEPLANE_CRASH_ROUNDS || 20);
const databaseUrl = testDatabaseUrl();
const engine = databaseUrl ? 'postgres' : 'sqlite';
const schema = `crashmix_${randomBytes(4).toString('hex')}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-crashmix-'));
const storage: Record<string, string> = databaseUrl
  ? { EDGEPLANE_DATABASE_URL: databaseUrl, EDGEPLANE_DATABASE_SCHEMA: schema }
  : { EDGEPLANE_DATA_DIR: dataDir };
const running: ServerProcess[] = [];

afterAll(async () => {
  for (const server of running) await server.kill();
  if (databaseUrl) await dropPostgresSchema(databaseUrl, schema);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Acked {
  templates: Map<number, { name: string; rule: string; weight: number }>;
  events: Map<string, { attack_power_bps: number }>;
  tasks: Set<string>;
}

/** Write load until the server dies; only answered (acknowledged) writes are recorded. */
async function load(server: ServerProcess, round: number, project: number, region: number, acked: Acked, clientId: number): Promise<number> {
  let alive = true;
  let sent = 0;
  const worker = async (kind: number) => {
    for (let i = 0; alive; i++) {
      sent += 1;
      try {
        if (kind === 0) {
          const body = {
            name: `r${round}-${i}`,
            rule: `/round${round}/item${i}/*`,
            ruleType: 0,
            weight: round * 1000 + i + 1,
            options: { gzipOn: { enabled: true, value: true } },
          };
          const res = await call(server, 'POST', '/cdn/resources/rule_templates', body);
          acked.templates.set(res.id, { name: body.name, rule: body.rule, weight: body.weight });
        } else if (kind === 1) {
          const res = await call(server, 'POST', `/cloud/v1/networks/${project}/${region}`, { name: `n${round}-${i}`, create_router: false, type: 'vxlan' });
          acked.tasks.add(res.tasks[0]);
        } else {
          const id = randomUUID();
          const bps = round * 1_000_000 + i;
          await call(server, 'POST', '/_edgeplane/security/event-logs', { id, client_id: clientId, alert_type: 'ddos_alert', attack_power_bps: bps }, ADMIN);
          acked.events.set(id, { attack_power_bps: bps });
        }
      } catch {
        // The server was killed mid-request: this write is not acknowledged.
        if (server.child.exitCode !== null || server.child.signalCode !== null) return;
      }
    }
  };
  const workers = [0, 0, 1, 1, 2, 2].map((kind) => worker(kind));
  await new Promise((r) => setTimeout(r, 150 + Math.random() * 900));
  await server.kill('SIGKILL');
  alive = false;
  await Promise.all(workers);
  return sent;
}

async function verify(server: ServerProcess, acked: Acked): Promise<void> {
  const templates = new Map<number, any>();
  for (let offset = 0; ; offset += 1000) {
    const page = await call(server, 'GET', `/cdn/resources/rule_templates?limit=1000&offset=${offset}`);
    const list = Array.isArray(page) ? page : page.results;
    for (const t of list) templates.set(t.id, t);
    if (list.length < 1000) break;
  }
  for (const [id, want] of acked.templates) {
    const got = templates.get(id);
    expect(got, `acknowledged rule template ${id}`).toBeDefined();
    expect({ name: got.name, rule: got.rule, weight: got.weight }).toEqual(want);
    expect(got.options.gzipOn).toEqual({ enabled: true, value: true });
  }
  // Whole rows only: every stored template (acknowledged or not) has all of its fields.
  for (const t of templates.values()) expect(typeof t.name === 'string' && typeof t.rule === 'string' && t.options).toBeTruthy();
  for (const [id, want] of acked.events) {
    const got = await call(server, 'GET', `/security/notifier/v1/event_logs/${id}`);
    expect(got.attack_power_bps).toBe(want.attack_power_bps);
  }
  const tasks = await allTasks(server, 'create_network');
  const ids = new Set(tasks.map((t) => t.id));
  for (const id of acked.tasks) expect(ids.has(id), `acknowledged task ${id}`).toBe(true);
}

describe(`crash safety under mixed writes (${engine}, ${ROUNDS} SIGKILLs)`, () => {
  it('keeps every acknowledged write whole and ends every task exactly once', async () => {
    const env = { ...storage, EDGEPLANE_TASK_MODE: 'realistic', EDGEPLANE_TASK_SPEED: '40' };
    const acked: Acked = { templates: new Map(), events: new Map(), tasks: new Set() };
    let server = await startServerProcess(env);
    running.push(server);
    const me = await call(server, 'GET', '/iam/clients/me');
    const project = (await call(server, 'GET', '/cloud/v1/projects')).results[0].id;
    const region = (await call(server, 'GET', '/cloud/v1/regions')).results[0].id;
    await call(server, 'PUT', `/_edgeplane/cloud/quotas/${me.id}`, { network_count_limit: 100_000 }, ADMIN);
    let sent = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      sent += await load(server, round, project, region, acked, me.id);
      server = await startServerProcess(env);
      running.push(server);
      await verify(server, acked);
    }
    await waitForQuiet(server, 60_000);
    const tasks = await allTasks(server, 'create_network');
    expect(tasks.every((t) => t.state === 'FINISHED' || t.state === 'ERROR')).toBe(true);
    const finished = tasks.filter((t) => t.state === 'FINISHED');
    for (const t of tasks.filter((x) => x.state === 'ERROR')) expect(t.created_resources).toBeNull();
    const networks = await allNetworks(server, project, region);
    expect(networks).toHaveLength(finished.length);
    expect(new Set(networks.map((n) => n.creator_task_id))).toEqual(new Set(finished.map((t) => t.id)));
    fs.mkdirSync('.ci/out/reliability', { recursive: true });
    fs.writeFileSync(
      `.ci/out/reliability/crash-${engine}.json`,
      JSON.stringify(
        {
          engine,
          rounds: ROUNDS,
          requestsSent: sent,
          acknowledged: { templates: acked.templates.size, events: acked.events.size, tasks: acked.tasks.size },
          tasksChecked: tasks.length,
          finished: finished.length,
          error: tasks.length - finished.length,
        },
        null,
        2,
      ),
    );
    await server.kill('SIGTERM');
  }, 600_000);
});
