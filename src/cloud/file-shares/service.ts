// File shares: NFS shares made, changed (v3: through a task; v1: at once), extended and deleted through
// tasks. A standard share lives on a subnet of a network (its server takes an address there, so the
// network cannot go while it exists); a VAST share lives on the provider's storage network. Access rules
// (addresses or networks, read-only or read-write) change at once.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError, notFound, type FieldError } from '../../platform/errors.js';
import { badInput, bodyField } from '../common/errors.js';
import { pageOf } from '../common/filters.js';
import { patchTags, tagList, zonedTime } from '../common/format.js';
import { parseNetwork } from '../common/ip.js';
import { LIMITS } from '../common/schemas.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import { RegionalRecords, type TaskIds } from '../common/regional-records.js';
import { attrsOf, newRow, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import type { PortAttrs } from '../instances/builder.js';
import { publicNetworkId, publicSubnetId } from '../instances/public-network.js';
import type { NetworkService } from '../networks/service.js';
import type { QuotaService } from '../quotas/service.js';
import type { AccessRuleSchema, FileShareCreateBody, FileShareListQuery, FileShareSchema, FileShareUpdateBody, ShareType } from './schemas.js';
import { VOLUME_TYPES } from './schemas.js';

type Body = Static<typeof FileShareCreateBody>;
type FileShare = Static<typeof FileShareSchema>;
type AccessRule = Static<typeof AccessRuleSchema>;
type VastSettings = { root_squash: boolean; allowed_characters: 'LCD' | 'NPL'; path_length: 'LCD' | 'NPL' };

export interface ShareAttrs {
  type_name: ShareType;
  /** VAST shares only. */
  settings: VastSettings | null;
  /** Standard shares: the port of the share's server on its subnet. */
  port_id: string | null;
  tags: Record<string, string>;
}

/** What a Kubernetes cluster records of its Slurm add-on. */
interface SlurmUser {
  settings: { add_ons?: { slurm?: { enabled: boolean; file_share_id?: string | null } } };
}

interface RuleAttrs {
  access_level: 'ro' | 'rw';
  access_to: string;
}

export class FileShareService {
  readonly records: RegionalRecords;

  constructor(
    private readonly ops: Operations,
    private readonly networks: NetworkService,
    private readonly quotas: QuotaService,
  ) {
    this.records = new RegionalRecords(ops, 'file_share', 'File share');
  }

  async create(caller: Caller, projectId: number, regionId: number, body: Body): Promise<TaskIds> {
    const { scope, region } = await this.ops.place(caller, projectId, regionId, 'has_sfs');
    const type: ShareType = body.type_name ?? (body.volume_type === VOLUME_TYPES.vast ? 'vast' : 'standard');
    checkFields(body, type);
    if (!region.file_share_types.includes(type))
      throw badInput([bodyField(['type_name'], `region ${regionId} offers ${region.file_share_types.join(' and ')} file shares, not ${type}`)]);
    const rules = accessRules(body.access ?? []);
    const id = randomUUID();
    const now = this.ops.clock.now();
    const server = type === 'standard' ? await this.serverPort(scope, body.network!, id, now) : null;
    const settings: VastSettings | null =
      type === 'vast'
        ? {
            root_squash: body.share_settings?.root_squash ?? true,
            allowed_characters: body.share_settings?.allowed_characters ?? 'LCD',
            path_length: body.share_settings?.path_length ?? 'LCD',
          }
        : null;
    const attrs: ShareAttrs = { type_name: type, settings, port_id: server?.port.id ?? null, tags: body.tags ?? {} };
    const ruleRows = rules.map((r, i) => newRow(scope, 'sfs_access_rule', randomUUID(), r.access_to, 'active', '', r, now + i, { parent_id: id }));
    const task = await this.ops.submit(caller, scope, 'create_sfs', { file_share_id: id, subnet_ids: server?.subnetIds ?? null }, async (trx, taskId) => {
      const store = new ResourceStore(trx);
      await store.insert(
        newRow(scope, 'file_share', id, body.name, 'creating', taskId, attrs, now, { size_gb: body.size }),
        ...[...(server ? [server.port] : []), ...ruleRows].map((row) => ({ ...row, creator_task_id: taskId, task_id: taskId })),
      );
    });
    return { tasks: [task], id };
  }

  /** The port of a standard share's server, its address left to the task (on the subnet named, or the network's first). */
  private async serverPort(
    scope: Scope,
    input: NonNullable<Body['network']>,
    shareId: string,
    now: number,
  ): Promise<{ port: ResourceRow; subnetIds: string[] }> {
    const network = await this.networks.usable(scope, input.network_id, undefined, ['network', 'network_id']);
    const subnets = (await this.ops.resources.children(network.id, 'subnet')).filter(
      (s) => s.ready && s.status !== 'deleting' && (!input.subnet_id || s.id === input.subnet_id),
    );
    if (subnets.length === 0)
      throw badInput([
        input.subnet_id
          ? bodyField(['network', 'subnet_id'], `subnet ${input.subnet_id} is not a finished subnet of network ${network.id}`)
          : bodyField(['network', 'network_id'], `network ${network.id} has no finished subnet`),
      ]);
    const attrs: PortAttrs = {
      subnet_id: subnets[0].id,
      subnet_name: subnets[0].name,
      network_name: network.name,
      ip_address: '',
      external: false,
      interface_name: null,
      security_group_ids: [],
      port_security_enabled: false,
    };
    return {
      port: newRow(scope, 'port', randomUUID(), `sfs-${shareId.slice(0, 8)}`, 'ACTIVE', '', attrs, now, { parent_id: network.id, owner_id: shareId }),
      subnetIds: subnets.map((s) => s.id),
    };
  }

  /** What a new share of `size` GiB would exceed. */
  async checkLimits(caller: Caller, projectId: number, regionId: number, size: number): Promise<Record<string, number>> {
    await this.ops.place(caller, projectId, regionId, 'has_sfs');
    return this.quotas.exceeded(caller.clientId, regionId, { sfs_count: 1, sfs_size: size });
  }

  async list(caller: Caller, projectId: number, regionId: number, query: Static<typeof FileShareListQuery>) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const rows = (await this.ops.resources.all('file_share', scope)).filter(
      (r) => (query.name === undefined || r.name === query.name) && (query.type_name === undefined || attrsOf<ShareAttrs>(r).type_name === query.type_name),
    );
    const page = pageOf(rows, query);
    return { count: page.count, results: await Promise.all(page.results.map((r) => this.present(r))) };
  }

  async get(caller: Caller, projectId: number, regionId: number, id: string): Promise<FileShare> {
    return this.records.get(caller, projectId, regionId, id, (r) => this.present(r));
  }

  /** v1: name, tags and VAST settings, at once. */
  async update(caller: Caller, projectId: number, regionId: number, id: string, body: Static<typeof FileShareUpdateBody>): Promise<FileShare> {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const next = changed(await this.records.row(scope, id), body);
    return this.records.updateAttrs<ShareAttrs, FileShare>(
      caller,
      projectId,
      regionId,
      id,
      body.name,
      (a) => Object.assign(a, next),
      (r) => this.present(r),
    );
  }

  /** v3: the same through the task update_sfs; no task when nothing would change. */
  async updateV3(caller: Caller, projectId: number, regionId: number, id: string, body: Static<typeof FileShareUpdateBody>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_sfs');
    const row = await this.records.idleRow(scope, id);
    const attrs = changed(row, body);
    const name = body.name ?? row.name;
    if (name === row.name && JSON.stringify(attrs) === row.attrs) return { tasks: [], id };
    return this.records.startTask(caller, scope, row, 'update_sfs', { file_share_id: id, name, attrs });
  }

  /** Grows an available share (it never shrinks), through extend_sfs; the size quota is checked when it finishes. */
  async extend(caller: Caller, projectId: number, regionId: number, id: string, size: number): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_sfs');
    const row = await this.available(scope, id);
    if (size <= Number(row.size_gb)) throw badInput([bodyField(['size'], `must be more than the share's ${row.size_gb} GiB: shares only grow`)]);
    return this.records.startTask(caller, scope, row, 'extend_sfs', { file_share_id: id, size }, { status: 'extending' });
  }

  async delete(caller: Caller, projectId: number, regionId: number, id: string): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_sfs');
    const row = await this.records.idleRow(scope, id);
    const cluster = (await this.ops.resources.all('k8s_cluster', scope)).find((c) => {
      const slurm = attrsOf<SlurmUser>(c).settings.add_ons?.slurm;
      return slurm?.enabled && slurm.file_share_id === id;
    });
    if (cluster) throw new AppError('conflict', `File share ${id} holds the Slurm add-on of Kubernetes cluster ${cluster.name}; switch the add-on off first`);
    return this.records.startTask(caller, scope, row, 'delete_sfs', { file_share_id: id, status: row.status }, { status: 'deleting' });
  }

  /** A share no task works on and whose create finished. */
  private async available(scope: Scope, id: string): Promise<ResourceRow> {
    const row = await this.records.idleRow(scope, id);
    if (row.status !== 'available') throw new AppError('conflict', `File share ${id} is ${row.status}; wait until it is available`);
    return row;
  }

  async addRule(caller: Caller, projectId: number, regionId: number, id: string, body: { access_mode: 'ro' | 'rw'; ip_address: string }): Promise<AccessRule> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_sfs');
    const share = await this.available(scope, id);
    const [rule] = accessRules([body], []);
    const current = await this.ops.resources.children(share.id, 'sfs_access_rule');
    if (current.some((r) => attrsOf<RuleAttrs>(r).access_to === rule.access_to))
      throw new AppError('conflict', `File share ${id} has a rule for ${rule.access_to} already`);
    if (current.length >= LIMITS.items) throw new AppError('conflict', `File share ${id} has ${LIMITS.items} access rules, the most it holds`);
    const row = {
      ...newRow(scope, 'sfs_access_rule', randomUUID(), rule.access_to, 'active', '', rule, this.ops.clock.now(), { parent_id: share.id }),
      ready: 1,
      creator_task_id: null,
      task_id: null,
    };
    await this.ops.resources.insert(row);
    return presentRule(row);
  }

  async rules(caller: Caller, projectId: number, regionId: number, id: string, page: { limit: number; offset: number }) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    await this.records.row(scope, id);
    const shown = pageOf(await this.ops.resources.children(id, 'sfs_access_rule'), page);
    return { count: shown.count, results: shown.results.map(presentRule) };
  }

  async removeRule(caller: Caller, projectId: number, regionId: number, id: string, ruleId: string): Promise<void> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_sfs');
    const share = await this.records.row(scope, id);
    this.records.requireIdle(share);
    const rule = (await this.ops.resources.children(id, 'sfs_access_rule')).find((r) => r.id === ruleId);
    if (!rule) throw notFound(`Access rule ${ruleId} of file share ${id}`);
    await this.ops.resources.delete(rule.id);
  }

  async present(row: ResourceRow): Promise<FileShare> {
    const a = attrsOf<ShareAttrs>(row);
    const port = a.port_id ? await this.ops.resources.byId(a.port_id) : undefined;
    const p = port ? attrsOf<PortAttrs>(port) : undefined;
    const region = this.ops.regions.definition(Number(row.region_id));
    const mounted = row.ready === 1 && row.status !== 'creating';
    const where =
      a.type_name === 'vast' || !port || !p
        ? {
            network_id: publicNetworkId(region.id),
            network_name: 'public',
            subnet_id: publicSubnetId(region.id),
            subnet_name: 'external',
            share_network_name: null,
            connection_point: mounted ? `vast.${region.slug}.cloud.example:/shares/share-${row.id}` : null,
          }
        : {
            network_id: port.parent_id!,
            network_name: p.network_name,
            subnet_id: p.subnet_id,
            subnet_name: p.subnet_name,
            share_network_name: `${p.network_name}-${p.subnet_name}`,
            connection_point: mounted && p.ip_address ? `${p.ip_address}:/shares/share-${row.id}` : null,
          };
    return {
      id: row.id,
      name: row.name,
      protocol: 'NFS',
      size: Number(row.size_gb),
      status: row.status as FileShare['status'],
      type_name: a.type_name,
      volume_type: VOLUME_TYPES[a.type_name] as FileShare['volume_type'],
      ...where,
      share_settings: a.settings ? { type_name: 'vast', ...a.settings } : { type_name: 'standard' },
      tags: tagList(a.tags),
      project_id: Number(row.project_id),
      region_id: region.id,
      region: region.display_name,
      creator_task_id: row.creator_task_id ?? '',
      task_id: row.task_id,
      created_at: zonedTime(row.created_at),
    };
  }
}

