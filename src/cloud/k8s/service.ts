// Managed Kubernetes clusters: create, delete and upgrade are tasks; an upgrade only goes to a known,
// newer version, and the cluster's version changes when the upgrade task finishes.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError, bodyField, invalid, notFound } from '../../platform/errors.js';
import { plainTime } from '../common/format.js';
import type { Caller, Operations } from '../common/operations.js';
import { RegionalRecords } from '../common/regional-records.js';
import { attrsOf, newRow, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import { flavorById } from '../instances/flavors.js';
import { K8S_VERSIONS, type ClusterCreateBody, type ClusterSchema } from './schemas.js';

type Cluster = Static<typeof ClusterSchema>;
type Body = Static<typeof ClusterCreateBody>;

export interface ClusterAttrs {
  version: string;
  keypair: string;
  body: Omit<Body, 'name' | 'keypair' | 'version'>;
  pool_ids: string[];
}

/** Orders "v1.30.8" style versions. */
export function compareVersions(a: string, b: string): number {
  const pa = a.replace(/^v/, '').split('.').map(Number);
  const pb = b.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

export class ClusterService {
  private readonly records: RegionalRecords;

  constructor(private readonly ops: Operations) {
    this.records = new RegionalRecords(ops, 'k8s_cluster', 'Cluster');
  }

  versions(): { count: number; results: { version: string }[] } {
    return { count: K8S_VERSIONS.length, results: K8S_VERSIONS.map((version) => ({ version })) };
  }

  async createVersions(caller: Caller, projectId: number, regionId: number) {
    await this.ops.place(caller, projectId, regionId, 'has_k8s');
    return this.versions();
  }

  async create(caller: Caller, projectId: number, regionId: number, body: Body) {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_k8s');
    if (!(K8S_VERSIONS as readonly string[]).includes(body.version)) throw invalid([bodyField(['version'], `unknown version ${body.version}; available: ${K8S_VERSIONS.join(', ')}`)]);
    body.pools.forEach((pool, i) => {
      if (!flavorById(pool.flavor_id)) throw invalid([bodyField(['pools', i, 'flavor_id'], `unknown flavor ${pool.flavor_id}`)]);
    });
    if (await this.ops.resources.getByName('k8s_cluster', scope, body.name)) throw new AppError('conflict', `A cluster named ${body.name} already exists in project ${projectId}, region ${regionId}`);
    const id = randomUUID();
    const { name, keypair, version, ...rest } = body;
    const attrs: ClusterAttrs = { version, keypair, body: rest, pool_ids: body.pools.map(() => randomUUID()) };
    const task = await this.ops.submit(caller, scope, 'create_k8s_cluster_v2', { cluster_id: id }, async (trx, taskId) => {
      await new ResourceStore(trx).insert(newRow(scope, 'k8s_cluster', id, name, 'Provisioning', taskId, attrs, this.ops.clock.now()));
    });
    return { tasks: [task], id };
  }

  async list(caller: Caller, projectId: number, regionId: number) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const rows = await this.ops.resources.list('k8s_cluster', scope, {}, { limit: 1000, offset: 0 });
    return { count: rows.length, results: rows.map(present) };
  }

  async get(caller: Caller, projectId: number, regionId: number, name: string): Promise<Cluster> {
    const scope = await this.ops.readable(caller, projectId, regionId);
    return present(await this.row(scope, name));
  }

  async upgradeVersions(caller: Caller, projectId: number, regionId: number, name: string) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const current = attrsOf<ClusterAttrs>(await this.row(scope, name)).version;
    const newer = K8S_VERSIONS.filter((v) => compareVersions(v, current) > 0);
    return { count: newer.length, results: newer.map((version) => ({ version })) };
  }

  async upgrade(caller: Caller, projectId: number, regionId: number, name: string, version: string) {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_k8s');
    const row = await this.row(scope, name);
    const current = attrsOf<ClusterAttrs>(row).version;
    if (!(K8S_VERSIONS as readonly string[]).includes(version)) throw invalid([bodyField(['version'], `unknown version ${version}; available: ${K8S_VERSIONS.join(', ')}`)]);
    if (compareVersions(version, current) <= 0) throw new AppError('bad_request', `Cannot upgrade cluster ${name} from ${current} to ${version}: the target must be newer than the current version`);
    this.records.requireIdle(row, name);
    return this.records.startTask(caller, scope, row, 'upgrade_k8s_cluster_v2', { cluster_id: row.id, version });
  }

  async delete(caller: Caller, projectId: number, regionId: number, name: string) {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_k8s');
    const row = await this.row(scope, name);
    this.records.requireIdle(row, name);
    return this.records.startTask(caller, scope, row, 'delete_k8s_cluster_v2', { cluster_id: row.id }, { status: 'Deleting' });
  }

  private async row(scope: Scope, name: string): Promise<ResourceRow> {
    const row = await this.ops.resources.getByName('k8s_cluster', scope, name);
    if (!row) throw notFound(`Cluster ${name}`);
    return row;
  }
}

function present(row: ResourceRow): Cluster {
  const attrs = attrsOf<ClusterAttrs>(row);
  const b = attrs.body;
  const created = plainTime(row.created_at)!;
  return {
    id: row.id, name: row.name, version: attrs.version, status: row.status as Cluster['status'], keypair: attrs.keypair,
    is_public: false, is_ipv6: b.is_ipv6 ?? false, fixed_network: b.fixed_network ?? '', fixed_subnet: b.fixed_subnet ?? '',
    pods_ip_pool: b.pods_ip_pool ?? '172.16.0.0/18', services_ip_pool: b.services_ip_pool ?? '172.24.0.0/18',
    pools: b.pools.map((p, i) => ({
      id: attrs.pool_ids[i], name: p.name, flavor_id: p.flavor_id, node_count: p.min_node_count, min_node_count: p.min_node_count,
      max_node_count: p.max_node_count ?? p.min_node_count, status: row.status === 'Provisioned' ? 'Running' : row.status,
      boot_volume_size: p.boot_volume_size ?? 50, boot_volume_type: p.boot_volume_type ?? 'standard', auto_healing_enabled: p.auto_healing_enabled ?? false,
      is_public_ipv4: p.is_public_ipv4 ?? false, labels: p.labels ?? {}, taints: p.taints ?? {}, kubelet_config: p.kubelet_config ?? {}, crio_config: p.crio_config ?? {},
      security_group_ids: p.security_group_ids ?? [], servergroup_id: '', servergroup_name: '', servergroup_policy: p.servergroup_policy ?? '', created_at: created,
    })),
    add_ons: { slurm: { enabled: false, file_share_id: null, ssh_key_ids: null, worker_count: null } },
    csi: { nfs: { vast_enabled: false } },
    logging: null,
    creator_task_id: row.creator_task_id, task_id: row.task_id, created_at: created,
  };
}
