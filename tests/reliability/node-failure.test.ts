// Node failure on PostgreSQL: two server processes share one database under load; one is SIGKILLed with
// tasks in flight; the survivor takes them over once their leases run out. No task is lost, none runs twice.
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../../src/config.js';
import { dropPostgresSchema } from '../../src/platform/db/index.js';
import { ADMIN, allNetworks, allTasks, call, createNetworks, startServerProcess, waitForQuiet, type ServerProcess } from '../cloud/server-process.js';

const databaseUrl = testDatabaseUrl();
const schema = `nodefail_${randomBytes(4).toString('hex')}`;
const running: ServerProcess[] = [];

afterAll(async () => {
  for (const server of running) await server.kill();
  if (databaseUrl) await dropPostgresSchema(databaseUrl, schema);
});

describe.skipIf(!databaseUrl)('node failure: one of two processes on one PostgreSQL database dies', () => {
  it('the survivor finishes the dead node’s tasks after their leases expire, each exactly once', async () => {
    // Create-network tasks take 15-30 s of simulated time; at speed 10 they are in flight for 1.5-3 s.
    const env = { EDGEPLANE_DATABASE_URL: databaseUrl!, EDGEPLANE_DATABASE_SCHEMA: schema, EDGEPLANE_TASK_MODE: 'realistic', EDGEPLANE_TASK_SPEED: '10' };
    const doomed = await startServerProcess(env);
    running.push(doomed);
    const survivor = await startServerProcess(env);
    running.push(survivor);
    const project = (await call(doomed, 'GET', '/cloud/v1/projects')).results[0].id;
    const region = (await call(doomed, 'GET', '/cloud/v1/regions')).results[0].id;
    const me = await call(doomed, 'GET', '/iam/clients/me');
    await call(doomed, 'PUT', `/_edgeplane/cloud/quotas/${me.id}`, { network_count_limit: 10_000 }, ADMIN);
    // Load on both nodes; the doomed one gets most of the creations, so it holds most leases.
    const [fromDoomed, fromSurvivor] = await Promise.all([
      createNetworks(doomed, project, region, 240, 12, 'd'),
      createNetworks(survivor, project, region, 60, 4, 's'),
    ]);
    const inFlight = (await call(survivor, 'GET', '/cloud/v1/tasks?limit=1&state=NEW&state=RUNNING')).count;
    const killedAt = Date.now();
    await doomed.kill('SIGKILL');
    expect(inFlight).toBeGreaterThan(0);

    await waitForQuiet(survivor, 90_000);
    const tookMs = Date.now() - killedAt;
    const tasks = await allTasks(survivor, 'create_network');
    expect(new Set(tasks.map((t) => t.id))).toEqual(new Set([...fromDoomed, ...fromSurvivor]));
    expect(tasks.every((t) => t.state === 'FINISHED')).toBe(true);
    const networks = await allNetworks(survivor, project, region);
    expect(networks).toHaveLength(tasks.length);
    expect(new Set(networks.map((n) => n.creator_task_id)).size).toBe(tasks.length);
    fs.mkdirSync('.ci/out/reliability', { recursive: true });
    fs.writeFileSync(
      '.ci/out/reliability/node-failure.json',
      JSON.stringify({ tasks: tasks.length, inFlightAtKill: inFlight, recoveredInMs: tookMs }, null, 2),
    );
    await survivor.kill('SIGTERM');
  }, 180_000);
});
