// The usage quotas are checked against (cloud_usage) is kept by the database from cloud_resources: after
// any sequence of inserts, readiness changes, resizes, moves, ports joining or leaving a network and
// deletes, and after a state export and import or a one-client reset, it equals the figures counted from
// the rows themselves (public addresses: the ready ports without a parent).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engineName, type TestApp } from '../../../tests/support/app.js';
import { type CommitCheck, runChecks, type TaskContext, type TaskRow } from '../../platform/tasks/types.js';
import { transactionEndingWith } from '../../platform/db/final-statement.js';
import { newRow, ResourceStore, type ResourceRow } from '../common/resource-store.js';
import { RegionService } from '../regions/service.js';
import { QuotaService } from './service.js';
import { QuotaStore } from './store.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const KINDS = ['network', 'volume', 'instance', 'port'];

/** The figures counted from the rows, as the quota check read them before the table kept them. */
async function counted(clientId: number, regionId: number) {
  const rows = await sql<{ kind: string; n: number; vcpus: number; ram: number; size: number; public_ports: number }>`
    select kind, count(*) as n, sum(vcpus) as vcpus, sum(ram_mb) as ram, sum(size_gb) as size,
      sum(case when kind = 'port' and parent_id is null then 1 else 0 end) as public_ports
    from cloud_resources where client_id = ${clientId} and region_id = ${regionId} and ready = 1 group by kind`.execute(t.db.kysely);
  return rows.rows
    .map((r) => ({ kind: r.kind, n: Number(r.n), vcpus: Number(r.vcpus), ram: Number(r.ram), size: Number(r.size), publicPorts: Number(r.public_ports) }))
    .sort(byKind);
}

const byKind = (a: { kind: string }, b: { kind: string }) => a.kind.localeCompare(b.kind);

async function kept(clientId: number, regionId: number) {
  return (await new ResourceStore(t.db.kysely).usage(clientId, [regionId]))
    .filter((r) => r.n !== 0)
    .map(({ regionId: _, ...figures }) => figures)
    .sort(byKind);
}

function row(
  id: string,
  clientId: number,
  regionId: number,
  kind: string,
  ready: number,
  [vcpus, ram_mb, size_gb]: [number, number, number],
  parent_id: string | null = null,
) {
  const scope = { clientId, projectId: 1, regionId };
  return newRow(scope, kind as ResourceRow['kind'], id, id, ready ? 'ACTIVE' : 'CREATING', '', {}, Date.now(), {
    ready,
    vcpus,
    ram_mb,
    size_gb,
    creator_task_id: null,
    task_id: null,
    parent_id,
  });
}

