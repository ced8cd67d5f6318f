// Quotas: per-client limits, enforced per region when a create task finishes (a create over quota
// is accepted, and its task ends in ERROR with the reason). SSH keys are created at once, not by a
// task: their (global) quota refuses the request itself.
import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { Clock } from '../../platform/clock.js';
import { notFound } from '../../platform/errors.js';
import { type TaskContext, TaskFailure } from '../../platform/tasks/types.js';
import { badRequest } from '../common/errors.js';
import { type KindUsage, NO_REGION, ResourceStore, type ResourceKind } from '../common/resource-store.js';
import type { RegionService } from '../regions/service.js';
import { DEFAULT_LIMITS, GLOBAL_QUOTA_NAMES, PROJECT_COUNT_LIMIT, QUOTA_NAMES, type AnyQuotaName, type QuotaLimitsBody, type QuotaName } from './schemas.js';
import { QuotaStore } from './store.js';
import type { FinalStatement } from '../../platform/db/final-statement.js';

export type QuotaDelta = Partial<Record<AnyQuotaName, number>>;

const GIB = 1024 ** 3;

const LABELS: Record<AnyQuotaName, string> = {
  vm_count: 'instances',
  cpu_count: 'vCPUs',
  ram: 'RAM (MiB)',
  volume_count: 'volumes',
  volume_size: 'volume size (GiB)',
  network_count: 'networks',
  subnet_count: 'subnets',
  floating_count: 'floating IPs',
  cluster_count: 'Kubernetes clusters',
  image_count: 'images',
  image_size: 'image size (bytes)',
  volume_snapshots_count: 'volume snapshots',
  volume_snapshots_size: 'volume snapshot size (GiB)',
  firewall_count: 'security groups',
  loadbalancer_count: 'load balancers',
  external_ip_count: 'public addresses',
  router_count: 'routers',
  sfs_count: 'file shares',
  sfs_size: 'file share size (GiB)',
  servergroup_count: 'placement groups',
  keypair_count: 'SSH keys',
};

/** Which usage row's column counts each quota (the kind's resources), and the factor to the quota's unit. */
export interface QuotaUsage {
  kind: ResourceKind;
  column: 'n' | 'vcpus' | 'ram' | 'size' | 'publicPorts';
  scale: number;
}
const count = (kind: ResourceKind): QuotaUsage => ({ kind, column: 'n', scale: 1 });
const QUOTA_USAGE: Record<AnyQuotaName, QuotaUsage> = {
  vm_count: count('instance'),
  cpu_count: { kind: 'instance', column: 'vcpus', scale: 1 },
  ram: { kind: 'instance', column: 'ram', scale: 1 },
  volume_count: count('volume'),
  volume_size: { kind: 'volume', column: 'size', scale: 1 },
  network_count: count('network'),
  subnet_count: count('subnet'),
  floating_count: count('floatingip'),
  cluster_count: count('k8s_cluster'),
  image_count: count('image'),
  image_size: { kind: 'image', column: 'size', scale: GIB },
  volume_snapshots_count: count('snapshot'),
  volume_snapshots_size: { kind: 'snapshot', column: 'size', scale: 1 },
  firewall_count: count('security_group'),
  loadbalancer_count: count('loadbalancer'),
  external_ip_count: { kind: 'port', column: 'publicPorts', scale: 1 },
  router_count: count('router'),
  sfs_count: count('file_share'),
  sfs_size: { kind: 'file_share', column: 'size', scale: 1 },
  servergroup_count: count('servergroup'),
  keypair_count: count('ssh_key'),
};
const QUOTAS_BY_KIND = new Map<string, [AnyQuotaName, QuotaUsage][]>();
for (const [name, usage] of Object.entries(QUOTA_USAGE) as [AnyQuotaName, QuotaUsage][]) {
  QUOTAS_BY_KIND.set(usage.kind, [...(QUOTAS_BY_KIND.get(usage.kind) ?? []), [name, usage]]);
}