/** Each type's fields: standard shares need a network and take access rules; VAST ones take settings. */
function checkFields(body: Body, type: ShareType): void {
  const wrong: FieldError[] = [];
  if (body.volume_type && body.volume_type !== VOLUME_TYPES[type])
    wrong.push(bodyField(['volume_type'], `a ${type} share's volume type is ${VOLUME_TYPES[type]}`));
  if (type === 'standard' && !body.network) wrong.push(bodyField(['network'], 'a standard share needs the network it is served on', 'missing'));
  if (type === 'standard' && body.share_settings) wrong.push(bodyField(['share_settings'], 'only VAST shares take settings'));
  if (type === 'vast' && body.network) wrong.push(bodyField(['network'], "a VAST share is served on the provider's storage network: it takes no network"));
  if (type === 'vast' && body.access) wrong.push(bodyField(['access'], "a VAST share's access rules are added once it is available"));
  if (wrong.length > 0) throw badInput(wrong);
}

/** Access rules in canonical form (an address or network each, once). */
function accessRules(input: { access_mode: 'ro' | 'rw'; ip_address: string }[], at: (string | number)[] = ['access']): RuleAttrs[] {
  const out: RuleAttrs[] = [];
  const wrong: FieldError[] = [];
  input.forEach((r, i) => {
    const where = at.length > 0 ? [...at, i, 'ip_address'] : ['ip_address'];
    const network = parseNetwork(r.ip_address);
    if (!network) wrong.push(bodyField(where, `${r.ip_address} is not an IP address or network`));
    else if (out.some((o) => o.access_to === network.text)) wrong.push(bodyField(where, `${network.text} has a rule already`));
    else out.push({ access_level: r.access_mode, access_to: network.text });
  });
  if (wrong.length > 0) throw badInput(wrong);
  return out;
}

/** A share's attributes after an update: tags merged, VAST settings changed (standard shares have none). */
function changed(row: ResourceRow, body: Static<typeof FileShareUpdateBody>): ShareAttrs {
  const a = attrsOf<ShareAttrs>(row);
  if (body.share_settings && a.type_name !== 'vast') throw badInput([bodyField(['share_settings'], 'only VAST shares take settings')]);
  const settings =
    a.settings && body.share_settings
      ? { ...a.settings, ...Object.fromEntries(Object.entries(body.share_settings).filter(([, v]) => v !== undefined)) }
      : a.settings;
  return { ...a, settings, tags: patchTags(a.tags, body.tags) };
}

function presentRule(row: ResourceRow): AccessRule {
  const a = attrsOf<RuleAttrs>(row);
  return { id: row.id, access_level: a.access_level, access_to: a.access_to, state: row.ready ? 'active' : 'queued_to_apply' };
}
