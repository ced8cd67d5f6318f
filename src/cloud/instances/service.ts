// Instances: a create writes the instance, its new volumes and its ports in one transaction with its
// task; it may use only networks and subnets whose create tasks finished. Power actions are tasks too.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError, bodyField, invalid } from '../../platform/errors.js';
import { tagList, zonedTime } from '../common/format.js';
import type { Caller, Operations } from '../common/operations.js';
import { RegionalRecords } from '../common/regional-records.js';
import { attrsOf, newRow, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import type { NetworkService } from '../networks/service.js';
import { ipAt, parseCidr } from '../networks/subnets/cidr.js';
import type { SubnetAttrs } from '../networks/subnets/service.js';
import { FLAVORS, flavorById } from './flavors.js';
import type { InstanceCreateBody, InstanceListQuery, InstanceSchema } from './schemas.js';

type Instance = Static<typeof InstanceSchema>;
type Body = Static<typeof InstanceCreateBody>;

export interface InstanceAttrs {
  flavor_id: string;
  ssh_key_name: string | null;
  tags: Record<string, string>;
  vm_state: string;
  task_state: string | null;
  description: string | null;
}

export interface PortAttrs {
  subnet_id: string;
  subnet_name: string;
  network_name: string;
  ip_address: string;
  external: boolean;
  interface_name: string | null;
}

export interface VolumeAttrs {
  volume_type: string;
  bootable: boolean;
  is_root_volume: boolean;
  delete_on_termination: boolean;
  tags: Record<string, string>;
  attached_at: number | null;
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
  private readonly records: RegionalRecords;

  constructor(private readonly ops: Operations, private readonly networks: NetworkService) {
    this.records = new RegionalRecords(ops, 'instance', 'Instance');
  }

  async flavors(caller: Caller, projectId: number, regionId: number, query: { disabled?: boolean; exclude_linux?: boolean; exclude_windows?: boolean }): Promise<{ count: number; results: typeof FLAVORS }> {
    await this.ops.readable(caller, projectId, regionId);
    const results = FLAVORS.filter(
      (f) => (query.disabled === undefined || f.disabled === query.disabled) && !(query.exclude_linux && f.os_type === 'linux') && !(query.exclude_windows && f.os_type === 'windows'),
    );
    return { count: results.length, results };
  }

  async create(caller: Caller, projectId: number, regionId: number, body: Body) {
    const { scope, region } = await this.ops.place(caller, projectId, regionId, 'has_kvm');
    const flavor = flavorById(body.flavor);
    if (!flavor) throw invalid([bodyField(['flavor'], `unknown flavor ${body.flavor}`)]);
    const id = randomUUID();
    const now = this.ops.clock.now();
    const rows: ResourceRow[] = [];
    const attachExisting: string[] = [];
    for (const [i, v] of body.volumes.entries()) {
      if (v.source === 'existing-volume') {
        const vol = await this.ops.resources.get('volume', scope, v.volume_id);
        if (!vol || !vol.ready || vol.owner_id) throw invalid([bodyField(['volumes', i, 'volume_id'], `volume ${v.volume_id} is not an available volume of this project and region`)]);
        attachExisting.push(v.volume_id);
        continue;
      }
      const type = v.type_name ?? 'standard';
      if (!region.available_volume_types.includes(type)) throw invalid([bodyField(['volumes', i, 'type_name'], `volume type ${type} is not available in region ${regionId}`)]);
      const attrs: VolumeAttrs = { volume_type: type, bootable: i === 0, is_root_volume: i === 0, delete_on_termination: v.delete_on_termination ?? false, tags: v.tags ?? {}, attached_at: now };
      rows.push(newRow(scope, 'volume', randomUUID(), v.name ?? `${body.name ?? 'instance'}-volume-${i}`, 'creating', '', attrs, now, { owner_id: id, size_gb: v.size ?? 10 }));
    }
    for (const [i, itf] of body.interfaces.entries()) rows.push(await this.port(scope, id, i, itf, rows, now));
    const instanceAttrs: InstanceAttrs = { flavor_id: flavor.flavor_id, ssh_key_name: body.ssh_key_name ?? null, tags: body.tags ?? {}, vm_state: 'building', task_state: 'spawning', description: null };
    const name = body.name ?? body.name_template ?? `instance-${id.slice(0, 8)}`;
    const task = await this.ops.submit(caller, scope, 'create_vm', { instance_id: id, attach: attachExisting }, async (trx, taskId) => {
      const store = new ResourceStore(trx);
      await store.insert(newRow(scope, 'instance', id, name, 'BUILD', taskId, instanceAttrs, now, { vcpus: flavor.vcpus, ram_mb: flavor.ram }));
      for (const row of rows) await store.insert({ ...row, creator_task_id: taskId, task_id: taskId });
      for (const volumeId of attachExisting) await store.update(volumeId, { owner_id: id, status: 'attaching', task_id: taskId });
    });
    return { tasks: [task], id };
  }

  /** A port on a finished network and subnet, with the next free address of the subnet. */
  private async port(scope: Scope, instanceId: string, i: number, itf: Body['interfaces'][number], pending: ResourceRow[], now: number): Promise<ResourceRow> {
    if (itf.type === 'external') {
      const attrs: PortAttrs = { subnet_id: '', subnet_name: 'external', network_name: 'external', ip_address: `203.0.113.${(now % 250) + 2}`, external: true, interface_name: itf.interface_name ?? null };
      return newRow(scope, 'port', randomUUID(), `port-${i}`, 'ACTIVE', '', attrs, now, { owner_id: instanceId });
    }
    const network = await this.networks.usable(scope, itf.network_id);
    const subnets = (await this.ops.resources.children(network.id, 'subnet')).filter((s) => s.ready && (itf.type === 'any_subnet' || s.id === itf.subnet_id));
    const subnet = subnets[0];
    if (!subnet) throw invalid([bodyField(['interfaces', i, itf.type === 'subnet' ? 'subnet_id' : 'network_id'], itf.type === 'subnet' ? `subnet ${itf.subnet_id} is not a finished subnet of network ${itf.network_id}` : `network ${itf.network_id} has no finished subnet`)]);
    const cidr = parseCidr(attrsOf<SubnetAttrs>(subnet).cidr)!;
    const taken = [...(await this.ops.resources.children(network.id, 'port')), ...pending.filter((p) => p.parent_id === network.id)]
      .filter((p) => attrsOf<PortAttrs>(p).subnet_id === subnet.id).length;
    const attrs: PortAttrs = { subnet_id: subnet.id, subnet_name: subnet.name, network_name: network.name, ip_address: ipAt(cidr, taken + 2), external: false, interface_name: itf.interface_name ?? null };
    return newRow(scope, 'port', randomUUID(), `port-${i}`, 'ACTIVE', '', attrs, now, { parent_id: network.id, owner_id: instanceId });
  }

  async list(caller: Caller, projectId: number, regionId: number, query: Static<typeof InstanceListQuery>) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    return this.records.page(scope, { name: query.name, status: query.status }, query, (r) => this.present(r));
  }

  async get(caller: Caller, projectId: number, regionId: number, id: string): Promise<Instance> {
    return this.records.get(caller, projectId, regionId, id, (r) => this.present(r));
  }

  async action(caller: Caller, projectId: number, regionId: number, id: string, action: Action) {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_kvm');
    const row = await this.records.idleRow(scope, id);
    const rule = ACTIONS[action];
    if (!(rule.from as readonly string[]).includes(row.status)) throw new AppError('conflict', `Cannot ${action.replace('_', ' ')} instance ${id}: it is ${row.status} (needs ${rule.from.join(' or ')})`);
    return this.records.startTask(caller, scope, row, rule.type, { instance_id: id }, { attrs: withTaskState(row, rule.taskState) });
  }

  async delete(caller: Caller, projectId: number, regionId: number, id: string, query: { volumes?: string; delete_floatings?: boolean }) {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_kvm');
    const row = await this.records.idleRow(scope, id);
    const volumes = query.volumes ? query.volumes.split(',').map((v) => v.trim()).filter(Boolean) : [];
    return this.records.startTask(caller, scope, row, 'delete_vm', { instance_id: id, volumes, delete_floatings: query.delete_floatings ?? false }, { attrs: withTaskState(row, 'deleting') });
  }

  /** The caller's instance, or a 404: volumes, floating IPs and interfaces check theirs with it. */
  async row(scope: Scope, id: string): Promise<ResourceRow> {
    return this.records.row(scope, id);
  }

  async present(row: ResourceRow): Promise<Instance> {
    const attrs = attrsOf<InstanceAttrs>(row);
    const flavor = flavorById(attrs.flavor_id)!;
    const attached = await this.ops.resources.attachedTo(row.id);
    const addresses: Instance['addresses'] = {};
    for (const port of attached.filter((r) => r.kind === 'port')) {
      const p = attrsOf<PortAttrs>(port);
      (addresses[p.network_name] ??= []).push({ addr: p.ip_address, type: 'fixed', interface_name: p.interface_name, subnet_id: p.subnet_id, subnet_name: p.subnet_name });
    }
    return {
      id: row.id, name: row.name, instance_description: attrs.description, status: row.status, vm_state: attrs.vm_state, task_state: attrs.task_state,
      flavor: { flavor_id: flavor.flavor_id, flavor_name: flavor.flavor_name, vcpus: flavor.vcpus, ram: flavor.ram, architecture: flavor.architecture, os_type: flavor.os_type, hardware_description: flavor.hardware_description },
      addresses,
      volumes: attached.filter((r) => r.kind === 'volume').map((v) => ({ id: v.id, delete_on_termination: attrsOf<VolumeAttrs>(v).delete_on_termination })),
      security_groups: [{ name: 'default' }],
      fixed_ip_assignments: attached.filter((r) => r.kind === 'port').map((p) => ({ external: attrsOf<PortAttrs>(p).external, ip_address: attrsOf<PortAttrs>(p).ip_address, subnet_id: attrsOf<PortAttrs>(p).subnet_id })),
      blackhole_ports: [], ddos_profile: null, instance_isolation: null, ssh_key_name: attrs.ssh_key_name, tags: tagList(attrs.tags),
      project_id: Number(row.project_id), region_id: Number(row.region_id), region: this.ops.regions.name(Number(row.region_id)),
      creator_task_id: row.creator_task_id, task_id: row.task_id, created_at: zonedTime(row.created_at),
    };
  }
}

/** The instance's attributes (JSON) with the task state the provider shows while a task works on it. */
function withTaskState(row: ResourceRow, taskState: string): string {
  const attrs = attrsOf<InstanceAttrs>(row);
  attrs.task_state = taskState;
  return JSON.stringify(attrs);
}