/** A quota's name and the names its limit and usage have in answers (built once: a client-wide read answers 400 of them). */
interface QuotaFields {
  name: AnyQuotaName;
  limit: string;
  usage: string;
}
const fieldsFor = (names: readonly AnyQuotaName[]): QuotaFields[] => names.map((name) => ({ name, limit: `${name}_limit`, usage: `${name}_usage` }));
const REGIONAL_FIELDS = fieldsFor(QUOTA_NAMES);
const GLOBAL_FIELDS = fieldsFor(GLOBAL_QUOTA_NAMES);
/** Every key of an answer, in its order, so that an answer starts as a copy with all of them. */
const answerTemplate = (first: string[], fields: QuotaFields[]) =>
  Object.fromEntries([...first, ...fields.flatMap((f) => [f.limit, f.usage])].map((key) => [key, 0]));
const REGIONAL_ANSWER = answerTemplate(['region_id'], REGIONAL_FIELDS);
const GLOBAL_ANSWER = answerTemplate(['project_count_limit', 'project_count_usage'], GLOBAL_FIELDS);
const NO_USAGE = Object.fromEntries([...QUOTA_NAMES, ...GLOBAL_QUOTA_NAMES].map((n) => [n, 0])) as Record<AnyQuotaName, number>;

/** The quotas one kind's usage row fills. */
function fill(usage: Record<AnyQuotaName, number>, row: KindUsage): void {
  for (const [name, { column, scale }] of QUOTAS_BY_KIND.get(row.kind) ?? []) usage[name] = row[column] * scale;
}

/** One region's usage from its kinds' rows. */
function usageOf(rows: KindUsage[]): Record<AnyQuotaName, number> {
  const usage = { ...NO_USAGE };
  for (const row of rows) fill(usage, row);
  return usage;
}

export class QuotaService {
  /** A task step's checks waiting for its end (PostgreSQL), added up by region. */
  private readonly pendingChecks = new WeakMap<TaskContext, Map<number, QuotaDelta>>();

  constructor(
    private readonly store: QuotaStore,
    private readonly resources: ResourceStore,
    private readonly regions: RegionService,
    private readonly clock: Clock,
    private readonly countProjects: (clientId: number) => Promise<number>,
  ) {}

  async limits(clientId: number): Promise<Record<AnyQuotaName, number>> {
    return { ...DEFAULT_LIMITS, ...((await this.store.get(clientId)) ?? {}) };
  }

  async setLimits(clientId: number, body: Static<typeof QuotaLimitsBody>): Promise<Record<string, number>> {
    const next: Record<string, number> = { ...(await this.limits(clientId)) };
    // Each limit is optional in the schema (typed `number | undefined`); a JSON body holds no undefined, so none is skipped.
    for (const [key, value] of Object.entries(body)) if (value !== undefined) next[key.replace(/_limit$/, '')] = value;
    await this.store.put(clientId, next, this.clock.now());
    return withSuffix(next as Record<AnyQuotaName, number>);
  }

  async limitsView(clientId: number): Promise<Record<string, number>> {
    return withSuffix(await this.limits(clientId));
  }

  /** Usage in a region (NO_REGION: the resources of no region, SSH keys). */
  async usage(clientId: number, regionId: number, kinds?: ResourceKind[]): Promise<Record<AnyQuotaName, number>> {
    return (await this.usageIn(clientId, [regionId], kinds)).get(regionId)!;
  }

  /** Usage in each of the regions given, read in one pass whatever their number. */
  private async usageIn(clientId: number, regionIds: number[], kinds?: ResourceKind[]): Promise<Map<number, Record<AnyQuotaName, number>>> {
    const rows = new Map<number, KindUsage[]>(regionIds.map((id) => [id, []]));
    for (const row of await this.resources.usage(clientId, regionIds, kinds)) rows.get(row.regionId)!.push(row);
    return new Map(regionIds.map((id) => [id, usageOf(rows.get(id)!)]));
  }

