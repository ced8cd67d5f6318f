// Where a balancer's VIP and its members are: the VIP on a network's subnet, on a free reserved fixed
// IP, or on the provider's public network; each member on a subnet the balancer reaches. A balancer
// reaches the subnets of its VIP network, and attaches to the subnet of any other member (layer 2),
// unless it is asked to route (`preferred_connectivity: L3`) to instance members: their subnet must
// then be on the VIP network or joined to it by a router.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError } from '../../platform/errors.js';
import { badInput, bodyField } from '../common/errors.js';
import type { Operations } from '../common/operations.js';
import { attrsOf, newRow, type ResourceRow, type Scope } from '../common/resource-store.js';
import type { PortAttrs } from '../instances/builder.js';
import { publicAddress, publicSubnetId } from '../instances/public-network.js';
import type { NetworkService } from '../networks/service.js';
import { freeAddress, isHostAddress, parseCidr } from '../networks/subnets/cidr.js';
import type { SubnetAttrs } from '../networks/subnets/service.js';
import { routed } from '../routers/records.js';
import { memberMisfits } from './checks.js';
import type { MemberInput } from './pool-schemas.js';
import type { LoadBalancerCreateBody } from './schemas.js';

type Path = (string | number)[];

/** What member checks need to know of the balancer. */
export interface Reach {
  lbId: string;
  vipNetworkId: string | null;
  connectivity: 'L2' | 'L3';
}

/** The VIP a create will have: a new port row, or a reserved port it takes. */
export interface Vip {
  port: ResourceRow;
  /** The port is a reserved fixed IP the balancer takes (not made for it). */
  reserved: boolean;
  networkId: string | null;
  subnetId: string | null;
}

export class LbPlacement {
  constructor(
    private readonly ops: Operations,
    private readonly networks: NetworkService,
  ) {}

  /** Checks the VIP fields and plans the VIP port of balancer `lbId`. */
  async vip(scope: Scope, body: Static<typeof LoadBalancerCreateBody>, lbId: string, now: number): Promise<Vip> {
    if (body.vip_ip_family === 'ipv6' || body.vip_ip_family === 'dual') throw badInput([bodyField(['vip_ip_family'], 'subnets here are IPv4 only: use ipv4')]);
    if (body.vip_port_id && body.vip_network_id) throw badInput([bodyField(['vip_port_id'], 'cannot be combined with vip_network_id')]);
    if (body.vip_subnet_id && !body.vip_network_id) throw badInput([bodyField(['vip_subnet_id'], 'needs vip_network_id, the network of the subnet')]);
    if (body.vip_port_id) return this.reservedVip(scope, body.vip_port_id);
    if (body.floating_ip && !body.vip_network_id)
      throw badInput([bodyField(['floating_ip'], 'a balancer on the public network has a public address already; give vip_network_id for a private one')]);
    if (!body.vip_network_id) {
      const attrs: PortAttrs = {
        ...portBase(),
        subnet_id: publicSubnetId(scope.regionId),
        subnet_name: 'external',
        network_name: 'external',
        ip_address: publicAddress(now, 0),
        external: true,
      };
      return {
        port: newRow(scope, 'port', randomUUID(), `lb-vip-${lbId.slice(0, 8)}`, 'ACTIVE', '', attrs, now, { owner_id: lbId }),
        reserved: false,
        networkId: null,
        subnetId: null,
      };
    }
    return this.privateVip(scope, body.vip_network_id, body.vip_subnet_id, lbId, now);
  }

  private async privateVip(scope: Scope, networkId: string, subnetId: string | undefined, lbId: string, now: number): Promise<Vip> {
    const network = await this.networks.usable(scope, networkId, undefined, ['vip_network_id']);
    const subnets = (await this.ops.resources.children(network.id, 'subnet')).filter(
      (s) => s.ready && s.status !== 'deleting' && (!subnetId || s.id === subnetId),
    );
    const subnet = subnets[0];
    if (!subnet)
      throw badInput([
        subnetId
          ? bodyField(['vip_subnet_id'], `subnet ${subnetId} is not a finished subnet of network ${networkId}`)
          : bodyField(['vip_network_id'], `network ${networkId} has no finished subnet`),
      ]);
    const cidr = parseCidr(attrsOf<SubnetAttrs>(subnet).cidr)!;
    const address = freeAddress(cidr, await this.networks.addressesInUse(network.id));
    if (!address) throw new AppError('conflict', `Subnet ${subnet.id} has no free address left for the VIP`);
    const attrs: PortAttrs = {
      ...portBase(),
      subnet_id: subnet.id,
      subnet_name: subnet.name,
      network_name: network.name,
      ip_address: address,
      external: false,
    };
    const port = newRow(scope, 'port', randomUUID(), `lb-vip-${lbId.slice(0, 8)}`, 'ACTIVE', '', attrs, now, { parent_id: network.id, owner_id: lbId });
    return { port, reserved: false, networkId: network.id, subnetId: subnet.id };
  }

