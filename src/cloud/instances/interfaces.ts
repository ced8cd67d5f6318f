// The network interfaces (ports) of an instance: listed (what a client reads to find the port a floating
// IP is assigned to), attached and detached through tasks, and their port security switched. Each
// interface carries its network with its subnets, its addresses and its floating IPs.
import { Type, type Static } from 'typebox';
import { AppError, notFound } from '../../platform/errors.js';
import { Nullable } from '../../platform/schema.js';
import { badInput, bodyField } from '../common/errors.js';
import { pageOf } from '../common/filters.js';
import { zonedTime } from '../common/format.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import type { TaskIds } from '../common/regional-records.js';
import { attrsOf, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import { FloatingIpSchema } from '../floating-ips/schemas.js';
import type { FloatingIpService } from '../floating-ips/service.js';
import { NetworkSchema } from '../networks/schemas.js';
import type { NetworkService } from '../networks/service.js';
import { SubnetSchema } from '../networks/subnets/schemas.js';
import type { SubnetService } from '../networks/subnets/service.js';
import type { SecurityGroupService } from '../security-groups/service.js';
import type { InstanceBuilder, PortAttrs } from './builder.js';
import { publicNetworkId } from './public-network.js';
import type { AttachInterfaceBody } from './interface-schemas.js';

export const InterfaceSchema = Type.Object(
  {
    port_id: Type.String({ format: 'uuid' }),
    network_id: Type.String({ format: 'uuid' }),
    interface_name: Nullable(Type.String()),
    mac_address: Nullable(Type.String()),
    port_security_enabled: Type.Boolean(),
    ip_assignments: Type.Array(Type.Object({ ip_address: Type.String(), subnet_id: Type.String() })),
    allowed_address_pairs: Type.Array(Type.Object({ ip_address: Type.String(), mac_address: Nullable(Type.String()) })),
    floatingip_details: Type.Array(FloatingIpSchema),
    network_details: Type.Object({ ...NetworkSchema.properties, subnets: Type.Array(SubnetSchema) }),
  },
  { description: 'A network interface (port) of an instance' },
);
type Interface = Static<typeof InterfaceSchema>;

/** The provider's public network, shown for `external` interfaces (one per region, fixed ID). */
export function publicNetwork(regionId: number, regionName: string, now: number): Interface['network_details'] {
  return {
    id: publicNetworkId(regionId),
    name: 'public',
    type: 'vlan',
    mtu: 1500,
    segmentation_id: null,
    external: true,
    shared: true,
    default: false,
    port_security_enabled: true,
    subnets: [],
    tags: [],
    project_id: null,
    region_id: regionId,
    region: regionName,
    creator_task_id: null,
    task_id: null,
    created_at: zonedTime(now),
    updated_at: zonedTime(now),
  };
}

/** A port's MAC address, as the provider's OpenStack makes them (its prefix, then bytes of the port ID). */
export function macAddress(portId: string): string {
  const hex = portId.replace(/-/g, '');
  return `fa:16:3e:${hex.slice(0, 2)}:${hex.slice(2, 4)}:${hex.slice(4, 6)}`;
}

export class InterfaceService {
  constructor(
    private readonly ops: Operations,
    private readonly networks: NetworkService,
    private readonly subnets: SubnetService,
    private readonly floatingIps: FloatingIpService,
    private readonly builder: InstanceBuilder,
    private readonly groups: SecurityGroupService,
  ) {}

  async list(
    caller: Caller,
    projectId: number,
    regionId: number,
    instanceId: string,
    page: { limit: number; offset: number },
  ): Promise<{ count: number; results: Interface[] }> {
    const scope = await this.ops.readable(caller, projectId, regionId);
    await this.instance(scope, instanceId);
    const ports = (await this.ops.resources.attachedTo(instanceId, 'port')).filter((p) => p.ready);
    const shown = pageOf(ports, page);
    return { count: shown.count, results: await Promise.all(shown.results.map((port) => this.present(port, regionId))) };
  }

  async attach(caller: Caller, projectId: number, regionId: number, instanceId: string, body: Static<typeof AttachInterfaceBody>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_kvm');
    const instance = await this.idle(scope, instanceId);
    const ids = body.security_groups?.map((g) => g.id) ?? [this.groups.groups.defaultId(scope)];
    await this.groups.require(scope, ids, ['security_groups']);
    const now = this.ops.clock.now();
    if (body.type === 'reserved_fixed_ip') return this.attachReserved(caller, scope, instance, body.port_id, ids, now);
    const itf = body.type === 'subnet' ? { ...body, network_id: await this.networkOf(scope, body.subnet_id) } : { ...body, type: body.type ?? 'external' };
    const port = await this.builder.portRow(scope, [], 0, itf as never, ids, instance.id, now, []);
    const task = await this.ops.submit(caller, scope, 'attach_vm_interface', { instance_id: instance.id, port_id: port.id }, async (trx, taskId) => {
      const store = new ResourceStore(trx);
      await store.insert({ ...port, name: `port-${port.id.slice(0, 8)}`, creator_task_id: taskId, task_id: taskId });
      await store.update(instance.id, { task_id: taskId, updated_at: now });
    });
    return { tasks: [task], id: instance.id };
  }

  /** A free reserved fixed IP becomes an interface of the instance (and is let go of, not deleted, on detach). */
  private async attachReserved(caller: Caller, scope: Scope, instance: ResourceRow, portId: string, groups: string[], now: number): Promise<TaskIds> {
    const port = await this.builder.reservedPort(scope, portId, ['port_id']);
    const task = await this.ops.submit(caller, scope, 'attach_vm_interface', { instance_id: instance.id, port_id: port.id, groups }, async (trx, taskId) => {
      const store = new ResourceStore(trx);
      await store.update(port.id, { owner_id: instance.id, task_id: taskId, updated_at: now });
      await store.update(instance.id, { task_id: taskId, updated_at: now });
    });
    return { tasks: [task], id: instance.id };
  }

  async detach(caller: Caller, projectId: number, regionId: number, instanceId: string, portId: string, address: string): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_kvm');
    const instance = await this.idle(scope, instanceId);
    const port = (await this.ops.resources.attachedTo(instance.id, 'port')).find((p) => p.id === portId && p.ready);
    if (!port) throw badInput([bodyField(['port_id'], `port ${portId} is not an interface of instance ${instanceId}`)]);
    if (attrsOf<PortAttrs>(port).ip_address !== address)
      throw badInput([bodyField(['ip_address'], `port ${portId} has address ${attrsOf<PortAttrs>(port).ip_address}, not ${address}`)]);
    const task = await this.ops.submit(caller, scope, 'detach_vm_interface', { instance_id: instance.id, port_id: port.id }, async (trx, taskId) => {
      const store = new ResourceStore(trx);
      await store.update(instance.id, { task_id: taskId, updated_at: this.ops.clock.now() });
      await store.update(port.id, { task_id: taskId });
    });
    return { tasks: [task], id: instance.id };
  }

  /** Switches port security; it cannot be switched off while the port is in security groups. */
  async portSecurity(caller: Caller, projectId: number, regionId: number, portId: string, enabled: boolean): Promise<Interface> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const port = await this.ops.resources.get('port', scope, portId);
    if (!port || !port.ready) throw notFound(`Port ${portId}`);
    const attrs = attrsOf<PortAttrs>(port);
    if (!enabled && (attrs.security_group_ids ?? []).length > 0)
      throw new AppError(
        'conflict',
        `Port ${portId} is in security group(s) ${attrs.security_group_ids.join(', ')}; remove them before disabling port security`,
      );
    attrs.port_security_enabled = enabled;
    await this.ops.resources.update(portId, { attrs: JSON.stringify(attrs), updated_at: this.ops.clock.now() });
    return this.present((await this.ops.resources.byId(portId))!, regionId);
  }

  private async instance(scope: Scope, id: string): Promise<ResourceRow> {
    const row = await this.ops.resources.get('instance', scope, id);
    if (!row) throw notFound(`Instance ${id}`);
    return row;
  }

  /** An instance no task works on, running or stopped: interfaces change on those only. */
  private async idle(scope: Scope, id: string): Promise<ResourceRow> {
    const row = await this.instance(scope, id);
    if (row.task_id) throw new AppError('conflict', `Instance ${id} is busy with task ${row.task_id}; wait for it to finish`);
    if (!['ACTIVE', 'SHUTOFF'].includes(row.status))
      throw new AppError('conflict', `Instance ${id} is ${row.status}; interfaces change while it is ACTIVE or SHUTOFF`);
    return row;
  }

  private async networkOf(scope: Scope, subnetId: string): Promise<string> {
    const subnet = await this.ops.resources.get('subnet', scope, subnetId);
    if (!subnet) throw badInput([bodyField(['subnet_id'], `subnet ${subnetId} does not exist in project ${scope.projectId}, region ${scope.regionId}`)]);
    return subnet.parent_id!;
  }

  async present(port: ResourceRow, regionId: number): Promise<Interface> {
    const attrs = attrsOf<PortAttrs>(port);
    let network = publicNetwork(regionId, this.ops.regions.name(regionId), port.created_at);
    const parent = port.parent_id ? await this.ops.resources.byId(port.parent_id) : undefined;
    if (parent) {
      const subnetRows = await this.ops.resources.children(parent.id, 'subnet');
      network = { ...(await this.networks.present(parent)), subnets: await Promise.all(subnetRows.map((s) => this.subnets.present(s))) };
    }
    const fips = (await this.ops.resources.children(port.id, 'floatingip')).filter((f) => f.ready);
    return {
      port_id: port.id,
      network_id: network.id,
      interface_name: attrs.interface_name,
      mac_address: macAddress(port.id),
      port_security_enabled: attrs.port_security_enabled ?? true,
      ip_assignments: [{ ip_address: attrs.ip_address, subnet_id: attrs.subnet_id }],
      allowed_address_pairs: [],
      floatingip_details: await Promise.all(fips.map((f) => this.floatingIps.present(f))),
      network_details: network,
    };
  }
}