  async regional(clientId: number, regionId: number) {
    this.regions.get(regionId);
    const [limits, usage] = await Promise.all([this.limits(clientId), this.usage(clientId, regionId)]);
    return regionalView(regionId, limits, usage);
  }

  async global(clientId: number) {
    return this.globalWith(clientId, this.limits(clientId));
  }

  async all(clientId: number) {
    const ids = this.regions.ids();
    // One read of the limits serves the regions and the global part.
    const limits = this.limits(clientId);
    const [regionLimits, usage, global] = await Promise.all([limits, this.usageIn(clientId, ids), this.globalWith(clientId, limits)]);
    return { global_quotas: global, regional_quotas: ids.map((id) => regionalView(id, regionLimits, usage.get(id)!)) };
  }

  private async globalWith(clientId: number, limits: Promise<Record<AnyQuotaName, number>>) {
    const [known, usage, projects] = await Promise.all([limits, this.usage(clientId, NO_REGION, ['ssh_key']), this.countProjects(clientId)]);
    return fieldsOf(GLOBAL_FIELDS, { ...GLOBAL_ANSWER, project_count_limit: PROJECT_COUNT_LIMIT, project_count_usage: projects }, known, usage);
  }

  /** Only a client's own quotas are readable: another client's ID is not found. */
  own(callerId: number, clientId: number): void {
    if (callerId !== clientId) throw notFound(`Client ${clientId}`);
  }

  /**
   * In a task's step: fails the task when adding `delta` in the region (the task's, unless given) would
   * go over a limit. The check locks the client's quota row until the transaction ends, so every other
   * check of the client waits for the commit: what the step reads after it (a free address, an address
   * still its own) shows what the client's other steps committed.
   */
  async check(ctx: TaskContext, delta: QuotaDelta, regionId = Number(ctx.task.region_id)): Promise<void> {
    await this.failOver(ctx.trx, ctx.task.client_id, regionId, delta);
  }

  /**
   * `check`, for a step that reads nothing after it that the lock must guard. On PostgreSQL it runs at
   * the end of the step (ctx.beforeCommit), after the step's other writes and with its other such checks
   * of the region added up, as one statement (migration 019) that goes with the COMMIT when it is the
   * step's last check: the client's quota row is held only while PostgreSQL runs the two, instead of over
   * the rest of the step: each create of a client waits for the one before it that much less. The
   * usage it reads then does not hold the step's own changes, since the usage triggers run at commit
   * there (migration 018). SQLite's transactions are serial: there it is `check`.
   */
  async checkAtCommit(ctx: TaskContext, delta: QuotaDelta, regionId = Number(ctx.task.region_id)): Promise<void> {
    if (!this.store.checksAtCommit) return this.check(ctx, delta, regionId);
    let pending = this.pendingChecks.get(ctx);
    if (!pending) this.pendingChecks.set(ctx, (pending = new Map<number, QuotaDelta>()));
    let summed = pending.get(regionId);
    if (!summed) {
      const region = (summed = {});
      pending.set(regionId, region);
      ctx.beforeCommit({ statement: () => this.checkStatement(ctx.task.client_id, regionId, region) });
    }
    for (const [name, amount] of Object.entries(delta) as [AnyQuotaName, number][]) if (amount > 0) summed[name] = (summed[name] ?? 0) + amount;
  }

  private async failOver(trx: Kysely<any>, clientId: number, regionId: number, delta: QuotaDelta): Promise<void> {
    const over = await this.excess(trx, clientId, regionId, delta);
    if (over.length > 0) throw new TaskFailure(`Quota exceeded in region ${regionId} (${over.join('; ')})`);
  }

