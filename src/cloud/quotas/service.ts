// Quotas: per-client limits, enforced per region when a create task finishes (a create over quota
// is accepted, and its task ends in ERROR with the reason).
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import { notFound } from '../../platform/errors.js';
import { TaskFailure } from '../../platform/tasks/types.js';
import { ResourceStore, type ResourceKind } from '../common/resource-store.js';
import type { RegionService } from '../regions/service.js';
import { DEFAULT_LIMITS, QUOTA_NAMES, type QuotaName } from './schemas.js';
import type { QuotaStore } from './store.js';

export type QuotaDelta = Partial<Record<QuotaName, number>>;

const LABELS: Record<QuotaName, string> = {
  vm_count: 'instances',
  cpu_count: 'vCPUs',
  ram: 'RAM (MiB)',
  volume_count: 'volumes',
  volume_size: 'volume size (GiB)',
  network_count: 'networks',
  subnet_count: 'subnets',
  floating_count: 'floating IPs',
  cluster_count: 'Kubernetes clusters',
};

/** Which resources each quota counts. */
const QUOTA_KINDS: Record<QuotaName, ResourceKind> = {
  vm_count: 'instance',
  cpu_count: 'instance',
  ram: 'instance',
  volume_count: 'volume',
  volume_size: 'volume',
  network_count: 'network',
  subnet_count: 'subnet',
  floating_count: 'floatingip',
  cluster_count: 'k8s_cluster',
};

export class QuotaService {
  constructor(
    private readonly store: QuotaStore,
    private readonly resources: ResourceStore,
    private readonly regions: RegionService,
    private readonly clock: Clock,
    private readonly countProjects: (clientId: number) => Promise<number>,
  ) {}

  async limits(clientId: number): Promise<Record<QuotaName, number>> {
    return { ...DEFAULT_LIMITS, ...((await this.store.get(clientId)) ?? {}) };
  }

  async setLimits(clientId: number, body: Record<string, number>): Promise<Record<string, number>> {
    const next: Record<string, number> = { ...(await this.limits(clientId)) };
    for (const [key, value] of Object.entries(body)) next[key.replace(/_limit$/, '')] = value;
    await this.store.put(clientId, next, this.clock.now());
    return withSuffix(next as Record<QuotaName, number>);
  }

  async limitsView(clientId: number): Promise<Record<string, number>> {
    return withSuffix(await this.limits(clientId));
  }

  async usage(clientId: number, regionId: number, store = this.resources, kinds?: ResourceKind[]): Promise<Record<QuotaName, number>> {
    const usage = Object.fromEntries(QUOTA_NAMES.map((n) => [n, 0])) as Record<QuotaName, number>;
    for (const row of await store.usage(clientId, regionId, kinds)) {
      if (row.kind === 'instance') Object.assign(usage, { vm_count: row.n, cpu_count: row.vcpus, ram: row.ram });
      if (row.kind === 'volume') Object.assign(usage, { volume_count: row.n, volume_size: row.size });
      if (row.kind === 'network') usage.network_count = row.n;
      if (row.kind === 'subnet') usage.subnet_count = row.n;
      if (row.kind === 'floatingip') usage.floating_count = row.n;
      if (row.kind === 'k8s_cluster') usage.cluster_count = row.n;
    }
    return usage;
  }

  async regional(clientId: number, regionId: number) {
    this.regions.get(regionId);
    const [limits, usage] = await Promise.all([this.limits(clientId), this.usage(clientId, regionId)]);
    const out: Record<string, number> = { region_id: regionId };
    for (const name of QUOTA_NAMES) {
      out[`${name}_limit`] = limits[name];
      out[`${name}_usage`] = usage[name];
    }
    return out;
  }

  async global(clientId: number) {
    return { project_count_limit: 100, project_count_usage: await this.countProjects(clientId) };
  }

  async all(clientId: number) {
    const regional = [];
    for (const id of this.regions.ids()) regional.push(await this.regional(clientId, id));
    return { global_quotas: await this.global(clientId), regional_quotas: regional };
  }

  /** Only a client's own quotas are readable: another client's ID is not found. */
  own(callerId: number, clientId: number): void {
    if (callerId !== clientId) throw notFound(`Client ${clientId}`);
  }

  /**
   * Inside a finishing task's transaction: fails the task when adding `delta` in the region would go
   * over a limit. The client's quota row stays locked until the transaction ends.
   */
  async check(trx: Kysely<any>, clientId: number, regionId: number, delta: QuotaDelta): Promise<void> {
    const limits = { ...DEFAULT_LIMITS, ...(await this.store.withDb(trx).lock(clientId, DEFAULT_LIMITS, this.clock.now())) };
    const kinds = [...new Set(Object.keys(delta).map((name) => QUOTA_KINDS[name as QuotaName]))];
    const usage = await this.usage(clientId, regionId, new ResourceStore(trx), kinds);
    const over: string[] = [];
    for (const [name, amount] of Object.entries(delta) as [QuotaName, number][]) {
      if (amount > 0 && usage[name] + amount > limits[name]) {
        over.push(`${LABELS[name]}: requested ${amount}, in use ${usage[name]}, limit ${limits[name]}`);
      }
    }
    if (over.length > 0) throw new TaskFailure(`Quota exceeded in region ${regionId} (${over.join('; ')})`);
  }
}

function withSuffix(limits: Record<QuotaName, number>): Record<string, number> {
  return Object.fromEntries(QUOTA_NAMES.map((n) => [`${n}_limit`, limits[n]]));
}