  /** A reserved fixed IP the caller has, finished and free. */
  private async reservedVip(scope: Scope, portId: string): Promise<Vip> {
    const port = await this.ops.resources.get('port', scope, portId);
    const attrs = port ? attrsOf<PortAttrs & { reserved?: boolean }>(port) : undefined;
    if (!port || !attrs?.reserved || !port.ready)
      throw badInput([bodyField(['vip_port_id'], `${portId} is not a reserved fixed IP of project ${scope.projectId}, region ${scope.regionId}`)]);
    if (port.owner_id || port.task_id) throw new AppError('conflict', `Reserved fixed IP ${portId} is in use (or busy); free it first`);
    return { port, reserved: true, networkId: port.parent_id, subnetId: attrs.external ? null : attrs.subnet_id };
  }

  /**
   * The subnet a member is on, after checking it can be: an address of the instance named, an address of
   * the subnet named, or an address of the VIP network's subnets.
   */
  async member(scope: Scope, reach: Reach, m: Static<typeof MemberInput>, at: Path): Promise<string> {
    const misfits = memberMisfits(m, at);
    if (misfits.length > 0) throw badInput(misfits);
    if (m.instance_id) return this.instanceMember(scope, reach, m, at);
    if (m.subnet_id) {
      const subnet = await this.ops.resources.get('subnet', scope, m.subnet_id);
      if (!subnet || !subnet.ready)
        throw refuse([...at, 'subnet_id'], `subnet ${m.subnet_id} is not a finished subnet of project ${scope.projectId}, region ${scope.regionId}`);
      const cidr = attrsOf<SubnetAttrs>(subnet).cidr;
      if (!isHostAddress(parseCidr(cidr)!, m.address)) throw refuse([...at, 'address'], `${m.address} is not a host address of subnet ${subnet.id} (${cidr})`);
      return subnet.id;
    }
    if (!reach.vipNetworkId)
      throw refuse([...at, 'subnet_id'], 'a balancer on the public network reaches a member through its subnet_id or instance_id; give one');
    const subnets = (await this.ops.resources.children(reach.vipNetworkId, 'subnet')).filter((s) => s.ready);
    const home = subnets.find((s) => isHostAddress(parseCidr(attrsOf<SubnetAttrs>(s).cidr)!, m.address));
    if (!home)
      throw refuse(
        [...at, 'address'],
        `${m.address} is on no subnet of the balancer's network ${reach.vipNetworkId}: give the member's subnet_id or instance_id`,
      );
    return home.id;
  }

  private async instanceMember(scope: Scope, reach: Reach, m: Static<typeof MemberInput>, at: Path): Promise<string> {
    const instance = await this.ops.resources.get('instance', scope, m.instance_id!);
    if (!instance) throw refuse([...at, 'instance_id'], `instance ${m.instance_id} does not exist in project ${scope.projectId}, region ${scope.regionId}`);
    const ports = (await this.ops.resources.attachedTo(instance.id, 'port')).filter((p) => p.ready);
    const port = ports.find((p) => attrsOf<PortAttrs>(p).ip_address === m.address);
    if (!port)
      throw refuse(
        [...at, 'address'],
        `${m.address} is not an address of instance ${instance.id} (${ports.map((p) => attrsOf<PortAttrs>(p).ip_address).join(', ') || 'none'})`,
      );
    const attrs = attrsOf<PortAttrs>(port);
    if (m.subnet_id && m.subnet_id !== attrs.subnet_id)
      throw refuse([...at, 'subnet_id'], `${m.address} of instance ${instance.id} is on subnet ${attrs.subnet_id}, not ${m.subnet_id}`);
    if (reach.connectivity === 'L3' && !attrs.external && !(await this.routes(reach, port))) {
      throw refuse(
        [...at, 'instance_id'],
        `balancer ${reach.lbId} routes (preferred_connectivity L3) to subnets of its VIP network or joined to it by a router; subnet ${attrs.subnet_id} of instance ${instance.id} is neither: use L2, or attach both to a router`,
      );
    }
    return attrs.subnet_id;
  }

  /**
   * Whether the balancer reaches the port's subnet at layer 3: it is on the VIP network, or a router joins
   * its network to the VIP network (to the public network, for a public VIP: a router with a gateway).
   */
  private async routes(reach: Reach, port: ResourceRow): Promise<boolean> {
    if (port.parent_id === reach.vipNetworkId) return true;
    return routed(this.ops.resources, port.parent_id!, reach.vipNetworkId);
  }
}

const portBase = () => ({ interface_name: null, security_group_ids: [] as string[], port_security_enabled: true });

const refuse = (path: Path, message: string) => badInput([bodyField(path, message)]);