  /** PostgreSQL: `failOver` as one statement that fails when the region is over (QuotaStore.checkStatement). */
  private checkStatement(clientId: number, regionId: number, delta: QuotaDelta): FinalStatement {
    const items = (Object.entries(delta) as [AnyQuotaName, number][]).map(([name, amount]) => ({ name, amount, ...QUOTA_USAGE[name] }));
    return {
      ...this.store.checkStatement(clientId, regionId, items, DEFAULT_LIMITS, this.clock.now()),
      failure: (error) => {
        const found = QuotaStore.overOf(error);
        if (!found) return undefined;
        const over = found.over.map((q) => overText(q.name as AnyQuotaName, q.requested, q.usage, q.limit));
        return new TaskFailure(`Quota exceeded in region ${found.regionId} (${over.join('; ')})`);
      },
    };
  }

  /** Inside a request's transaction, for what is made without a task: refuses the request instead. */
  async checkNow(trx: Kysely<any>, clientId: number, delta: QuotaDelta, regionId: number = NO_REGION): Promise<void> {
    const over = await this.excess(trx, clientId, regionId, delta);
    if (over.length > 0) throw badRequest(`Quota exceeded (${over.join('; ')})`);
  }

  /** What `delta` would need on top of the usage, for each quota it would exceed (empty: it fits). */
  async requested(clientId: number, regionId: number, delta: QuotaDelta): Promise<{ name: AnyQuotaName; limit: number; usage: number; requested: number }[]> {
    const [limits, usage] = await Promise.all([this.limits(clientId), this.usage(clientId, regionId)]);
    return (Object.entries(delta) as [AnyQuotaName, number][]).map(([name, requested]) => ({ name, limit: limits[name], usage: usage[name], requested }));
  }

  /** For each quota `delta` would exceed: its limit, what is asked for and what is in use; `{}` when it fits (the check-limits answers). */
  async exceeded(clientId: number, regionId: number, delta: QuotaDelta): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const q of await this.requested(clientId, regionId, delta)) {
      if (q.usage + q.requested <= q.limit) continue;
      Object.assign(out, { [`${q.name}_limit`]: q.limit, [`${q.name}_requested`]: q.requested, [`${q.name}_usage`]: q.usage });
    }
    return out;
  }

  private async excess(trx: Kysely<any>, clientId: number, regionId: number, delta: QuotaDelta): Promise<string[]> {
    const kinds = [...new Set(Object.keys(delta).map((name) => QUOTA_USAGE[name as AnyQuotaName].kind))];
    const held = await this.store.withDb(trx).hold(clientId, regionId, kinds, DEFAULT_LIMITS, this.clock.now());
    const limits = { ...DEFAULT_LIMITS, ...held.limits };
    const usage = usageOf(held.usage);
    const over: string[] = [];
    for (const [name, amount] of Object.entries(delta) as [QuotaName, number][]) {
      if (amount > 0 && usage[name] + amount > limits[name]) over.push(overText(name, amount, usage[name], limits[name]));
    }
    return over;
  }
}

/** One quota over its limit, as a failure's reason names it. */
function overText(name: AnyQuotaName, requested: number, usage: number, limit: number): string {
  return `${LABELS[name]}: requested ${requested}, in use ${usage}, limit ${limit}`;
}

/** One region's limits and usage, as the regional quota reads answer them. */
function regionalView(regionId: number, limits: Record<AnyQuotaName, number>, usage: Record<AnyQuotaName, number>): Record<string, number> {
  return fieldsOf(REGIONAL_FIELDS, { ...REGIONAL_ANSWER, region_id: regionId }, limits, usage);
}

/** `out` (a copy of its answer's template: setting keys it has is cheaper than adding 40) with each quota's limit and usage. */
function fieldsOf(fields: QuotaFields[], out: Record<string, number>, limits: Record<AnyQuotaName, number>, usage: Record<AnyQuotaName, number>) {
  for (const field of fields) {
    out[field.limit] = limits[field.name];
    out[field.usage] = usage[field.name];
  }
  return out;
}

function withSuffix(limits: Record<AnyQuotaName, number>): Record<string, number> {
  return Object.fromEntries([...REGIONAL_FIELDS, ...GLOBAL_FIELDS].map((field) => [field.limit, limits[field.name]]));
}
