// Managed Kubernetes clusters: create, update, upgrade and delete are tasks. A cluster names an SSH key
// of the project, and its pools' flavors and security groups must exist; an upgrade only goes to a
// known, newer version, and the cluster's version changes when the upgrade task finishes.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError, notFound } from '../../platform/errors.js';
import { badInput, badRequest, bodyField, queryField } from '../common/errors.js';
import { plainTime, zonedTime } from '../common/format.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import { RegionalRecords, type TaskIds } from '../common/regional-records.js';
import { attrsOf, newRow, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import { FLAVORS } from '../instances/flavors.js';
import type { SshKeyService } from '../ssh-keys/service.js';
import { apiHost, base64, kubeconfig, type ClusterCredentials } from './certs.js';
import { nodeRows, type PoolAttrs } from './nodes.js';
import type { PoolService } from './pools.js';
import { K8S_VERSIONS, type ClusterCreateBody, type ClusterSchema, type ClusterUpdateBody } from './schemas.js';

type Cluster = Static<typeof ClusterSchema>;
type Body = Static<typeof ClusterCreateBody>;
type Settings = Omit<Body, 'name' | 'keypair' | 'version' | 'pools'>;

export interface ClusterAttrs {
  version: string;
  keypair: string;
  settings: Settings;
  /** Issued when the create task finishes. */
  credentials: ClusterCredentials | null;
}

/** Orders "v1.30.8" style versions. */
export function compareVersions(a: string, b: string): number {
  const pa = a.replace(/^v/, '').split('.').map(Number);
  const pb = b.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

export class ClusterService {
  readonly records: RegionalRecords;

  constructor(
    private readonly ops: Operations,
    private readonly keys: SshKeyService,
    private readonly pools: PoolService,
  ) {
    this.records = new RegionalRecords(ops, 'k8s_cluster', 'Cluster');
  }

  versions(): { count: number; results: { version: string }[] } {
    return { count: K8S_VERSIONS.length, results: K8S_VERSIONS.map((version) => ({ version })) };
  }

  async createVersions(caller: Caller, projectId: number, regionId: number) {
    await this.ops.place(caller, projectId, regionId, 'has_k8s');
    return this.versions();
  }

  /** The flavors nodes can have (the virtual machine flavors; no GPU flavors here). */
  async flavors(caller: Caller, projectId: number, regionId: number, page: { limit: number; offset: number }) {
    await this.ops.place(caller, projectId, regionId, 'has_k8s');
    const all = FLAVORS.map((f) => ({
      flavor_id: f.flavor_id,
      flavor_name: f.flavor_name,
      vcpus: f.vcpus,
      ram: f.ram,
      architecture: f.architecture,
      os_type: f.os_type,
      disabled: f.disabled,
      resource_class: null,
      hardware_description: f.hardware_description,
    }));
    return { count: all.length, results: all.slice(page.offset, page.offset + page.limit) };
  }

  async create(caller: Caller, projectId: number, regionId: number, body: Body): Promise<TaskIds> {
    const { scope, region } = await this.ops.place(caller, projectId, regionId, 'has_k8s');
    if (!(K8S_VERSIONS as readonly string[]).includes(body.version))
      throw badInput([bodyField(['version'], `unknown version ${body.version}; available: ${K8S_VERSIONS.join(', ')}`)]);
    const dup = body.pools.findIndex((p, i) => body.pools.findIndex((q) => q.name === p.name) !== i);
    if (dup >= 0) throw badInput([bodyField(['pools', dup, 'name'], `pool name ${body.pools[dup].name} is used twice`)]);
    const pools = await Promise.all(body.pools.map((pool, i) => this.pools.checkPool(scope, region, pool, ['pools', i])));
    if (!(await this.keys.named(caller, projectId, body.keypair)))
      throw badInput([bodyField(['keypair'], `no SSH key named ${body.keypair} in project ${projectId}`)]);
    await this.checkSettings(caller, scope, body);
    if (await this.ops.resources.getByName('k8s_cluster', scope, body.name))
      throw new AppError('conflict', `A cluster named ${body.name} already exists in project ${projectId}, region ${regionId}`);
    const id = randomUUID();
    const { name, keypair, version, pools: _pools, ...settings } = body;
    const attrs: ClusterAttrs = { version, keypair, settings, credentials: null };
    const now = this.ops.clock.now();
    const task = await this.ops.submit(caller, scope, 'create_k8s_cluster_v2', { cluster_id: id }, async (trx, taskId) => {
      const store = new ResourceStore(trx);
      const rows = [newRow(scope, 'k8s_cluster', id, name, 'Provisioning', taskId, attrs, now)];
      for (const [i, pool] of pools.entries()) {
        const row = newRow(scope, 'k8s_pool', randomUUID(), body.pools[i].name, 'Provisioning', taskId, pool, now, { parent_id: id });
        rows.push(row, ...nodeRows(scope, { id, name, keypair }, row, pool.node_count, taskId, now));
      }
      await store.insert(...rows);
    });
    return { tasks: [task], id };
  }

  /** Fixed network and subnet must be finished ones of the project; Slurm needs an available file share. */
  private async checkSettings(caller: Caller, scope: Scope, body: Body): Promise<void> {
    if (body.fixed_network) {
      const network = await this.ops.resources.get('network', scope, body.fixed_network);
      if (!network || !network.ready)
        throw badInput([
          bodyField(['fixed_network'], `network ${body.fixed_network} is not a finished network of project ${scope.projectId}, region ${scope.regionId}`),
        ]);
    }
    if (body.fixed_subnet) {
      const subnet = await this.ops.resources.get('subnet', scope, body.fixed_subnet);
      if (!subnet || !subnet.ready || (body.fixed_network && subnet.parent_id !== body.fixed_network))
        throw badInput([bodyField(['fixed_subnet'], `subnet ${body.fixed_subnet} is not a finished subnet of the fixed network`)]);
    }
    await this.checkAddOns(caller, scope, body.add_ons);
  }

  private async checkAddOns(caller: Caller, scope: Scope, addOns: Settings['add_ons']): Promise<void> {
    const slurm = addOns?.slurm;
    if (!slurm?.enabled) return;
    const at = (field: string) => ['add_ons', 'slurm', field];
    const absent = (['file_share_id', 'ssh_key_ids', 'worker_count'] as const).filter((f) => slurm[f] === undefined || slurm[f] === null);
    if (absent.length > 0) throw badInput(absent.map((f) => bodyField(at(f), 'Slurm needs it', 'missing')));
    const missing = await this.keys.missing(caller, scope.projectId, slurm.ssh_key_ids ?? []);
    if (missing.length > 0) throw badInput([bodyField(at('ssh_key_ids'), `SSH key(s) ${missing.join(', ')} do not exist in project ${scope.projectId}`)]);
    const share = await this.ops.resources.get('file_share', scope, slurm.file_share_id!);
    if (!share || share.status !== 'available')
      throw badInput([
        bodyField(
          at('file_share_id'),
          `file share ${slurm.file_share_id} is not an available file share of project ${scope.projectId}, region ${scope.regionId}`,
        ),
      ]);
  }

  async list(caller: Caller, projectId: number, regionId: number, page: { limit: number; offset: number }) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const rows = await this.ops.resources.all('k8s_cluster', scope);
    return { count: rows.length, results: await Promise.all(rows.slice(page.offset, page.offset + page.limit).map((r) => this.present(r))) };
  }

  async get(caller: Caller, projectId: number, regionId: number, name: string): Promise<Cluster> {
    const scope = await this.ops.readable(caller, projectId, regionId);
    return this.present(await this.row(scope, name));
  }

  /** A task when a setting changes; no task when nothing would (the official client's update_and_poll expects that). */
  async update(caller: Caller, projectId: number, regionId: number, name: string, body: Static<typeof ClusterUpdateBody>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_k8s');
    const row = await this.row(scope, name);
    this.records.requireIdle(row, name);
    await this.checkAddOns(caller, scope, body.add_ons);
    const current = attrsOf<ClusterAttrs>(row).settings as Record<string, unknown>;
    const changes = Object.fromEntries(
      Object.entries(body).filter(([key, value]) => value !== undefined && JSON.stringify(value) !== JSON.stringify(current[key])),
    );
    if (Object.keys(changes).length === 0) return { tasks: [], id: row.id };
    return this.records.startTask(caller, scope, row, 'update_k8s_cluster_v2', { cluster_id: row.id, changes });
  }

  async upgradeVersions(caller: Caller, projectId: number, regionId: number, name: string) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const current = attrsOf<ClusterAttrs>(await this.row(scope, name)).version;
    const newer = K8S_VERSIONS.filter((v) => compareVersions(v, current) > 0);
    return { count: newer.length, results: newer.map((version) => ({ version })) };
  }

  async upgrade(caller: Caller, projectId: number, regionId: number, name: string, version: string): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_k8s');
    const row = await this.row(scope, name);
    const current = attrsOf<ClusterAttrs>(row).version;
    if (!(K8S_VERSIONS as readonly string[]).includes(version))
      throw badInput([bodyField(['version'], `unknown version ${version}; available: ${K8S_VERSIONS.join(', ')}`)]);
    if (compareVersions(version, current) <= 0)
      throw badRequest(`Cannot upgrade cluster ${name} from ${current} to ${version}: the target must be newer than the current version`);
    this.records.requireIdle(row, name);
    return this.records.startTask(caller, scope, row, 'upgrade_k8s_cluster_v2', { cluster_id: row.id, version });
  }

  /** Deletes the cluster, its pools and nodes, and the (detached) volumes named with it. */
  async delete(caller: Caller, projectId: number, regionId: number, name: string, query: { volumes?: string }): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_k8s');
    const row = await this.row(scope, name);
    this.records.requireIdle(row, name);
    const volumes = (query.volumes ?? '')
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
    for (const id of volumes) {
      const volume = await this.ops.resources.get('volume', scope, id);
      if (!volume) throw badInput([queryField('volumes', `volume ${id} does not exist in project ${projectId}, region ${regionId}`)]);
      const owner = volume.owner_id ? await this.ops.resources.byId(volume.owner_id) : undefined;
      if (owner && owner.parent_id && !(await this.ops.resources.children(row.id, 'k8s_pool')).some((p) => p.id === owner.parent_id))
        throw new AppError('conflict', `Volume ${id} is attached to instance ${owner.id}, which is not a node of cluster ${name}`);
    }
    return this.records.startTask(caller, scope, row, 'delete_k8s_cluster_v2', { cluster_id: row.id, volumes }, { status: 'Deleting' });
  }

  async kubeconfig(caller: Caller, projectId: number, regionId: number, name: string) {
    const { row, credentials } = await this.credentials(caller, projectId, regionId, name);
    const host = apiHost(row.id, this.ops.regions.definition(regionId).slug);
    return {
      config: kubeconfig(row.name, host, credentials),
      host,
      client_certificate: base64(credentials.client_certificate),
      client_key: base64(credentials.client_key),
      cluster_ca_certificate: base64(credentials.ca_certificate),
      created_at: zonedTime(credentials.created_at),
      expires_at: zonedTime(credentials.expires_at),
    };
  }

  async certificates(caller: Caller, projectId: number, regionId: number, name: string) {
    const { credentials } = await this.credentials(caller, projectId, regionId, name);
    return { certificate: credentials.ca_certificate, key: credentials.ca_key };
  }

  private async credentials(caller: Caller, projectId: number, regionId: number, name: string) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const row = await this.row(scope, name);
    const credentials = attrsOf<ClusterAttrs>(row).credentials;
    if (!credentials) throw new AppError('conflict', `Cluster ${name} is ${row.status}; its credentials exist once it is provisioned`);
    return { row, credentials };
  }

  /** The caller's cluster named `name`, or a 404. */
  async row(scope: Scope, name: string): Promise<ResourceRow> {
    const row = await this.ops.resources.getByName('k8s_cluster', scope, name);
    if (!row) throw notFound(`Cluster ${name}`);
    return row;
  }

  async present(row: ResourceRow): Promise<Cluster> {
    const attrs = attrsOf<ClusterAttrs>(row);
    const s = attrs.settings;
    const slurm = s.add_ons?.slurm;
    const pools = await this.ops.resources.children(row.id, 'k8s_pool');
    return {
      id: row.id,
      name: row.name,
      version: attrs.version,
      status: row.status as Cluster['status'],
      keypair: attrs.keypair,
      is_public: false,
      is_ipv6: s.is_ipv6 ?? false,
      fixed_network: s.fixed_network ?? null,
      fixed_subnet: s.fixed_subnet ?? null,
      pods_ip_pool: s.pods_ip_pool ?? '172.16.0.0/18',
      services_ip_pool: s.services_ip_pool ?? '172.24.0.0/18',
      pods_ipv6_pool: s.pods_ipv6_pool ?? null,
      services_ipv6_pool: s.services_ipv6_pool ?? null,
      pools: pools.map((p) => this.pools.present(p)),
      add_ons: {
        slurm: {
          enabled: slurm?.enabled ?? false,
          file_share_id: slurm?.file_share_id ?? null,
          ssh_key_ids: slurm?.ssh_key_ids ?? null,
          worker_count: slurm?.worker_count ?? null,
        },
      },
      csi: { nfs: { vast_enabled: s.csi?.nfs?.vast_enabled ?? false } },
      logging: s.logging
        ? {
            enabled: s.logging.enabled ?? false,
            destination_region_id: s.logging.destination_region_id ?? null,
            topic_name: s.logging.topic_name ?? null,
            retention_policy: s.logging.retention_policy ?? null,
          }
        : null,
      autoscaler_config: s.autoscaler_config ?? null,
      cni: s.cni ?? null,
      ddos_profile: s.ddos_profile ?? null,
      authentication: {
        kubeconfig_created_at: attrs.credentials ? zonedTime(attrs.credentials.created_at) : null,
        kubeconfig_expires_at: attrs.credentials ? zonedTime(attrs.credentials.expires_at) : null,
        oidc: s.authentication?.oidc ?? null,
      },
      creator_task_id: row.creator_task_id,
      task_id: row.task_id,
      created_at: plainTime(row.created_at)!,
    };
  }
}

export type { PoolAttrs };
