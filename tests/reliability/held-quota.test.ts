// A client's rows held by another PostgreSQL session (a psql transaction left open, a node paused in the
// middle of one) make wait only that client's writes, and not for ever. A create locks its client's quota
// row at its commit: with the row held, each create of that client waits there holding a pooled
// connection. Once they held all five, every other client's writes waited for the row too. And a task
// step waiting for a held row kept every other client's tasks waiting behind it in the task queue.
import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp, engineName, type TestAccount, type TestApp } from '../support/app.js';
import { otherSession } from '../support/other-session.js';

const apps: TestApp[] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
});

interface Cloud {
  t: TestApp;
  holder: pg.Client;
  holderPid: number;
  project: (account: TestAccount) => Promise<number>;
  region: number;
}

/** An app with `lockTimeout` (and `settings`), a session of its own to hold rows with, and the first region. */
async function cloud(lockTimeout: number, settings: Record<string, unknown> = {}): Promise<Cloud> {
  const t = await createTestApp({ databaseLockTimeout: lockTimeout, ...settings });
  apps.push(t);
  const holder = await otherSession(t.db);
  const holderPid = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid;
  const first = await t.account();
  const region = (await t.request('GET', '/cloud/v1/regions', { headers: first.headers })).json().results[0].id as number;
  const project = async (account: TestAccount) => (await t.request('GET', '/cloud/v1/projects', { headers: account.headers })).json().results[0].id as number;
  return { t, holder, holderPid, project, region };
}

function createNetwork(c: Cloud, account: TestAccount, project: number, name: string) {
  return c.t.request('POST', `/cloud/v1/networks/${project}/${c.region}`, { headers: account.headers, body: { name, create_router: false } });
}

/** Holds `account`'s quota row (made by a first create) in an open transaction of the holder's session. */
async function holdQuota(c: Cloud, account: TestAccount, project: number): Promise<void> {
  expect((await createNetwork(c, account, project, 'first')).statusCode).toBe(200);
  await c.holder.query('begin');
  const { rowCount } = await c.holder.query('select client_id from cloud_quotas where client_id = $1 for update', [account.clientId]);
  expect(rowCount).toBe(1);
}

/**
 * Backends waiting for the holder's session: for a lock it has, or behind one that does (the first to
 * wait for a row takes its place in the row's queue, and the next ones wait for that one).
 */
async function waitingOnHolder(c: Cloud): Promise<number> {
  // Within a transaction PostgreSQL answers pg_stat_activity from the snapshot of its first read.
  await c.holder.query('select pg_stat_clear_snapshot()');
  const { rows } = await c.holder.query<{ n: number }>(
    `with recursive behind(pid) as (
       select pid from pg_stat_activity where $1 = any(pg_blocking_pids(pid))
       union select a.pid from pg_stat_activity a join behind b on b.pid = any(pg_blocking_pids(a.pid)))
     select count(*)::int as n from behind`,
    [c.holderPid],
  );
  return rows[0].n;
}

describe.skipIf(engineName !== 'postgres')("a client's quota row held by another PostgreSQL session", () => {
  it("takes no other client's connection: their creates answer while the held client's wait, which land once it ends", async () => {
    const c = await cloud(60_000);
    const [held, other] = [await c.t.account(), await c.t.account()];
    const [heldProject, otherProject] = [await c.project(held), await c.project(other)];
    expect((await createNetwork(c, other, otherProject, 'other-first')).statusCode).toBe(200);
    await holdQuota(c, held, heldProject);
    let waiting: ReturnType<typeof createNetwork>[] = [];
    try {
      // More creates than the pool has connections (five): four wait at the row, the rest in the client's queue.
      waiting = Array.from({ length: 8 }, (_, i) => createNetwork(c, held, heldProject, `held-${i}`));
      await expect.poll(() => waitingOnHolder(c), { timeout: 10_000 }).toBe(4);
      for (let i = 0; i < 3; i += 1) {
        const answer = await createNetwork(c, other, otherProject, `other-${i}`);
        expect(answer.statusCode).toBe(200);
        const task = await c.t.request('GET', `/cloud/v1/tasks/${answer.json().tasks[0]}`, { headers: other.headers });
        expect(task.json().state).toBe('FINISHED');
      }
      expect(await waitingOnHolder(c)).toBe(4);
    } finally {
      await c.holder.query('rollback');
    }
    const answers = await Promise.all(waiting);
    expect(answers.map((answer) => answer.statusCode)).toEqual(answers.map(() => 200));
    const networks = (await c.t.request('GET', `/cloud/v1/networks/${heldProject}/${c.region}`, { headers: held.headers })).json();
    expect(networks.count).toBe(9);
    await c.holder.end();
  }, 30_000);

  it('answers a create that waited longer than --database-lock-timeout with 503 and Retry-After, having written nothing', async () => {
    const c = await cloud(300);
    const held = await c.t.account();
    const project = await c.project(held);
    await holdQuota(c, held, project);
    try {
      const answer = await createNetwork(c, held, project, 'late');
      expect(answer.statusCode).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.json().message).toMatch(/held by another database session/);
    } finally {
      await c.holder.query('rollback');
    }
    const networks = (await c.t.request('GET', `/cloud/v1/networks/${project}/${c.region}`, { headers: held.headers })).json();
    expect(networks.results.map((n: { name: string }) => n.name)).toEqual(['first']);
    const tasks = (await c.t.request('GET', '/cloud/v1/tasks?task_type=create_network', { headers: held.headers })).json();
    expect(tasks.count).toBe(1);
    expect((await createNetwork(c, held, project, 'again')).statusCode).toBe(200);
    await c.holder.end();
  }, 30_000);
});

describe.skipIf(engineName !== 'postgres')('a realistic task step whose rows another PostgreSQL session holds', () => {
  it("keeps only its own client's tasks waiting: another client's tasks start and finish meanwhile", async () => {
    const c = await cloud(60_000, { taskMode: 'realistic' });
    const [held, other] = [await c.t.account(), await c.t.account()];
    const [heldProject, otherProject] = [await c.project(held), await c.project(other)];
    const state = async (account: TestAccount, taskId: string) =>
      (await c.t.request('GET', `/cloud/v1/tasks/${taskId}`, { headers: account.headers })).json().state as string;
    c.t.clock.freeze();
    try {
      const waits = (await createNetwork(c, held, heldProject, 'held')).json().tasks[0] as string;
      await expect.poll(() => state(held, waits)).toBe('RUNNING');
      await c.holder.query('begin');
      await c.holder.query('select id from cloud_resources where client_id = $1 for update', [held.clientId]);
      try {
        // The held client's task is due to finish: its step waits at its network's row.
        c.t.clock.advance(86_400_000);
        await expect.poll(() => waitingOnHolder(c), { timeout: 10_000 }).toBe(1);
        const moves = (await createNetwork(c, other, otherProject, 'other')).json().tasks[0] as string;
        await expect.poll(() => state(other, moves), { timeout: 5_000 }).toBe('RUNNING');
        c.t.clock.advance(86_400_000);
        await expect.poll(() => state(other, moves), { timeout: 5_000 }).toBe('FINISHED');
        expect(await state(held, waits)).toBe('RUNNING');
        expect(await waitingOnHolder(c)).toBe(1);
      } finally {
        await c.holder.query('rollback');
      }
      await expect.poll(() => state(held, waits), { timeout: 10_000 }).toBe('FINISHED');
    } finally {
      c.t.clock.resume();
      await c.holder.end();
    }
  }, 40_000);
});
