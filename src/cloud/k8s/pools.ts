// The pools of a Kubernetes cluster and their nodes: pools are created, resized and deleted through
// tasks, changed at once; nodes are listed and deleted one by one (never below the pool's minimum).
// A pool's flavor, boot volume type and security groups must exist; a cluster keeps one pool at least.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError, notFound } from '../../platform/errors.js';
import { badInput, bodyField } from '../common/errors.js';
import { pageOf } from '../common/filters.js';
import { plainTime } from '../common/format.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import type { TaskIds } from '../common/regional-records.js';
import { attrsOf, newRow, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import { flavorById } from '../instances/flavors.js';
import type { QuotaDelta, QuotaService } from '../quotas/service.js';
import type { RegionDefinition } from '../regions/catalogue.js';
import type { SecurityGroupService } from '../security-groups/service.js';
import { nodeQuota, nodeRows, poolNodes, removeNodes, startNodes, type PoolAttrs } from './nodes.js';
import type { CheckPoolBody, PoolInput, PoolSchema, PoolUpdateBody } from './schemas.js';

type Pool = Static<typeof PoolSchema>;

export class PoolService {
  /** Shows nodes (instances) without this module knowing how; set by the product once instances exist. */
  presentInstance: (row: ResourceRow) => Promise<unknown> = async (row) => row;

  constructor(
    private readonly ops: Operations,
    private readonly groups: SecurityGroupService,
    private readonly quotas: QuotaService,
  ) {}

  /** A pool of a request as it is stored, once its flavor, volume type and security groups are checked. */
  async checkPool(scope: Scope, region: RegionDefinition, input: Static<typeof PoolInput>, path: (string | number)[]): Promise<PoolAttrs> {
    if (!flavorById(input.flavor_id)) throw badInput([bodyField([...path, 'flavor_id'], `unknown flavor ${input.flavor_id}`)]);
    const max = input.max_node_count ?? input.min_node_count;
    if (max < input.min_node_count) throw badInput([bodyField([...path, 'max_node_count'], `must be at least min_node_count (${input.min_node_count})`)]);
    const volumeType = input.boot_volume_type ?? 'standard';
    if (!region.available_volume_types.includes(volumeType))
      throw badInput([bodyField([...path, 'boot_volume_type'], `volume type ${volumeType} is not available in region ${region.id}`)]);
    const groups = input.security_group_ids ?? [];
    if (groups.length > 0) await this.groups.require(scope, groups, [...path, 'security_group_ids']);
    return {
      flavor_id: input.flavor_id,
      min_node_count: input.min_node_count,
      max_node_count: max,
      node_count: input.min_node_count,
      boot_volume_size: input.boot_volume_size ?? 50,
      boot_volume_type: volumeType,
      auto_healing_enabled: input.auto_healing_enabled ?? false,
      is_public_ipv4: input.is_public_ipv4 ?? false,
      labels: input.labels ?? {},
      taints: input.taints ?? {},
      kubelet_config: input.kubelet_config ?? {},
      crio_config: input.crio_config ?? {},
      security_group_ids: groups,
      servergroup_policy: input.servergroup_policy ?? null,
    };
  }

  async list(caller: Caller, projectId: number, regionId: number, clusterName: string) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const cluster = await this.cluster(scope, clusterName);
    const pools = await this.ops.resources.children(cluster.id, 'k8s_pool');
    return { count: pools.length, results: pools.map((p) => this.present(p)) };
  }

  async get(caller: Caller, projectId: number, regionId: number, clusterName: string, poolName: string): Promise<Pool> {
    const scope = await this.ops.readable(caller, projectId, regionId);
    return this.present(await this.pool(scope, clusterName, poolName));
  }

  async create(caller: Caller, projectId: number, regionId: number, clusterName: string, body: Static<typeof PoolInput>): Promise<TaskIds> {
    const { scope, region } = await this.ops.place(caller, projectId, regionId, 'has_k8s');
    const cluster = await this.idleCluster(scope, clusterName);
    if ((await this.ops.resources.children(cluster.id, 'k8s_pool')).some((p) => p.name === body.name))
      throw new AppError('conflict', `Cluster ${clusterName} already has a pool named ${body.name}`);
    const attrs = await this.checkPool(scope, region, body, []);
    const id = randomUUID();
    const now = this.ops.clock.now();
    const keypair = attrsOf<{ keypair: string }>(cluster).keypair;
    const task = await this.ops.submit(caller, scope, 'create_k8s_cluster_pool_v2', { cluster_id: cluster.id, pool_id: id }, async (trx, taskId) => {
      const store = new ResourceStore(trx);
      const row = newRow(scope, 'k8s_pool', id, body.name, 'Provisioning', taskId, attrs, now, { parent_id: cluster.id });
      await store.insert(row, ...nodeRows(scope, { id: cluster.id, name: cluster.name, keypair }, row, attrs.node_count, taskId, now));
      await store.update(cluster.id, { task_id: taskId, updated_at: now });
    });
    return { tasks: [task], id };
  }

  /** Changed at once; a new node count (deprecated here: resize) adds or removes nodes at once too. */
  async update(caller: Caller, projectId: number, regionId: number, clusterName: string, poolName: string, body: Static<typeof PoolUpdateBody>): Promise<Pool> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_k8s');
    await this.idleCluster(scope, clusterName);
    const row = await this.pool(scope, clusterName, poolName);
    if (row.task_id) throw new AppError('conflict', `Pool ${poolName} is busy with task ${row.task_id}`);
    const attrs = attrsOf<PoolAttrs>(row);
    const next: PoolAttrs = {
      ...attrs,
      auto_healing_enabled: body.auto_healing_enabled ?? attrs.auto_healing_enabled,
      labels: body.labels === undefined ? attrs.labels : (body.labels ?? {}),
      taints: body.taints === undefined ? attrs.taints : (body.taints ?? {}),
      min_node_count: body.min_node_count ?? attrs.min_node_count,
      max_node_count: body.max_node_count ?? attrs.max_node_count,
      node_count: body.node_count ?? attrs.node_count,
      security_group_ids: body.security_group_ids ?? attrs.security_group_ids,
    };
    if (next.max_node_count < next.min_node_count) throw badInput([bodyField(['max_node_count'], `must be at least min_node_count (${next.min_node_count})`)]);
    if (next.node_count < next.min_node_count || next.node_count > next.max_node_count)
      throw badInput([bodyField(['node_count'], `must be between min_node_count (${next.min_node_count}) and max_node_count (${next.max_node_count})`)]);
    if (body.security_group_ids?.length) await this.groups.require(scope, body.security_group_ids, ['security_group_ids']);
    const cluster = await this.cluster(scope, clusterName);
    const now = this.ops.clock.now();
    await this.ops.transaction(scope, async (trx) => {
      const store = new ResourceStore(trx);
      await this.scale(store, scope, cluster, row, attrs.node_count, next.node_count, `pool-update:${row.id}:${now}`, now, true);
      await store.update(row.id, { attrs: JSON.stringify(next), updated_at: now });
    });
    return this.present((await this.ops.resources.byId(row.id))!);
  }

  async resize(caller: Caller, projectId: number, regionId: number, clusterName: string, poolName: string, nodeCount: number): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_k8s');
    const cluster = await this.idleCluster(scope, clusterName);
    const row = await this.pool(scope, clusterName, poolName);
    const attrs = attrsOf<PoolAttrs>(row);
    if (nodeCount < attrs.min_node_count || nodeCount > attrs.max_node_count)
      throw badInput([bodyField(['node_count'], `must be between min_node_count (${attrs.min_node_count}) and max_node_count (${attrs.max_node_count})`)]);
    const now = this.ops.clock.now();
    const task = await this.ops.submit(
      caller,
      scope,
      'resize_k8s_cluster_v2',
      { cluster_id: cluster.id, pool_id: row.id, node_count: nodeCount },
      async (trx, taskId) => {
        const store = new ResourceStore(trx);
        const keypair = attrsOf<{ keypair: string }>(cluster).keypair;
        if (nodeCount > attrs.node_count)
          await store.insert(...nodeRows(scope, { id: cluster.id, name: cluster.name, keypair }, row, nodeCount - attrs.node_count, taskId, now));
        await store.update(row.id, { status: 'Scaling', task_id: taskId, updated_at: now });
        await store.update(cluster.id, { task_id: taskId, updated_at: now });
      },
    );
    return { tasks: [task], id: row.id };
  }

  async delete(caller: Caller, projectId: number, regionId: number, clusterName: string, poolName: string): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_k8s');
    const cluster = await this.idleCluster(scope, clusterName);
    const row = await this.pool(scope, clusterName, poolName);
    if ((await this.ops.resources.children(cluster.id, 'k8s_pool')).length === 1)
      throw new AppError('conflict', `Pool ${poolName} is the last pool of cluster ${clusterName}; a cluster keeps one pool at least`);
    const now = this.ops.clock.now();
    const task = await this.ops.submit(caller, scope, 'delete_k8s_cluster_pool_v2', { cluster_id: cluster.id, pool_id: row.id }, async (trx, taskId) => {
      const store = new ResourceStore(trx);
      await store.update(row.id, { status: 'Deleting', task_id: taskId, updated_at: now });
      await store.update(cluster.id, { task_id: taskId, updated_at: now });
    });
    return { tasks: [task], id: row.id };
  }

  /** For each quota the pools would exceed: its limit, what they ask for and what is in use (nothing when they fit). */
  async checkLimits(
    caller: Caller,
    projectId: number,
    regionId: number,
    pools: Static<typeof CheckPoolBody>[],
    cluster: boolean,
  ): Promise<Record<string, number>> {
    await this.ops.place(caller, projectId, regionId, 'has_k8s');
    const delta: QuotaDelta = cluster ? { cluster_count: 1 } : {};
    for (const [i, pool] of pools.entries()) {
      if (!flavorById(pool.flavor_id)) throw badInput([bodyField(cluster ? ['pools', i, 'flavor_id'] : ['flavor_id'], `unknown flavor ${pool.flavor_id}`)]);
      const count = pool.node_count ?? pool.min_node_count ?? 1;
      const need = nodeQuota({ flavor_id: pool.flavor_id, boot_volume_size: pool.boot_volume_size ?? 50 } as PoolAttrs, count);
      for (const [name, amount] of Object.entries(need) as [keyof QuotaDelta, number][]) delta[name] = (delta[name] ?? 0) + amount;
    }
    return this.quotas.exceeded(caller.clientId, regionId, delta);
  }

  async nodes(caller: Caller, projectId: number, regionId: number, clusterName: string, poolName: string | undefined, page: { limit: number; offset: number }) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const pools =
      poolName === undefined
        ? await this.ops.resources.children((await this.cluster(scope, clusterName)).id, 'k8s_pool')
        : [await this.pool(scope, clusterName, poolName)];
    const nodes = (await Promise.all(pools.map((p) => poolNodes(this.ops.resources, p.id)))).flat();
    const shown = pageOf(nodes, page);
    return { count: shown.count, results: await Promise.all(shown.results.map((n) => this.presentInstance(n))) };
  }

  /** One node goes (with its boot volume) and its pool shrinks by one, never below the pool's minimum. */
  async deleteNode(caller: Caller, projectId: number, regionId: number, clusterName: string, poolName: string | undefined, instanceId: string): Promise<void> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_k8s');
    await this.idleCluster(scope, clusterName);
    const node = await this.ops.resources.get('instance', scope, instanceId);
    const pool = node?.parent_id ? await this.ops.resources.byId(node.parent_id) : undefined;
    const cluster = await this.cluster(scope, clusterName);
    if (!node || !pool || pool.kind !== 'k8s_pool' || pool.parent_id !== cluster.id || (poolName !== undefined && pool.name !== poolName))
      throw notFound(`Node ${instanceId} of cluster ${clusterName}`);
    const attrs = attrsOf<PoolAttrs>(pool);
    if (attrs.node_count - 1 < attrs.min_node_count)
      throw new AppError('conflict', `Pool ${pool.name} has ${attrs.node_count} node(s), its minimum is ${attrs.min_node_count}; lower min_node_count first`);
    const now = this.ops.clock.now();
    await this.ops.transaction(scope, async (trx) => {
      const store = new ResourceStore(trx);
      await removeNodes(store, [node], now);
      await store.update(pool.id, { attrs: JSON.stringify({ ...attrs, node_count: attrs.node_count - 1 }), updated_at: now });
    });
  }

  /**
   * Moves the pool from `from` to `to` nodes: new ones are written (ready at once when `now`, else by
   * their task), the newest go first. Adding at once checks the quota here.
   */
  async scale(
    store: ResourceStore,
    scope: Scope,
    cluster: ResourceRow,
    pool: ResourceRow,
    from: number,
    to: number,
    taskId: string,
    now: number,
    atOnce: boolean,
  ): Promise<void> {
    if (to < from) await removeNodes(store, (await poolNodes(store, pool.id)).slice(-(from - to)), now);
    if (to <= from) return;
    if (atOnce) await this.quotas.checkNow(store.db, scope.clientId, nodeQuota(attrsOf<PoolAttrs>(pool), to - from), scope.regionId);
    const keypair = attrsOf<{ keypair: string }>(cluster).keypair;
    await store.insert(...nodeRows(scope, { id: cluster.id, name: cluster.name, keypair }, pool, to - from, taskId, now));
    if (!atOnce) return;
    await startNodes(store, taskId, now);
    // Made without a task: no task made them.
    await store.updateCreatedBy(taskId, { creator_task_id: null });
  }

  private async cluster(scope: Scope, name: string): Promise<ResourceRow> {
    const row = await this.ops.resources.getByName('k8s_cluster', scope, name);
    if (!row) throw notFound(`Cluster ${name}`);
    return row;
  }

  /** A provisioned cluster no task works on: its pools change one task at a time. */
  private async idleCluster(scope: Scope, name: string): Promise<ResourceRow> {
    const row = await this.cluster(scope, name);
    if (row.task_id) throw new AppError('conflict', `Cluster ${name} is busy with task ${row.task_id}; wait for it to finish`);
    if (row.status !== 'Provisioned') throw new AppError('conflict', `Cluster ${name} is ${row.status}`);
    return row;
  }

  private async pool(scope: Scope, clusterName: string, poolName: string): Promise<ResourceRow> {
    const cluster = await this.cluster(scope, clusterName);
    const pool = (await this.ops.resources.children(cluster.id, 'k8s_pool')).find((p) => p.name === poolName);
    if (!pool) throw notFound(`Pool ${poolName} of cluster ${clusterName}`);
    return pool;
  }

  present(row: ResourceRow): Pool {
    const a = attrsOf<PoolAttrs>(row);
    return {
      id: row.id,
      name: row.name,
      flavor_id: a.flavor_id,
      node_count: a.node_count,
      min_node_count: a.min_node_count,
      max_node_count: a.max_node_count,
      status: row.status,
      boot_volume_size: a.boot_volume_size,
      boot_volume_type: a.boot_volume_type,
      auto_healing_enabled: a.auto_healing_enabled,
      is_public_ipv4: a.is_public_ipv4,
      labels: a.labels,
      taints: a.taints,
      kubelet_config: a.kubelet_config,
      crio_config: a.crio_config,
      security_group_ids: a.security_group_ids,
      servergroup_id: '',
      servergroup_name: '',
      servergroup_policy: a.servergroup_policy ?? '',
      created_at: plainTime(row.created_at)!,
    };
  }
}
