// Subnets: created on a network whose create task has finished; a subnet with ports in use cannot
// be deleted; CIDRs of one network may not overlap.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError } from '../../../platform/errors.js';
import { badInput, bodyField } from '../../common/errors.js';
import { pageOf, tagMatcher } from '../../common/filters.js';
import { patchTags, tagList, zonedTime } from '../../common/format.js';
import { parseNetwork } from '../../common/ip.js';
import type { Operations } from '../../common/operations.js';
import type { Caller } from '../../../platform/auth/caller.js';
import { RegionalRecords } from '../../common/regional-records.js';
import { attrsOf, newRow, ResourceStore, type ResourceRow } from '../../common/resource-store.js';
import { portUsers, type NetworkService } from '../service.js';
import { hostCount, overlaps, parseCidr, ipAt } from './cidr.js';
import type { SubnetCreateBody, SubnetListQuery, SubnetSchema, SubnetUpdateBody } from './schemas.js';

type Subnet = Static<typeof SubnetSchema>;

export interface SubnetAttrs {
  cidr: string;
  ip_version: number;
  enable_dhcp: boolean;
  gateway_ip: string | null;
  dns_nameservers: string[] | null;
  host_routes: { destination: string; nexthop: string | null }[] | null;
  has_router: boolean;
  tags: Record<string, string>;
}

export class SubnetService {
  private readonly records: RegionalRecords;

  constructor(
    private readonly ops: Operations,
    private readonly networks: NetworkService,
  ) {
    this.records = new RegionalRecords(ops, 'subnet', 'Subnet');
  }

  async create(caller: Caller, projectId: number, regionId: number, body: Static<typeof SubnetCreateBody>) {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const cidr = parseCidr(body.cidr);
    if (body.ip_version !== 4 || !cidr) throw badInput([bodyField(['cidr'], 'must be an aligned IPv4 network in CIDR form, from /8 to /30')]);
    const routes = hostRoutes(body.host_routes);
    await this.networks.usable(scope, body.network_id);
    for (const other of await this.ops.resources.children(body.network_id, 'subnet')) {
      const otherCidr = parseCidr(attrsOf<SubnetAttrs>(other).cidr);
      if (otherCidr && overlaps(cidr, otherCidr))
        throw new AppError('conflict', `CIDR ${body.cidr} overlaps subnet ${other.id} (${attrsOf<SubnetAttrs>(other).cidr}) of network ${body.network_id}`);
    }
    const id = randomUUID();
    const attrs: SubnetAttrs = {
      cidr: body.cidr,
      ip_version: 4,
      enable_dhcp: body.enable_dhcp,
      gateway_ip: body.gateway_ip === null ? null : (body.gateway_ip ?? ipAt(cidr, 1)),
      dns_nameservers: body.dns_nameservers ?? [],
      host_routes: routes ?? [],
      has_router: body.connect_to_network_router,
      tags: body.tags ?? {},
    };
    const task = await this.ops.submit(caller, scope, 'create_subnet', { subnet_id: id }, async (trx, taskId) => {
      await new ResourceStore(trx).insert(
        newRow(scope, 'subnet', id, body.name, 'creating', taskId, attrs, this.ops.clock.now(), { parent_id: body.network_id }),
      );
    });
    return { tasks: [task], id };
  }

  async list(caller: Caller, projectId: number, regionId: number, query: Static<typeof SubnetListQuery>) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const tags = tagMatcher(query);
    const rows = (await this.ops.resources.all('subnet', scope)).filter(
      (r) => (query.network_id === undefined || r.parent_id === query.network_id) && tags(attrsOf<SubnetAttrs>(r).tags),
    );
    const subnets = await Promise.all(rows.map((r) => this.present(r)));
    const [field, dir] = (query.order_by ?? 'created_at.asc').split('.') as [keyof Subnet, string];
    const sign = dir === 'desc' ? -1 : 1;
    subnets.sort((a, b) => compare(a[field], b[field]) * sign || a.id.localeCompare(b.id));
    return pageOf(subnets, query);
  }

  async get(caller: Caller, projectId: number, regionId: number, id: string): Promise<Subnet> {
    return this.records.get(caller, projectId, regionId, id, (r) => this.present(r));
  }

  async update(caller: Caller, projectId: number, regionId: number, id: string, body: Static<typeof SubnetUpdateBody>): Promise<Subnet> {
    return this.records.updateAttrs<SubnetAttrs, Subnet>(
      caller,
      projectId,
      regionId,
      id,
      body.name,
      (attrs) => {
        if (body.enable_dhcp !== undefined) attrs.enable_dhcp = body.enable_dhcp;
        if (body.gateway_ip !== undefined) attrs.gateway_ip = body.gateway_ip;
        if (body.dns_nameservers !== undefined) attrs.dns_nameservers = body.dns_nameservers ?? [];
        if (body.host_routes !== undefined) attrs.host_routes = hostRoutes(body.host_routes) ?? [];
        attrs.tags = patchTags(attrs.tags, body.tags);
      },
      (r) => this.present(r),
    );
  }

  async delete(caller: Caller, projectId: number, regionId: number, id: string) {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const row = await this.records.idleRow(scope, id);
    const inUse = (await this.ops.resources.children(row.parent_id!, 'port')).filter((p) => attrsOf<{ subnet_id: string }>(p).subnet_id === id);
    if (inUse.length > 0)
      throw new AppError('conflict', `Subnet ${id} has ${inUse.length} port(s) in use (${await portUsers(this.ops.resources, inUse)}); delete them first`);
    return this.records.startTask(caller, scope, row, 'delete_subnet', { subnet_id: id }, { status: 'deleting' });
  }

  async present(row: ResourceRow): Promise<Subnet> {
    const attrs = attrsOf<SubnetAttrs>(row);
    const total = hostCount(parseCidr(attrs.cidr)!);
    const used = (await this.ops.resources.children(row.parent_id!, 'port')).filter((p) => attrsOf<{ subnet_id: string }>(p).subnet_id === row.id).length;
    return {
      id: row.id,
      name: row.name,
      network_id: row.parent_id!,
      cidr: attrs.cidr,
      ip_version: 4,
      enable_dhcp: attrs.enable_dhcp,
      gateway_ip: attrs.gateway_ip,
      dns_nameservers: attrs.dns_nameservers,
      host_routes: attrs.host_routes,
      has_router: attrs.has_router,
      total_ips: total,
      available_ips: total - used,
      tags: tagList(attrs.tags),
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

/** Host routes in canonical form: IPv4 destinations in CIDR form, IPv4 next hops. */
function hostRoutes(routes: { destination: string; nexthop: string | null }[] | null | undefined): SubnetAttrs['host_routes'] | undefined {
  if (!routes) return routes === null ? [] : undefined;
  return routes.map((route, i) => {
    const destination = parseNetwork(route.destination);
    if (!destination || destination.family !== 4) throw badInput([bodyField(['host_routes', i, 'destination'], 'must be an IPv4 network in CIDR form')]);
    if (route.nexthop !== null && (route.nexthop.includes('/') || parseNetwork(route.nexthop)?.family !== 4))
      throw badInput([bodyField(['host_routes', i, 'nexthop'], 'must be an IPv4 address')]);
    return { destination: destination.text, nexthop: route.nexthop };
  });
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a ?? '').localeCompare(String(b ?? ''));
}
