// Instances: a create writes the instance, its new volumes, its ports and their floating IPs in one
// transaction with its task (instances/builder.ts checks what they refer to); the task places it on a
// host its placement group allows. Power actions and flavor
// changes are tasks too; renaming and retagging are immediate. Kubernetes nodes are instances as well,
// managed through their cluster.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError } from '../../platform/errors.js';
import { badInput, badRequest, bodyField, queryField } from '../common/errors.js';
import { pageOf, tagMatcher } from '../common/filters.js';
import { patchTags, tagList, zonedTime } from '../common/format.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import { RegionalRecords, type TaskIds } from '../common/regional-records.js';
import { attrsOf, newRow, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import { keyMisfit } from '../images/fit.js';
import { groupsOf } from '../security-groups/service.js';
import type { PlacementGroupService } from '../placement-groups/service.js';
import type { SshKeyService } from '../ssh-keys/service.js';
import type { VolumeAttrs } from '../volumes/attrs.js';
import type { InstanceBuilder, PortAttrs } from './builder.js';
import { FLAVORS, flavorById } from './flavors.js';
import { METRICS_LIMITS, metricPoints } from './metrics.js';
import type { InstanceCreateBody, InstanceDeleteQuery, InstanceListQuery, InstanceSchema, InstanceUpdateBody } from './schemas.js';

export type { PortAttrs } from './builder.js';
type Instance = Static<typeof InstanceSchema>;
type Body = Static<typeof InstanceCreateBody>;

export interface InstanceAttrs {
  flavor_id: string;
  ssh_key_name: string | null;
  tags: Record<string, string>;
  vm_state: string;
  task_state: string | null;
  description: string | null;
  /** Set on the nodes of a Kubernetes cluster. */
  cluster?: { cluster_id: string; cluster_name: string; pool_id: string; pool_name: string } | null;
  /** The placement group it is in, and the host its create task placed it on. */
  servergroup_id?: string | null;
  host?: string | null;
}

/** What each power action needs the instance to be, and the task type that does it. */
export const ACTIONS = {
  start: { from: ['SHUTOFF'], type: 'start_vm', taskState: 'powering-on' },
  stop: { from: ['ACTIVE'], type: 'stop_vm', taskState: 'powering-off' },
  reboot: { from: ['ACTIVE'], type: 'soft_reboot_vm', taskState: 'rebooting' },
  reboot_hard: { from: ['ACTIVE', 'SHUTOFF'], type: 'hard_reboot_vm', taskState: 'rebooting_hard' },
  suspend: { from: ['ACTIVE'], type: 'suspend_vm', taskState: 'suspending' },
  resume: { from: ['SUSPENDED'], type: 'resume_vm', taskState: 'resuming' },
} as const;
export type Action = keyof typeof ACTIONS;

export class InstanceService {
  readonly records: RegionalRecords;

  constructor(
    private readonly ops: Operations,
    private readonly builder: InstanceBuilder,
    private readonly keys: SshKeyService,
    private readonly placementGroups: PlacementGroupService,
  ) {
    this.records = new RegionalRecords(ops, 'instance', 'Instance');
  }

  async flavors(
    caller: Caller,
    projectId: number,
    regionId: number,
    query: { disabled?: boolean; exclude_linux?: boolean; exclude_windows?: boolean },
  ): Promise<{ count: number; results: typeof FLAVORS }> {
    await this.ops.readable(caller, projectId, regionId);
    const results = FLAVORS.filter(
      (f) =>
        (query.disabled === undefined || query.disabled || !f.disabled) &&
        !(query.exclude_linux && f.os_type === 'linux') &&
        !(query.exclude_windows && f.os_type === 'windows'),
    );
    return { count: results.length, results };
  }

  async create(caller: Caller, projectId: number, regionId: number, body: Body): Promise<TaskIds> {
    const { scope, region } = await this.ops.place(caller, projectId, regionId, 'has_kvm');
    const flavor = flavorById(body.flavor);
    if (!flavor) throw badInput([bodyField(['flavor'], `unknown flavor ${body.flavor}`)]);
    const id = randomUUID();
    const now = this.ops.clock.now();
    const plan = await this.builder.plan(scope, region, flavor, body, id, now);
    await this.checkKey(caller, projectId, body, plan.bootImage);
    if (body.servergroup_id) await this.placementGroups.require(scope, body.servergroup_id, ['servergroup_id']);
    const attrs: InstanceAttrs = {
      flavor_id: flavor.flavor_id,
      ssh_key_name: body.ssh_key_name ?? null,
      tags: body.tags ?? {},
      vm_state: 'building',
      task_state: 'spawning',
      description: null,
      cluster: null,
      servergroup_id: body.servergroup_id ?? null,
      host: null,
    };
    const name = body.name ?? nameFrom(body.name_template, plan.firstAddress) ?? `instance-${id.slice(0, 8)}`;
    const data = { instance_id: id, attach: plan.attach, assign: plan.assign, reserve: plan.reserve };
    const task = await this.ops.submit(caller, scope, 'create_vm', data, async (trx, taskId) => {
      const store = new ResourceStore(trx);
      await store.insert(
        newRow(scope, 'instance', id, name, 'BUILD', taskId, attrs, now, { vcpus: flavor.vcpus, ram_mb: flavor.ram }),
        ...plan.rows.map((row) => ({ ...row, creator_task_id: taskId, task_id: taskId })),
      );
      for (const volumeId of plan.attach) await store.update(volumeId, { owner_id: id, status: 'attaching', task_id: taskId });
      for (const [fipId] of plan.assign) await store.update(fipId, { task_id: taskId });
      for (const { port_id } of plan.reserve) await store.update(port_id, { owner_id: id, task_id: taskId });
    });
    return { tasks: [task], id };
  }

  /** The key must be one the caller sees in the project, and the boot image must take it (or need none). */
  private async checkKey(caller: Caller, projectId: number, body: Body, image: Parameters<typeof keyMisfit>[0] | null): Promise<void> {
    if (body.ssh_key_name && !(await this.keys.named(caller, projectId, body.ssh_key_name))) {
      throw badInput([bodyField(['ssh_key_name'], `no SSH key named ${body.ssh_key_name} in project ${projectId}`)]);
    }
    if (!image) return;
    const misfit = keyMisfit(image, body.ssh_key_name);
    if (misfit) throw badInput([bodyField(['ssh_key_name'], misfit)]);
    if (image.os_type === 'windows' && body.username !== undefined)
      throw badInput([bodyField(['username'], 'cannot be set for a Windows image: set the Admin password with `password`')]);
  }

  async list(caller: Caller, projectId: number, regionId: number, query: Static<typeof InstanceListQuery>) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const ports = await this.ops.resources.all('port', scope);
    const groups = new Map((await this.ops.resources.all('security_group', scope)).map((g) => [g.id, g.name]));
    const portsOf = (id: string) => ports.filter((p) => p.owner_id === id);
    const tags = tagMatcher({ tag_key_value: query.tag_key_value });
    const rows = (await this.ops.resources.all('instance', scope)).filter((r) => {
      const attrs = attrsOf<InstanceAttrs>(r);
      const mine = portsOf(r.id);
      return (
        (query.name === undefined || r.name.includes(query.name)) &&
        (query.uuid === undefined || r.id.includes(query.uuid)) &&
        (query.status === undefined || r.status === query.status) &&
        (query.flavor_id === undefined || attrs.flavor_id === query.flavor_id) &&
        (query.flavor_prefix === undefined || attrs.flavor_id.startsWith(query.flavor_prefix)) &&
        (query.exclude_flavor_prefix === undefined || !attrs.flavor_id.startsWith(query.exclude_flavor_prefix)) &&
        (query.include_k8s !== false || !attrs.cluster) &&
        (query.ip === undefined || mine.some((p) => attrsOf<PortAttrs>(p).ip_address.includes(query.ip!))) &&
        (query.exclude_secgroup === undefined || !mine.some((p) => groupsOf(p).some((g) => groups.get(g) === query.exclude_secgroup))) &&
        (query.available_floating === undefined || mine.some((p) => !attrsOf<PortAttrs>(p).external) === query.available_floating) &&
        (query.tag_value === undefined || query.tag_value.every((v) => Object.values(attrs.tags).includes(v))) &&
        tags(attrs.tags)
      );
    });
    sortInstances(rows, query.order_by);
    const page = pageOf(rows, query);
    return { count: page.count, results: await Promise.all(page.results.map((r) => this.present(r))) };
  }

  async get(caller: Caller, projectId: number, regionId: number, id: string): Promise<Instance> {
    return this.records.get(caller, projectId, regionId, id, (r) => this.present(r));
  }

  async update(caller: Caller, projectId: number, regionId: number, id: string, body: Static<typeof InstanceUpdateBody>): Promise<Instance> {
    return this.records.updateAttrs<InstanceAttrs, Instance>(
      caller,
      projectId,
      regionId,
      id,
      body.name,
      (attrs) => {
        attrs.tags = patchTags(attrs.tags, body.tags);
      },
      (r) => this.present(r),
    );
  }

  async action(caller: Caller, projectId: number, regionId: number, id: string, action: Action): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_kvm');
    const row = await this.records.idleRow(scope, id);
    const rule = ACTIONS[action];
    if (!(rule.from as readonly string[]).includes(row.status))
      throw new AppError('conflict', `Cannot ${action.replace('_', ' ')} instance ${id}: it is ${row.status} (needs ${rule.from.join(' or ')})`);
    return this.records.startTask(caller, scope, row, rule.type, { instance_id: id }, { attrs: withTaskState(row, rule.taskState) });
  }

  /** A new flavor (a task): of the same architecture, enough RAM for the boot image; the instance is ACTIVE or SHUTOFF. */
  async resize(caller: Caller, projectId: number, regionId: number, id: string, flavorId: string): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_kvm');
    const row = await this.records.idleRow(scope, id);
    const attrs = attrsOf<InstanceAttrs>(row);
    const flavor = flavorById(flavorId);
    if (!flavor) throw badInput([bodyField(['flavor_id'], `unknown flavor ${flavorId}`)]);
    if (flavor.flavor_id === attrs.flavor_id) throw badInput([bodyField(['flavor_id'], `instance ${id} already has flavor ${flavorId}`)]);
    if (flavor.architecture !== flavorById(attrs.flavor_id)!.architecture)
      throw badInput([
        bodyField(['flavor_id'], `flavor ${flavorId} is ${flavor.architecture}; instance ${id} runs ${flavorById(attrs.flavor_id)!.architecture}`),
      ]);
    if (attrs.cluster) throw new AppError('conflict', `Instance ${id} is a node of Kubernetes cluster ${attrs.cluster.cluster_name}; change its pool instead`);
    if (!['ACTIVE', 'SHUTOFF'].includes(row.status))
      throw new AppError('conflict', `Cannot resize instance ${id}: it is ${row.status} (needs ACTIVE or SHUTOFF)`);
    return this.records.startTask(
      caller,
      scope,
      row,
      'resize_vm',
      { instance_id: id, flavor_id: flavor.flavor_id, status: row.status },
      { status: 'RESIZE', attrs: withTaskState(row, 'resize_prep') },
    );
  }

  /** Where the instance's console is reached: only a running instance has one. */
  async console(caller: Caller, projectId: number, regionId: number, id: string, type = 'novnc') {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const row = await this.records.row(scope, id);
    const protocols: Record<string, string> = { novnc: 'vnc', xvpvnc: 'vnc', 'spice-html5': 'spice', serial: 'serial' };
    const protocol = protocols[type];
    if (!protocol) throw badInput([queryField('console_type', `must be one of ${Object.keys(protocols).join(', ')}`)]);
    if (row.status !== 'ACTIVE') throw new AppError('conflict', `Instance ${id} is ${row.status}; its console is available while it is ACTIVE`);
    const token = randomUUID();
    return {
      remote_console: { protocol, type, url: `https://console.${this.ops.regions.definition(regionId).slug}.cloud.example/${type}/${id}?token=${token}` },
    };
  }

  /** Simulated usage of the instance over the last `interval` days or hours (instances/metrics.ts). */
  async metrics(
    caller: Caller,
    projectId: number,
    regionId: number,
    id: string,
    interval: number,
    unit: 'day' | 'hour',
    page: { limit: number; offset: number },
  ) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const row = await this.records.row(scope, id);
    if (interval > METRICS_LIMITS[unit]) throw badInput([bodyField(['time_interval'], `at most ${METRICS_LIMITS[unit]} when time_unit is ${unit}`)]);
    const disks = (await this.ops.resources.attachedTo(id, 'volume')).map((v, i) =>
      attrsOf<VolumeAttrs>(v).is_root_volume ? 'vda' : `vd${String.fromCharCode(98 + i)}`,
    );
    return pageOf(
      metricPoints({ id, created_at: Number(row.created_at), running: row.status === 'ACTIVE' }, disks, this.ops.clock.now(), interval, unit),
      page,
    );
  }

  async delete(caller: Caller, projectId: number, regionId: number, id: string, query: Static<typeof InstanceDeleteQuery>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_kvm');
    const row = await this.records.idleRow(scope, id);
    const cluster = attrsOf<InstanceAttrs>(row).cluster;
    if (cluster)
      throw new AppError('conflict', `Instance ${id} is a node of Kubernetes cluster ${cluster.cluster_name}; delete it through the cluster's node API`);
    const list = (text?: string) =>
      text
        ? text
            .split(',')
            .map((v) => v.trim())
            .filter(Boolean)
        : [];
    const [volumes, floatings, reserved] = [list(query.volumes), list(query.floatings), list(query.reserved_fixed_ips)];
    if (query.delete_floatings && floatings.length > 0) throw badInput([queryField('floatings', 'cannot be combined with delete_floatings')]);
    const attached = await this.ops.resources.attachedTo(id);
    const foreign = (ids: string[], kind: string) => ids.filter((v) => !attached.some((r) => r.id === v && r.kind === kind));
    const reservedPorts = attached.filter((r) => r.kind === 'port' && attrsOf<PortAttrs>(r).reserved).map((r) => r.id);
    for (const [name, ids, kind] of [
      ['volumes', volumes, 'volume'],
      ['floatings', floatings, 'floatingip'],
    ] as const) {
      const bad = foreign(ids, kind);
      if (bad.length > 0) throw badInput([queryField(name, `${bad.join(', ')} ${bad.length === 1 ? 'is' : 'are'} not attached to instance ${id}`)]);
    }
    const notReserved = reserved.filter((p) => !reservedPorts.includes(p));
    if (notReserved.length > 0)
      throw badInput([
        queryField(
          'reserved_fixed_ips',
          `${notReserved.join(', ')} ${notReserved.length === 1 ? 'is not a reserved fixed IP' : 'are not reserved fixed IPs'} of instance ${id}`,
        ),
      ]);
    const data = { instance_id: id, volumes, floatings, delete_floatings: query.delete_floatings ?? false, reserved_fixed_ips: reserved };
    return this.records.startTask(caller, scope, row, 'delete_vm', data, { attrs: withTaskState(row, 'deleting') });
  }

  /** The caller's instance, or a 404: volumes, floating IPs and interfaces check theirs with it. */
  async row(scope: Scope, id: string): Promise<ResourceRow> {
    return this.records.row(scope, id);
  }

  async present(row: ResourceRow): Promise<Instance> {
    const attrs = attrsOf<InstanceAttrs>(row);
    const flavor = flavorById(attrs.flavor_id)!;
    const attached = await this.ops.resources.attachedTo(row.id);
    const ports = attached.filter((r) => r.kind === 'port' && r.ready);
    const addresses: Instance['addresses'] = {};
    for (const port of ports) {
      const p = attrsOf<PortAttrs>(port);
      (addresses[p.network_name] ??= []).push({
        addr: p.ip_address,
        type: 'fixed',
        interface_name: p.interface_name,
        subnet_id: p.subnet_id,
        subnet_name: p.subnet_name,
      });
    }
    const groupIds = [...new Set(ports.flatMap(groupsOf))];
    const groups = (await Promise.all(groupIds.map((g) => this.ops.resources.byId(g)))).filter((g): g is ResourceRow => g !== undefined);
    return {
      id: row.id,
      name: row.name,
      instance_description: attrs.description,
      status: row.status,
      vm_state: attrs.vm_state,
      task_state: attrs.task_state,
      flavor: {
        flavor_id: flavor.flavor_id,
        flavor_name: flavor.flavor_name,
        vcpus: flavor.vcpus,
        ram: flavor.ram,
        architecture: flavor.architecture,
        os_type: flavor.os_type,
        hardware_description: flavor.hardware_description,
      },
      addresses,
      volumes: attached
        .filter((r) => r.kind === 'volume' && r.status !== 'attaching')
        .map((v) => ({ id: v.id, delete_on_termination: attrsOf<VolumeAttrs>(v).delete_on_termination })),
      security_groups: groups.map((g) => ({ name: g.name })),
      fixed_ip_assignments: ports.map((p) => ({
        external: attrsOf<PortAttrs>(p).external,
        ip_address: attrsOf<PortAttrs>(p).ip_address,
        subnet_id: attrsOf<PortAttrs>(p).subnet_id,
      })),
      blackhole_ports: [],
      ddos_profile: null,
      instance_isolation: null,
      ssh_key_name: attrs.ssh_key_name,
      tags: tagList(attrs.tags),
      project_id: Number(row.project_id),
      region_id: Number(row.region_id),
      region: this.ops.regions.name(Number(row.region_id)),
      creator_task_id: row.creator_task_id,
      task_id: row.task_id,
      created_at: zonedTime(row.created_at),
    };
  }
}

