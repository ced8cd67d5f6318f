// SIGKILL the server while 1000 tasks are in flight, restart it, and check that every task ends
// FINISHED or ERROR, none is lost, and none ran twice (each network exists exactly once).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../../src/config.js';
import { dropPostgresSchema } from '../../src/platform/db/index.js';
import { ADMIN, allNetworks, allTasks, call, createNetworks, startServerProcess, waitForQuiet, type ServerProcess } from './server-process.js';

const databaseUrl = testDatabaseUrl();
const schema = `crash_${randomBytes(4).toString('hex')}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-crash-'));
const storage: Record<string, string> = databaseUrl
  ? { EDGEPLANE_DATABASE_URL: databaseUrl, EDGEPLANE_DATABASE_SCHEMA: schema }
  : { EDGEPLANE_DATA_DIR: dataDir };
const running: ServerProcess[] = [];

afterAll(async () => {
  for (const server of running) await server.kill();
  if (databaseUrl) await dropPostgresSchema(databaseUrl, schema);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe(`crash recovery on ${databaseUrl ? 'postgres' : 'sqlite'}`, () => {
  it('resumes every unfinished task after SIGKILL, each exactly once', async () => {
    const TOTAL = 1000;
    const t0 = Date.now();
    const mark = (what: string) => console.log(`${what} at ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const first = await startServerProcess({ ...storage, EDGEPLANE_TASK_MODE: 'realistic', EDGEPLANE_TASK_SPEED: '4' });
    running.push(first);
    const me = await call(first, 'GET', '/iam/clients/me');
    const project = (await call(first, 'GET', '/cloud/v1/projects')).results[0].id;
    // 900 fit the quota, so the last 100 to finish fail with a reason: both end states are exercised.
    await call(first, 'PUT', `/_edgeplane/cloud/quotas/${me.id}`, { network_count_limit: 900 }, ADMIN);
    mark('first server up');
    const created = await createNetworks(first, project, 76, TOTAL);
    mark(`${TOTAL} creates answered`);
    expect(created).toHaveLength(TOTAL);
    const before = await call(first, 'GET', '/cloud/v1/tasks?limit=1&state=FINISHED&state=ERROR');
    await first.kill('SIGKILL');
    expect(before.count).toBeLessThan(TOTAL);

    const second = await startServerProcess({ ...storage, EDGEPLANE_TASK_MODE: 'realistic', EDGEPLANE_TASK_SPEED: '1000' });
    running.push(second);
    mark('restarted');
    // 1,000 tasks at a speed of 1000: seconds alone, a minute and more on a loaded machine.
    await waitForQuiet(second, 120_000);
    mark('all tasks ended');
    const tasks = await allTasks(second, 'create_network');
    expect(tasks).toHaveLength(TOTAL);
    expect(new Set(tasks.map((t) => t.id))).toEqual(new Set(created));
    const finished = tasks.filter((t) => t.state === 'FINISHED');
    const failed = tasks.filter((t) => t.state === 'ERROR');
    expect(finished.length + failed.length).toBe(TOTAL);
    expect(finished).toHaveLength(900);
    for (const t of failed) {
      expect(t.error).toMatch(/Quota exceeded/);
      expect(t.created_resources).toBeNull();
    }
    const networks = await allNetworks(second, project, 76);
    expect(networks).toHaveLength(finished.length);
    const made = finished.map((t) => t.created_resources.networks[0]);
    expect(new Set(made).size).toBe(finished.length);
    expect(new Set(networks.map((n) => n.id))).toEqual(new Set(made));
    expect(new Set(networks.map((n) => n.creator_task_id))).toEqual(new Set(finished.map((t) => t.id)));
    await second.kill('SIGTERM');
  }, 240_000);
});
