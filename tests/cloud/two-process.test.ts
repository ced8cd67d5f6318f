// Two server processes share one PostgreSQL queue: every task is run by exactly one of them.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../../src/config.js';
import { dropPostgresSchema } from '../../src/platform/db/index.js';
import { allNetworks, allTasks, call, createNetworks, startServerProcess, waitForQuiet, type ServerProcess } from './server-process.js';

const databaseUrl = testDatabaseUrl();
const schema = `two_${randomBytes(4).toString('hex')}`;
const running: ServerProcess[] = [];

afterAll(async () => {
  for (const server of running) await server.kill();
  if (databaseUrl) await dropPostgresSchema(databaseUrl, schema);
});

describe.skipIf(!databaseUrl)('two processes on one PostgreSQL database', () => {
  it('runs each task once, whichever process created it', async () => {
    const env = { EDGEPLANE_DATABASE_URL: databaseUrl!, EDGEPLANE_DATABASE_SCHEMA: schema, EDGEPLANE_TASK_MODE: 'realistic', EDGEPLANE_TASK_SPEED: '20' };
    const a = await startServerProcess(env);
    running.push(a);
    const b = await startServerProcess(env);
    running.push(b);
    const project = (await call(a, 'GET', '/cloud/v1/projects')).results[0].id;
    const me = await call(a, 'GET', '/iam/clients/me');
    await call(a, 'PUT', `/_edgeplane/cloud/quotas/${me.id}`, { network_count_limit: 1000 }, 'crash-test-admin-token-0123456789');
    const [fromA, fromB] = await Promise.all([createNetworks(a, project, 76, 200, 8, 'a'), createNetworks(b, project, 76, 200, 8, 'b')]);
    await waitForQuiet(a, 40_000);
    const tasks = await allTasks(b, 'create_network');
    expect(tasks).toHaveLength(400);
    expect(new Set(tasks.map((t) => t.id))).toEqual(new Set([...fromA, ...fromB]));
    expect(tasks.every((t) => t.state === 'FINISHED')).toBe(true);
    const networks = await allNetworks(a, project, 76);
    expect(networks).toHaveLength(400);
    expect(new Set(networks.map((n) => n.creator_task_id)).size).toBe(400);
    // Which process finished each task (the engine records it): both took part, none twice.
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query(`select runner, count(*)::int as n from "${schema}".tasks where task_type = 'create_network' group by runner`);
      console.log('tasks finished per process:', rows);
      expect(rows).toHaveLength(2);
      expect(rows.reduce((sum, r) => sum + r.n, 0)).toBe(400);
    } finally {
      await client.end();
    }
  }, 60_000);
});
