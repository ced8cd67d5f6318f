// Ports, read: every port of a project in a region (instance interfaces, balancers' VIPs, reserved fixed
// IPs). An instance port shared a VIP reserved fixed IP shows the VIP's address as an allowed pair.
import { Static } from 'typebox';
import { notFound } from '../../platform/errors.js';
import { pageOf } from '../common/filters.js';
import { zonedTime } from '../common/format.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import { attrsOf, type ResourceRow, type Scope } from '../common/resource-store.js';
import type { PortAttrs } from '../instances/builder.js';
import { macAddress } from '../instances/interfaces.js';
import { publicNetworkId } from '../instances/public-network.js';
import type { PortListQuery, PortSchema } from './schemas.js';

type Port = Static<typeof PortSchema>;

interface Context {
  pairs: Map<string, string[]>;
  system: Set<string>;
}

export class PortService {
  constructor(private readonly ops: Operations) {}

  async list(caller: Caller, projectId: number, regionId: number, query: Static<typeof PortListQuery>) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const rows = await this.ops.resources.all('port', scope);
    const context = await this.context(scope, rows);
    const has = <T>(list: T[] | undefined, value: T) => list === undefined || list.includes(value);
    const ports = rows
      .filter((r) => r.ready)
      .map((r) => this.present(r, context))
      .filter(
        (p) =>
          has(query.ids, p.id) &&
          has(query.network_ids, p.network_id) &&
          (query.ip_addresses === undefined || p.ip_assignments.some((a) => query.ip_addresses!.includes(a.ip_address))) &&
          (query.subnet_ids === undefined || p.ip_assignments.some((a) => query.subnet_ids!.includes(a.subnet_id))),
      );
    const [field, dir] = (query.order_by ?? 'created_at.asc').split('.') as ['created_at' | 'network_id', string];
    ports.sort((a, b) => a[field].localeCompare(b[field]) * (dir === 'desc' ? -1 : 1) || a.id.localeCompare(b.id));
    return pageOf(ports, query);
  }

  async get(caller: Caller, projectId: number, regionId: number, id: string): Promise<Port> {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const rows = await this.ops.resources.all('port', scope);
    const row = rows.find((r) => r.id === id && r.ready);
    if (!row) throw notFound(`Port ${id}`);
    return this.present(row, await this.context(scope, rows));
  }

  /** What presenting ports needs beyond each row: the VIP pairs, and which owners are the system's (balancers, routers). */
  private async context(scope: Scope, rows: ResourceRow[]): Promise<Context> {
    const system = [...(await this.ops.resources.all('loadbalancer', scope)), ...(await this.ops.resources.all('router', scope))];
    return { pairs: vipPairs(rows), system: new Set(system.map((r) => r.id)) };
  }

  private present(row: ResourceRow, { pairs, system }: Context): Port {
    const a = attrsOf<PortAttrs>(row);
    return {
      id: row.id,
      network_id: row.parent_id ?? publicNetworkId(Number(row.region_id)),
      mac_address: macAddress(row.id),
      ip_assignments: a.ip_address ? [{ ip_address: a.ip_address, subnet_id: a.subnet_id }] : [],
      allowed_address_pairs: (pairs.get(row.id) ?? []).map((ip_address) => ({ ip_address })),
      port_security_enabled: a.port_security_enabled ?? true,
      security_group_ids: a.security_group_ids ?? [],
      managed_by: row.owner_id && system.has(row.owner_id) ? 'system' : 'user',
      capabilities: { allowed_address_pairs: true, port_security: true, security_groups: true },
      tags: {},
      system_tags: a.reserved ? { reserved: 'true' } : {},
      created_at: zonedTime(row.created_at),
      updated_at: zonedTime(row.updated_at),
    };
  }
}

/** Port ID -> the addresses of the VIP reserved fixed IPs it is connected to. */
function vipPairs(rows: ResourceRow[]): Map<string, string[]> {
  const pairs = new Map<string, string[]>();
  for (const row of rows) {
    const a = attrsOf<PortAttrs>(row);
    if (!a.is_vip) continue;
    for (const port of a.connected ?? []) pairs.set(port, [...(pairs.get(port) ?? []), a.ip_address]);
  }
  return pairs;
}