/** The instance's attributes (JSON) with the task state the provider shows while a task works on it. */
export function withTaskState(row: ResourceRow, taskState: string): string {
  const attrs = attrsOf<InstanceAttrs>(row);
  attrs.task_state = taskState;
  return JSON.stringify(attrs);
}

/** A name from a template and the instance's first address: {ip_octets} 10-0-5, {two_ip_octets} 0-5, {one_ip_octet} 5. */
function nameFrom(template: string | undefined, address: string | null): string | undefined {
  if (!template) return undefined;
  const octets = (address ?? '0.0.0.0').split('.');
  const name = template
    .replace(/\{ip_octets\}/g, octets.slice(1).join('-'))
    .replace(/\{two_ip_octets\}/g, octets.slice(2).join('-'))
    .replace(/\{one_ip_octet\}/g, octets[3]);
  if (/[{}]/.test(name)) throw badRequest(`name_template ${template} has a placeholder other than {ip_octets}, {two_ip_octets} and {one_ip_octet}`);
  return name.slice(0, 63);
}

function sortInstances(rows: ResourceRow[], orderBy: string | undefined): void {
  const [field, dir] = (orderBy ?? 'created.asc').split('.');
  const sign = dir === 'desc' ? -1 : 1;
  const key = (r: ResourceRow) => (field === 'name' ? r.name : field === 'status' ? r.status : '');
  rows.sort((a, b) => (field === 'created' ? Number(a.created_at) - Number(b.created_at) : key(a).localeCompare(key(b))) * sign);
}
