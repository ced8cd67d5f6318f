// Routers: made (with subnet interfaces and a gateway if asked), changed through a task (v2) or at once
// (v1) and deleted through tasks; subnets attached and detached at once. An interface takes its subnet's
// gateway address (or the one given); a subnet has one router at most; a route's next hop is on a subnet
// the router is attached to; the only gateway network is the region's public one.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError, type FieldError } from '../../platform/errors.js';
import { badInput, bodyField } from '../common/errors.js';
import { pageOf } from '../common/filters.js';
import { zonedTime } from '../common/format.js';
import { parseNetwork } from '../common/ip.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import { RegionalRecords, type TaskIds } from '../common/regional-records.js';
import { attrsOf, newRow, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import type { PortAttrs } from '../instances/builder.js';
import { macAddress } from '../instances/interfaces.js';
import { publicAddress, publicNetworkId, publicSubnetId } from '../instances/public-network.js';
import type { NetworkService } from '../networks/service.js';
import { containsAddress, freeAddress, parseCidr } from '../networks/subnets/cidr.js';
import type { SubnetAttrs } from '../networks/subnets/service.js';
import type { QuotaService } from '../quotas/service.js';
import { interfacesOf, type RouteInput, type RouterAttrs } from './records.js';
import type { RouterCreateBody, RouterListQuery, RouterSchema, RouterUpdateBody } from './schemas.js';

type Router = Static<typeof RouterSchema>;
type GatewayInput = Static<typeof RouterCreateBody>['external_gateway_info'];
type Path = (string | number)[];

export class RouterService {
  readonly records: RegionalRecords;

  constructor(
    private readonly ops: Operations,
    private readonly networks: NetworkService,
    private readonly quotas: QuotaService,
  ) {
    this.records = new RegionalRecords(ops, 'router', 'Router');
  }

  async create(caller: Caller, projectId: number, regionId: number, body: Static<typeof RouterCreateBody>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const id = randomUUID();
    const now = this.ops.clock.now();
    const gateway = this.gateway(scope, body.external_gateway_info, 'create');
    const ports: ResourceRow[] = [];
    for (const [i, itf] of (body.interfaces ?? []).entries()) {
      const at = ['interfaces', i, 'subnet_id'];
      if (ports.some((p) => attrsOf<PortAttrs>(p).subnet_id === itf.subnet_id)) throw badInput([bodyField(at, `subnet ${itf.subnet_id} is listed twice`)]);
      ports.push(await this.interfacePort(scope, itf.subnet_id, undefined, id, now, at));
    }
    const routes = await this.routes(body.routes ?? [], ports, ['routes']);
    const gatewayRow = gateway ? gatewayPort(scope, id, now) : null;
    const attrs: RouterAttrs = { gateway: gateway && gatewayRow ? { ...gateway, port_id: gatewayRow.id } : null, routes };
    const task = await this.ops.submit(caller, scope, 'create_router', { router_id: id }, async (trx, taskId) => {
      const store = new ResourceStore(trx);
      await store.insert(
        newRow(scope, 'router', id, body.name, 'BUILD', taskId, attrs, now),
        ...[...ports, ...(gatewayRow ? [gatewayRow] : [])].map((port) => ({ ...port, creator_task_id: taskId, task_id: taskId })),
      );
    });
    return { tasks: [task], id };
  }

  /** A gateway asked for: the region's public network (the only external one), SNAT on unless said. */
  gateway(scope: Scope, input: GatewayInput, when: 'create' | 'update'): { network_id: string; enable_snat: boolean } | null {
    if (!input) return null;
    const at = (field: string) => ['external_gateway_info', field];
    const type = input.type ?? (input.network_id ? 'manual' : 'default');
    const external = publicNetworkId(scope.regionId);
    if (type === 'default' && when === 'update')
      throw badInput([bodyField(at('type'), 'an update names the gateway network: use type manual with network_id')]);
    if (type === 'default' && input.network_id) throw badInput([bodyField(at('network_id'), 'a default gateway takes no network_id')]);
    if (type === 'manual' && !input.network_id) throw badInput([bodyField(at('network_id'), 'a manual gateway needs network_id', 'missing')]);
    if (type === 'manual' && input.network_id !== external)
      throw badInput([bodyField(at('network_id'), `${input.network_id} is not an external network; region ${scope.regionId} has one: ${external}`)]);
    return { network_id: external, enable_snat: input.enable_snat ?? true };
  }

  /** An interface on a finished subnet no router has yet, at its gateway address (or `address`). */
  private async interfacePort(scope: Scope, subnetId: string, address: string | undefined, routerId: string, now: number, at: Path): Promise<ResourceRow> {
    const subnet = await this.ops.resources.get('subnet', scope, subnetId);
    if (!subnet || !subnet.ready || subnet.status === 'deleting')
      throw badInput([bodyField(at, `subnet ${subnetId} is not a finished subnet of project ${scope.projectId}, region ${scope.regionId}`)]);
    const network = await this.networks.usable(scope, subnet.parent_id!);
    const onSubnet = (await this.ops.resources.children(network.id, 'port')).filter((p) => attrsOf<PortAttrs>(p).subnet_id === subnet.id);
    for (const port of onSubnet) {
      const owner = port.owner_id ? await this.ops.resources.byId(port.owner_id) : undefined;
      if (owner?.kind === 'router') throw new AppError('conflict', `Subnet ${subnetId} is attached to router ${owner.id} already`);
    }
    const s = attrsOf<SubnetAttrs>(subnet);
    const cidr = parseCidr(s.cidr)!;
    const taken = await this.networks.addressesInUse(network.id);
    const wanted = address ?? (s.gateway_ip && !taken.has(s.gateway_ip) ? s.gateway_ip : freeAddress(cidr, taken));
    if (!wanted) throw new AppError('conflict', `Subnet ${subnetId} has no free address left for the router`);
    const edges = [cidr.base, cidr.base + 2 ** (32 - cidr.prefix) - 1].map((n) => [24, 16, 8, 0].map((sh) => Math.floor(n / 2 ** sh) % 256).join('.'));
    if (!containsAddress(cidr, wanted) || edges.includes(wanted))
      throw badInput([bodyField(['ip_address'], `${wanted} is not a host address of subnet ${subnetId} (${s.cidr})`)]);
    if (taken.has(wanted)) throw new AppError('conflict', `${wanted} is taken on network ${network.id}`);
    const attrs: PortAttrs = {
      subnet_id: subnet.id,
      subnet_name: subnet.name,
      network_name: network.name,
      ip_address: wanted,
      external: false,
      interface_name: null,
      security_group_ids: [],
      port_security_enabled: false,
    };
    return newRow(scope, 'port', randomUUID(), `router-if-${routerId.slice(0, 8)}`, 'ACTIVE', '', attrs, now, { parent_id: network.id, owner_id: routerId });
  }

  /** Routes in canonical form: a network each, once, with a next hop on a subnet among `interfaces`. */
  async routes(routes: RouteInput[], interfaces: ResourceRow[], at: Path): Promise<RouterAttrs['routes']> {
    const subnets = await Promise.all(
      interfaces.map(async (p) => parseCidr(attrsOf<SubnetAttrs>((await this.ops.resources.byId(attrsOf<PortAttrs>(p).subnet_id))!).cidr)!),
    );
    const out: RouterAttrs['routes'] = [];
    const wrong: FieldError[] = [];
    for (const [i, route] of routes.entries()) {
      const destination = parseNetwork(route.destination);
      if (!destination) wrong.push(bodyField([...at, i, 'destination'], `${route.destination} is not a network in CIDR form`));
      else if (out.some((r) => r.destination === destination.text)) wrong.push(bodyField([...at, i, 'destination'], `${destination.text} has a route already`));
      if (!subnets.some((cidr) => containsAddress(cidr, route.nexthop)))
        wrong.push(bodyField([...at, i, 'nexthop'], `${route.nexthop} is on no subnet the router is attached to`));
      if (destination) out.push({ destination: destination.text, nexthop: route.nexthop });
    }
    if (wrong.length > 0) throw badInput(wrong);
    return out;
  }

  async list(caller: Caller, projectId: number, regionId: number, query: Static<typeof RouterListQuery>) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    return this.records.page(scope, { name: query.name }, query, (r) => this.present(r));
  }

  async get(caller: Caller, projectId: number, regionId: number, id: string): Promise<Router> {
    return this.records.get(caller, projectId, regionId, id, (r) => this.present(r));
  }

  /** Attaches a subnet at once (the provider answers with the router). */
  async attach(caller: Caller, projectId: number, regionId: number, id: string, subnetId: string, address?: string): Promise<Router> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const router = await this.ready(scope, id);
    const port = await this.interfacePort(scope, subnetId, address, id, this.ops.clock.now(), ['subnet_id']);
    await this.ops.transaction(scope, async (trx) => {
      const store = new ResourceStore(trx);
      await store.insert({ ...port, ready: 1, creator_task_id: null, task_id: null });
      await store.update(router.id, { updated_at: this.ops.clock.now() });
    });
    return this.present(await this.records.row(scope, id));
  }

  /** Detaches a subnet at once; not one a route's next hop is on. */
  async detach(caller: Caller, projectId: number, regionId: number, id: string, subnetId: string): Promise<Router> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const router = await this.ready(scope, id);
    const interfaces = await interfacesOf(this.ops.resources, id);
    const port = interfaces.find((p) => attrsOf<PortAttrs>(p).subnet_id === subnetId);
    if (!port) throw badInput([bodyField(['subnet_id'], `subnet ${subnetId} is not attached to router ${id}`)]);
    const cidr = parseCidr(attrsOf<SubnetAttrs>((await this.ops.resources.byId(subnetId))!).cidr)!;
    const hop = attrsOf<RouterAttrs>(router).routes.find((r) => containsAddress(cidr, r.nexthop));
    if (hop) throw new AppError('conflict', `Route to ${hop.destination} goes through ${hop.nexthop} on subnet ${subnetId}; change the routes first`);
    await this.ops.transaction(scope, async (trx) => {
      const store = new ResourceStore(trx);
      await store.delete(port.id);
      await store.update(router.id, { updated_at: this.ops.clock.now() });
    });
    return this.present(await this.records.row(scope, id));
  }

  /** v1: name, gateway and routes at once. */
  async update(caller: Caller, projectId: number, regionId: number, id: string, body: Static<typeof RouterUpdateBody>): Promise<Router> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const router = await this.ready(scope, id);
    const change = await this.change(scope, router, body);
    const now = this.ops.clock.now();
    await this.ops.transaction(scope, async (trx) => {
      const store = new ResourceStore(trx);
      if (change.attrs.gateway && !attrsOf<RouterAttrs>(router).gateway)
        await this.quotas.checkNow(trx, scope.clientId, { external_ip_count: 1 }, scope.regionId);
      const attrs = await applyGateway(store, router, change.attrs, () => gatewayPort(scope, id, now));
      await store.update(id, { name: change.name, attrs: JSON.stringify(attrs), updated_at: now });
    });
    return this.present(await this.records.row(scope, id));
  }

  /** v2: the same through the task update_router; no task when nothing would change. */
  async updateV2(caller: Caller, projectId: number, regionId: number, id: string, body: Static<typeof RouterUpdateBody>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const router = await this.ready(scope, id);
    const change = await this.change(scope, router, body);
    if (change.name === router.name && JSON.stringify(change.attrs) === router.attrs) return { tasks: [], id };
    return this.records.startTask(caller, scope, router, 'update_router', { router_id: id, name: change.name, attrs: change.attrs });
  }

  /** The name and attributes an update asks for (a new gateway's port is made when it is applied). */
  private async change(scope: Scope, router: ResourceRow, body: Static<typeof RouterUpdateBody>): Promise<{ name: string; attrs: RouterAttrs }> {
    const current = attrsOf<RouterAttrs>(router);
    const attrs: RouterAttrs = { ...current };
    if (body.external_gateway_info !== undefined) {
      const gateway = this.gateway(scope, body.external_gateway_info, 'update');
      attrs.gateway = gateway && { ...gateway, port_id: current.gateway?.port_id ?? '' };
    }
    if (body.routes !== undefined) attrs.routes = await this.routes(body.routes ?? [], await interfacesOf(this.ops.resources, router.id), ['routes']);
    return { name: body.name ?? router.name, attrs };
  }

  async delete(caller: Caller, projectId: number, regionId: number, id: string): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const router = await this.records.idleRow(scope, id);
    const interfaces = await interfacesOf(this.ops.resources, id);
    if (interfaces.length > 0)
      throw new AppError(
        'conflict',
        `Router ${id} is attached to subnet(s) ${interfaces.map((p) => attrsOf<PortAttrs>(p).subnet_id).join(', ')}; detach them first`,
      );
    return this.records.startTask(caller, scope, router, 'delete_router', { router_id: id, status: router.status }, { status: 'DELETING' });
  }

  /** A router whose create task finished and that no task works on. */
  private async ready(scope: Scope, id: string): Promise<ResourceRow> {
    const router = await this.records.idleRow(scope, id);
    if (!router.ready) throw new AppError('conflict', `Router ${id} is not ready yet`);
    return router;
  }

  async present(row: ResourceRow): Promise<Router> {
    const a = attrsOf<RouterAttrs>(row);
    const interfaces = await interfacesOf(this.ops.resources, row.id);
    const gateway = a.gateway?.port_id ? await this.ops.resources.byId(a.gateway.port_id) : undefined;
    const assignment = (p: ResourceRow) => ({ ip_address: attrsOf<PortAttrs>(p).ip_address, subnet_id: attrsOf<PortAttrs>(p).subnet_id });
    return {
      id: row.id,
      name: row.name,
      status: row.status,
      distributed: false,
      interfaces: interfaces.map((p) => ({ port_id: p.id, network_id: p.parent_id!, mac_address: macAddress(p.id), ip_assignments: [assignment(p)] })),
      external_gateway_info: a.gateway && {
        network_id: a.gateway.network_id,
        enable_snat: a.gateway.enable_snat,
        external_fixed_ips: gateway ? [assignment(gateway)] : [],
      },
      routes: a.routes,
      project_id: Number(row.project_id),
      region_id: Number(row.region_id),
      region: this.ops.regions.name(Number(row.region_id)),
      creator_task_id: row.creator_task_id,
      task_id: row.task_id,
      created_at: zonedTime(row.created_at),
      updated_at: zonedTime(row.updated_at),
    };
  }
}

