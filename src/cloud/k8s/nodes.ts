// The nodes of a Kubernetes pool: instances of the pool's flavor (listed with the project's instances,
// counted in its quotas), each with a boot volume. Pure row builders and store operations, usable
// inside a task's transaction.
import { randomUUID } from 'node:crypto';
import { attrsOf, newRow, type ResourceRow, type ResourceStore, type Scope } from '../common/resource-store.js';
import type { QuotaDelta } from '../quotas/service.js';
import { flavorById } from '../instances/flavors.js';
import type { InstanceAttrs } from '../instances/service.js';
import type { VolumeAttrs } from '../volumes/attrs.js';

export interface PoolAttrs {
  flavor_id: string;
  min_node_count: number;
  max_node_count: number;
  node_count: number;
  boot_volume_size: number;
  boot_volume_type: string;
  auto_healing_enabled: boolean;
  is_public_ipv4: boolean;
  labels: Record<string, string>;
  taints: Record<string, string>;
  kubelet_config: Record<string, string>;
  crio_config: Record<string, string>;
  security_group_ids: string[];
  servergroup_policy: string | null;
}

export interface ClusterRef {
  id: string;
  name: string;
  keypair: string;
}

/** `count` new nodes of the pool (each an instance and its boot volume), written ahead of their task. */
export function nodeRows(scope: Scope, cluster: ClusterRef, pool: ResourceRow, count: number, taskId: string, now: number): ResourceRow[] {
  const attrs = attrsOf<PoolAttrs>(pool);
  const flavor = flavorById(attrs.flavor_id)!;
  const rows: ResourceRow[] = [];
  for (let i = 0; i < count; i += 1) {
    const id = randomUUID();
    const node: InstanceAttrs = {
      flavor_id: flavor.flavor_id,
      ssh_key_name: cluster.keypair,
      tags: {},
      vm_state: 'building',
      task_state: 'spawning',
      description: null,
      cluster: { cluster_id: cluster.id, cluster_name: cluster.name, pool_id: pool.id, pool_name: pool.name },
    };
    const disk: VolumeAttrs = {
      volume_type: attrs.boot_volume_type,
      bootable: true,
      is_root_volume: true,
      delete_on_termination: true,
      tags: {},
      attached_at: now,
      cluster_id: cluster.id,
    };
    const name = `${cluster.name}-${pool.name}-${id.slice(0, 5)}`;
    rows.push(newRow(scope, 'instance', id, name, 'BUILD', taskId, node, now, { parent_id: pool.id, vcpus: flavor.vcpus, ram_mb: flavor.ram }));
    rows.push(newRow(scope, 'volume', randomUUID(), `${name}-boot`, 'creating', taskId, disk, now, { owner_id: id, size_gb: attrs.boot_volume_size }));
  }
  return rows;
}

/** What `count` nodes of the pool add to the client's usage. */
export function nodeQuota(pool: PoolAttrs, count: number): QuotaDelta {
  const flavor = flavorById(pool.flavor_id)!;
  return { vm_count: count, cpu_count: count * flavor.vcpus, ram: count * flavor.ram, volume_count: count, volume_size: count * pool.boot_volume_size };
}

/** Marks the nodes a task wrote ahead as running. */
export async function startNodes(store: ResourceStore, taskId: string, now: number): Promise<void> {
  for (const row of await createdBy(store, taskId)) {
    if (row.kind === 'instance') {
      const attrs = attrsOf<InstanceAttrs>(row);
      Object.assign(attrs, { vm_state: 'active', task_state: null });
      await store.update(row.id, { ready: 1, task_id: null, status: 'ACTIVE', attrs: JSON.stringify(attrs), updated_at: now });
    } else {
      await store.update(row.id, { ready: 1, task_id: null, status: 'in-use', updated_at: now });
    }
  }
}

/** Rows a task wrote ahead of itself that are not ready yet. */
async function createdBy(store: ResourceStore, taskId: string): Promise<ResourceRow[]> {
  return (await store.db.selectFrom('cloud_resources').selectAll().where('creator_task_id', '=', taskId).where('ready', '=', 0).execute()) as ResourceRow[];
}

/** Removes nodes with their boot volumes (other volumes attached to them are detached). */
export async function removeNodes(store: ResourceStore, nodes: ResourceRow[], now: number): Promise<void> {
  for (const node of nodes) {
    for (const row of await store.attachedTo(node.id)) {
      if (row.kind === 'volume' && !attrsOf<VolumeAttrs>(row).delete_on_termination)
        await store.update(row.id, { owner_id: null, status: 'available', updated_at: now });
      else await store.delete(row.id);
    }
    await store.delete(node.id);
  }
}

/** The nodes of a pool, oldest first. */
export async function poolNodes(store: ResourceStore, poolId: string): Promise<ResourceRow[]> {
  return store.children(poolId, 'instance');
}