describe(`cloud usage kept by the database (${engineName})`, () => {
  it('equals the counted figures after random writes of every kind', async () => {
    const a = await t.account();
    const b = await t.account();
    const db = t.db.kysely;
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const ids: string[] = [];
    for (let step = 0; step < 300; step += 1) {
      const action = ids.length === 0 ? 0 : random(6);
      const id = ids.length > 0 ? ids[random(ids.length)] : '';
      if (action === 0) {
        const next = `usage-${step}`;
        ids.push(next);
        const client = random(2) === 0 ? a.clientId : b.clientId;
        await db
          .insertInto('cloud_resources')
          .values(row(next, client, 76 + random(2), KINDS[random(KINDS.length)], random(2), [random(8), random(4096), random(100)], random(2) ? null : 'net-1'))
          .execute();
      } else if (action === 1) {
        await db
          .updateTable('cloud_resources')
          .set({ ready: random(2) })
          .where('id', '=', id)
          .execute();
      } else if (action === 2) {
        await db
          .updateTable('cloud_resources')
          .set({ size_gb: random(500), vcpus: random(16) })
          .where('id', '=', id)
          .execute();
      } else if (action === 3) {
        await db
          .updateTable('cloud_resources')
          .set({ region_id: 76 + random(2), kind: KINDS[random(KINDS.length)] })
          .where('id', '=', id)
          .execute();
      } else if (action === 4) {
        // A port joins a network of the client's or leaves it: it stops or starts being a public address.
        await db
          .updateTable('cloud_resources')
          .set({ parent_id: random(2) ? null : 'net-2' })
          .where('id', '=', id)
          .execute();
      } else {
        await db.deleteFrom('cloud_resources').where('id', '=', id).execute();
        ids.splice(ids.indexOf(id), 1);
      }
    }
    for (const client of [a.clientId, b.clientId])
      for (const region of [76, 77]) expect(await kept(client, region), `client ${client} region ${region}`).toEqual(await counted(client, region));
  });

  it('stays equal through a state export and import, and a one-client reset', async () => {
    const a = await t.account();
    const db = t.db.kysely;
    await db
      .insertInto('cloud_resources')
      .values([
        row('kept-1', a.clientId, 76, 'volume', 1, [0, 0, 10]),
        row('kept-2', a.clientId, 76, 'volume', 1, [0, 0, 5]),
        row('kept-3', a.clientId, 76, 'network', 0, [0, 0, 0]),
      ])
      .execute();
    const expected = await counted(a.clientId, 76);
    expect(expected).toEqual([{ kind: 'volume', n: 2, vcpus: 0, ram: 0, size: 15, publicPorts: 0 }]);

    const exported = await t.request('GET', `/_edgeplane/state?clientId=${a.clientId}`, { headers: t.operator });
    expect(exported.statusCode, exported.body).toBe(200);
    expect(Object.keys(exported.json().tables)).not.toContain('cloud_usage');
    const imported = await t.request('PUT', '/_edgeplane/state', { headers: t.operator, body: exported.json() });
    expect(imported.statusCode, imported.body).toBe(200);
    expect(await kept(a.clientId, 76)).toEqual(expected);

    const reset = await t.request('POST', '/_edgeplane/state/reset', { headers: t.operator, body: { clientId: a.clientId } });
    expect(reset.statusCode, reset.body).toBeLessThan(300);
    expect(await kept(a.clientId, 76)).toEqual([]);
    expect(await counted(a.clientId, 76)).toEqual([]);
  });
});

describe(`quota checks a task step makes at its commit (${engineName})`, () => {
  it('sees what the step made ready before them (SQLite) or adds them up at the end (PostgreSQL): neither lets a step past a limit', async () => {
    const a = await t.account();
    const db = t.db.kysely;
    await t.request('PUT', `/_edgeplane/cloud/quotas/${a.clientId}`, { headers: t.operator, body: { network_count_limit: 3 } });
    await db
      .insertInto('cloud_resources')
      .values([row('held-1', a.clientId, 76, 'network', 1, [0, 0, 0]), row('held-2', a.clientId, 76, 'network', 1, [0, 0, 0])])
      .execute();
    const quotas = new QuotaService(new QuotaStore(db, t.db.engine), new ResourceStore(db), new RegionService(), t.clock, async () => 0);
    const usedInside: number[] = [];
    /**
     * One step: a check, a network made ready, then (with `twice`) a second check, as a task type's work
     * would; run as the task engine runs it, the checks after the work, the last one (a statement) with the COMMIT.
     */
    const step = (id: string, twice: boolean) =>
      transactionEndingWith(t.db, async (trx) => {
        const checks: CommitCheck[] = [];
        const task = { client_id: a.clientId, region_id: 76 } as TaskRow;
        const ctx: TaskContext = { trx, task, data: {}, now: 0, beforeCommit: (check) => void checks.push(check) };
        await quotas.checkAtCommit(ctx, { network_count: 1 });
        await trx
          .insertInto('cloud_resources')
          .values(row(id, a.clientId, 76, 'network', 1, [0, 0, 0]))
          .execute();
        usedInside.push((await new ResourceStore(trx).usage(a.clientId, [76], ['network']))[0].n);
        if (twice) await quotas.checkAtCommit(ctx, { network_count: 1 });
        return { value: undefined, last: await runChecks(trx, checks) };
      });
    await expect(step('held-3', true)).rejects.toThrow(/Quota exceeded in region 76 \(networks: requested (1, in use 3|2, in use 2), limit 3\)/);
    await step('held-3', false);
    // PostgreSQL's usage triggers run at commit (migration 018): a transaction does not see its own changes there.
    expect(usedInside).toEqual(engineName === 'postgres' ? [2, 2] : [3, 3]);
    expect(await kept(a.clientId, 76)).toEqual(await counted(a.clientId, 76));
    expect((await quotas.usage(a.clientId, 76)).network_count).toBe(3);
    await expect(step('held-4', false)).rejects.toThrow(/networks: requested 1, in use 3, limit 3/);
  });
});