/**
 * Writes a gateway change: a new gateway gets its port (ready at once), a removed one loses it. Answers the
 * attributes with the gateway's port ID. For updates applied at once and by their task alike.
 */
export async function applyGateway(store: ResourceStore, router: ResourceRow, next: RouterAttrs, makePort: () => ResourceRow): Promise<RouterAttrs> {
  const current = attrsOf<RouterAttrs>(router).gateway;
  if (!next.gateway) {
    if (current) await store.delete(current.port_id);
    return next;
  }
  if (current) return { ...next, gateway: { ...next.gateway, port_id: current.port_id } };
  const port = makePort();
  await store.insert({ ...port, ready: 1, creator_task_id: null, task_id: null });
  return { ...next, gateway: { ...next.gateway, port_id: port.id } };
}

/** The port that holds a gateway's address on the public network. */
export function gatewayPort(scope: Scope, routerId: string, now: number): ResourceRow {
  const attrs: PortAttrs = {
    subnet_id: publicSubnetId(scope.regionId),
    subnet_name: 'external',
    network_name: 'external',
    ip_address: publicAddress(now, 0),
    external: true,
    interface_name: null,
    security_group_ids: [],
    port_security_enabled: false,
  };
  return newRow(scope, 'port', randomUUID(), `router-gw-${routerId.slice(0, 8)}`, 'ACTIVE', '', attrs, now, { owner_id: routerId });
}
