// Task types of Kubernetes clusters and pools: create, update, upgrade and delete a cluster; create,
// resize and delete a pool. Nodes written ahead by a request become running when their task finishes,
// once the client's quotas allow them.
import type { TaskContext, TaskType } from '../../platform/tasks/types.js';
import { attrsOf, pendingRow, ResourceStore } from '../common/resource-store.js';
import type { QuotaDelta, QuotaService } from '../quotas/service.js';
import { issueCredentials } from './certs.js';
import { nodeQuota, poolNodes, removeNodes, startNodes, type PoolAttrs } from './nodes.js';
import type { ClusterAttrs } from './service.js';

// Seed, Limits: creating a cluster typically takes 5 to 15 minutes; upgrades and deletes are alike.
// Pools are not listed: a pool is a group of VMs, a few minutes.
const CLUSTER_DURATION = [300_000, 900_000] as const;
const POOL_DURATION = [60_000, 300_000] as const;

function sum(deltas: QuotaDelta[]): QuotaDelta {
  const out: QuotaDelta = {};
  for (const delta of deltas) for (const [k, v] of Object.entries(delta) as [keyof QuotaDelta, number][]) out[k] = (out[k] ?? 0) + v;
  return out;
}

/** Lets go of the cluster (and a pool) after a task on them. */
async function release({ trx, data, now }: TaskContext, poolStatus?: string): Promise<void> {
  const store = new ResourceStore(trx);
  await store.update(data.cluster_id, { task_id: null, updated_at: now });
  if (data.pool_id) await store.update(data.pool_id, { task_id: null, updated_at: now, ...(poolStatus ? { status: poolStatus } : {}) });
}

async function removeCluster(store: ResourceStore, clusterId: string, volumes: string[], now: number): Promise<void> {
  for (const pool of await store.children(clusterId, 'k8s_pool')) {
    await removeNodes(store, await poolNodes(store, pool.id), now);
    await store.delete(pool.id);
  }
  await store.deleteMany(volumes);
  await store.delete(clusterId);
}

export function clusterTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    {
      type: 'create_k8s_cluster_v2',
      durationMs: CLUSTER_DURATION,
      async complete(ctx) {
        const { trx, task, data, now } = ctx;
        const store = new ResourceStore(trx);
        const cluster = await pendingRow(store, data.cluster_id, 'Cluster');
        const pools = await store.children(cluster.id, 'k8s_pool');
        const nodes = pools.map((p) => nodeQuota(attrsOf<PoolAttrs>(p), attrsOf<PoolAttrs>(p).node_count));
        await quotas.checkAtCommit(ctx, sum([{ cluster_count: 1 }, ...nodes]));
        await startNodes(store, task.task_id, now);
        for (const pool of pools) await store.update(pool.id, { status: 'Running', ready: 1, task_id: null, updated_at: now });
        const attrs = attrsOf<ClusterAttrs>(cluster);
        attrs.credentials = issueCredentials(cluster.name, now);
        await store.update(cluster.id, { status: 'Provisioned', ready: 1, task_id: null, attrs: JSON.stringify(attrs), updated_at: now });
        // One create names exactly one cluster, as the official client's create_and_poll helpers expect.
        return { k8s_clusters: [cluster.id], k8s_pools: pools.map((p) => p.id) };
      },
      async fail({ trx, task }) {
        await new ResourceStore(trx).deleteCreatedBy(task.task_id);
      },
    },
    {
      type: 'update_k8s_cluster_v2',
      durationMs: POOL_DURATION,
      async complete(ctx) {
        const store = new ResourceStore(ctx.trx);
        const cluster = await pendingRow(store, ctx.data.cluster_id, 'Cluster');
        const attrs = attrsOf<ClusterAttrs>(cluster);
        attrs.settings = { ...attrs.settings, ...ctx.data.changes };
        await store.update(cluster.id, { attrs: JSON.stringify(attrs) });
        await release(ctx);
      },
      fail: (ctx) => release(ctx),
    },
    {
      type: 'upgrade_k8s_cluster_v2',
      durationMs: CLUSTER_DURATION,
      async complete(ctx) {
        const store = new ResourceStore(ctx.trx);
        const row = await store.byId(ctx.data.cluster_id);
        if (!row) return;
        const attrs = attrsOf<ClusterAttrs>(row);
        attrs.version = ctx.data.version;
        await store.update(row.id, { attrs: JSON.stringify(attrs) });
        await release(ctx);
      },
      fail: (ctx) => release(ctx),
    },
    {
      type: 'delete_k8s_cluster_v2',
      durationMs: CLUSTER_DURATION,
      async complete({ trx, data, now }) {
        await removeCluster(new ResourceStore(trx), data.cluster_id, data.volumes ?? [], now);
      },
      async fail({ trx, data, now }) {
        await new ResourceStore(trx).update(data.cluster_id, { status: 'Provisioned', task_id: null, updated_at: now });
      },
    },
    {
      type: 'create_k8s_cluster_pool_v2',
      durationMs: POOL_DURATION,
      async complete(ctx) {
        const store = new ResourceStore(ctx.trx);
        const pool = await pendingRow(store, ctx.data.pool_id, 'Pool');
        const attrs = attrsOf<PoolAttrs>(pool);
        await quotas.checkAtCommit(ctx, nodeQuota(attrs, attrs.node_count));
        await startNodes(store, ctx.task.task_id, ctx.now);
        await store.update(pool.id, { status: 'Running', ready: 1 });
        await release(ctx);
        return { k8s_pools: [pool.id] };
      },
      async fail(ctx) {
        await new ResourceStore(ctx.trx).deleteCreatedBy(ctx.task.task_id);
        await new ResourceStore(ctx.trx).update(ctx.data.cluster_id, { task_id: null, updated_at: ctx.now });
      },
    },
    {
      type: 'resize_k8s_cluster_v2',
      durationMs: POOL_DURATION,
      async complete(ctx) {
        const store = new ResourceStore(ctx.trx);
        const pool = await pendingRow(store, ctx.data.pool_id, 'Pool');
        const attrs = attrsOf<PoolAttrs>(pool);
        const target: number = ctx.data.node_count;
        if (target > attrs.node_count) await quotas.checkAtCommit(ctx, nodeQuota(attrs, target - attrs.node_count));
        await startNodes(store, ctx.task.task_id, ctx.now);
        if (target < attrs.node_count) await removeNodes(store, (await poolNodes(store, pool.id)).slice(-(attrs.node_count - target)), ctx.now);
        await store.update(pool.id, { attrs: JSON.stringify({ ...attrs, node_count: target }) });
        await release(ctx, 'Running');
      },
      async fail(ctx) {
        await new ResourceStore(ctx.trx).deleteCreatedBy(ctx.task.task_id);
        await release(ctx, 'Running');
      },
    },
    {
      type: 'delete_k8s_cluster_pool_v2',
      durationMs: POOL_DURATION,
      async complete(ctx) {
        const store = new ResourceStore(ctx.trx);
        await removeNodes(store, await poolNodes(store, ctx.data.pool_id), ctx.now);
        await store.delete(ctx.data.pool_id);
        await store.update(ctx.data.cluster_id, { task_id: null, updated_at: ctx.now });
      },
      fail: (ctx) => release(ctx, 'Running'),
    },
  ];
}
