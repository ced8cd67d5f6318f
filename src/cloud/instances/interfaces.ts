// The network interfaces (ports) of an instance: what a client reads to find the port a floating IP
// is assigned to. Each interface carries its network with its subnets, its addresses and its floating IPs.
import { Type, type Static } from 'typebox';
import { notFound } from '../../platform/errors.js';
import { Nullable } from '../../platform/schema.js';
import type { Caller, Operations } from '../common/operations.js';
import { attrsOf, type ResourceRow } from '../common/resource-store.js';
import { zonedTime } from '../common/format.js';
import { FloatingIpSchema } from '../floating-ips/schemas.js';
import type { FloatingIpService } from '../floating-ips/service.js';
import { NetworkSchema } from '../networks/schemas.js';
import type { NetworkService } from '../networks/service.js';
import { SubnetSchema } from '../networks/subnets/schemas.js';
import type { SubnetService } from '../networks/subnets/service.js';
import type { PortAttrs } from './service.js';

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
    sub_ports: Type.Array(Type.Object({})),
  },
  { description: 'A network interface (port) of an instance' },
);
type Interface = Static<typeof InterfaceSchema>;

/** The provider's public network, shown for `external` interfaces (one per region, fixed ID). */
function publicNetwork(regionId: number, regionName: string, now: number): Interface['network_details'] {
  return {
    id: `00000000-0000-4000-8000-${String(regionId).padStart(12, '0')}`, name: 'public', type: 'vlan', mtu: 1500, segmentation_id: null,
    external: true, shared: true, default: false, port_security_enabled: true, subnets: [], tags: [], project_id: null, region_id: regionId,
    region: regionName, creator_task_id: null, task_id: null, created_at: zonedTime(now), updated_at: zonedTime(now),
  };
}

export class InterfaceService {
  constructor(
    private readonly ops: Operations,
    private readonly networks: NetworkService,
    private readonly subnets: SubnetService,
    private readonly floatingIps: FloatingIpService,
  ) {}

  async list(caller: Caller, projectId: number, regionId: number, instanceId: string): Promise<{ count: number; results: Interface[] }> {
    const scope = await this.ops.readable(caller, projectId, regionId);
    if (!(await this.ops.resources.get('instance', scope, instanceId))) throw notFound(`Instance ${instanceId}`);
    const ports = (await this.ops.resources.attachedTo(instanceId, 'port')).filter((p) => p.ready);
    const results = await Promise.all(ports.map((port) => this.present(port, regionId)));
    return { count: results.length, results };
  }

  private async present(port: ResourceRow, regionId: number): Promise<Interface> {
    const attrs = attrsOf<PortAttrs>(port);
    let network = publicNetwork(regionId, this.ops.regions.name(regionId), port.created_at);
    const parent = port.parent_id ? await this.ops.resources.byId(port.parent_id) : undefined;
    if (parent) {
      const subnetRows = await this.ops.resources.children(parent.id, 'subnet');
      network = { ...(await this.networks.present(parent)), subnets: await Promise.all(subnetRows.map((s) => this.subnets.present(s))) };
    }
    const fips = (await this.ops.resources.children(port.id, 'floatingip')).filter((f) => f.ready);
    const hex = port.id.replace(/-/g, '');
    return {
      port_id: port.id, network_id: network.id, interface_name: attrs.interface_name, mac_address: `fa:16:3e:${hex.slice(0, 2)}:${hex.slice(2, 4)}:${hex.slice(4, 6)}`,
      port_security_enabled: true, ip_assignments: [{ ip_address: attrs.ip_address, subnet_id: attrs.subnet_id }], allowed_address_pairs: [],
      floatingip_details: await Promise.all(fips.map((f) => this.floatingIps.present(f))), network_details: network, sub_ports: [],
    };
  }
}
