// Load balancers and what they hold as the API shows them. Operating statuses are derived here, from the
// provisioning statuses, the admin states and the members' health: with a health monitor, a member is
// ONLINE while an ACTIVE instance holds its address, ERROR otherwise; without one, NO_MONITOR. A pool all
// of whose checked members fail is in ERROR, one with some failing is DEGRADED, and so is its listener and
// balancer.
import { Static } from 'typebox';
import { tagList, zonedTime } from '../common/format.js';
import type { Operations } from '../common/operations.js';
import { attrsOf, type ResourceRow, type Scope } from '../common/resource-store.js';
import type { FloatingIpService } from '../floating-ips/service.js';
import type { PortAttrs } from '../instances/builder.js';
import { reading } from '../instances/metrics.js';
import type { OperatingStatus, ProvisioningStatus } from './enums.js';
import { lbFlavor } from './flavors.js';
import type { ListenerSchema, StatsSchema } from './listener-schemas.js';
import type { MemberSchema, MonitorSchema, PoolListItem, PoolSchema } from './pool-schemas.js';
import type { LbAttrs, ListenerAttrs, MemberAttrs, MonitorAttrs, PoolAttrs } from './records.js';
import type { LoadBalancerSchema, LoadBalancerStatusSchema } from './schemas.js';

export type LoadBalancer = Static<typeof LoadBalancerSchema>;
type Listener = Static<typeof ListenerSchema>;
type Pool = Static<typeof PoolSchema>;
type Member = Static<typeof MemberSchema>;
type Monitor = Static<typeof MonitorSchema>;
type Stats = Static<typeof StatsSchema>;

/** Which addresses answer: `<subnet>/<address>` -> the ACTIVE instances holding it. Built once per read. */
export type Liveness = Map<string, Set<string>>;

/** A pool with its members and monitor. */
interface PoolTree {
  row: ResourceRow;
  members: ResourceRow[];
  monitor: ResourceRow | undefined;
}

const provisioning = (row: ResourceRow) => row.status as ProvisioningStatus;
const placed = (ops: Operations, row: ResourceRow) => ({
  project_id: Number(row.project_id),
  region_id: Number(row.region_id),
  region: ops.regions.name(Number(row.region_id)),
});

export class LbPresenter {
  constructor(
    private readonly ops: Operations,
    private readonly floatingIps: FloatingIpService,
  ) {}

  async liveness(scope: Scope): Promise<Liveness> {
    const running = new Set((await this.ops.resources.all('instance', scope)).filter((i) => i.status === 'ACTIVE').map((i) => i.id));
    const live: Liveness = new Map();
    for (const port of await this.ops.resources.all('port', scope)) {
      if (!port.ready || !port.owner_id || !running.has(port.owner_id)) continue;
      const a = attrsOf<PortAttrs>(port);
      const key = `${a.subnet_id}/${a.ip_address}`;
      if (!live.has(key)) live.set(key, new Set());
      live.get(key)!.add(port.owner_id);
    }
    return live;
  }

  async poolTree(pool: ResourceRow): Promise<PoolTree> {
    const children = await this.ops.resources.children(pool.id);
    return { row: pool, members: children.filter((c) => c.kind === 'lb_member'), monitor: children.find((c) => c.kind === 'lb_healthmonitor') };
  }

  memberStatus(member: ResourceRow, tree: PoolTree, live: Liveness): OperatingStatus {
    const a = attrsOf<MemberAttrs>(member);
    if (provisioning(member) === 'PENDING_CREATE' || !a.admin_state_up) return 'OFFLINE';
    if (!tree.monitor || !attrsOf<MonitorAttrs>(tree.monitor).admin_state_up) return 'NO_MONITOR';
    const holders = live.get(`${a.subnet_id}/${a.address}`);
    return holders && (!a.instance_id || holders.has(a.instance_id)) ? 'ONLINE' : 'ERROR';
  }

  poolStatus(tree: PoolTree, live: Liveness): OperatingStatus {
    if (provisioning(tree.row) === 'PENDING_CREATE' || !attrsOf<PoolAttrs>(tree.row).admin_state_up) return 'OFFLINE';
    const checked = tree.members.map((m) => this.memberStatus(m, tree, live)).filter((s) => s === 'ONLINE' || s === 'ERROR');
    const failing = checked.filter((s) => s === 'ERROR').length;
    if (failing === 0) return 'ONLINE';
    return failing === checked.length ? 'ERROR' : 'DEGRADED';
  }

  listenerStatus(listener: ResourceRow, pools: PoolTree[], live: Liveness): OperatingStatus {
    if (provisioning(listener) === 'PENDING_CREATE' || !attrsOf<ListenerAttrs>(listener).admin_state_up) return 'OFFLINE';
    const own = pools.filter((p) => p.row.owner_id === listener.id).map((p) => this.poolStatus(p, live));
    return own.some((s) => s === 'ERROR' || s === 'DEGRADED') ? 'DEGRADED' : 'ONLINE';
  }

  lbStatus(lb: ResourceRow, listeners: ResourceRow[], pools: PoolTree[], live: Liveness): OperatingStatus {
    if (provisioning(lb) === 'PENDING_CREATE' || !attrsOf<LbAttrs>(lb).admin_state_up) return 'OFFLINE';
    const degraded = listeners.some(
      (l) => this.listenerStatus(l, pools, live) !== 'ONLINE' && provisioning(l) !== 'PENDING_CREATE' && attrsOf<ListenerAttrs>(l).admin_state_up,
    );
    return degraded || pools.some((p) => ['ERROR', 'DEGRADED'].includes(this.poolStatus(p, live))) ? 'DEGRADED' : 'ONLINE';
  }

  async loadBalancer(lb: ResourceRow, live: Liveness, showStats = false): Promise<LoadBalancer> {
    const a = attrsOf<LbAttrs>(lb);
    const [listeners, poolRows, fips] = await Promise.all([
      this.ops.resources.children(lb.id, 'lb_listener'),
      this.ops.resources.children(lb.id, 'lb_pool'),
      a.vip_port_id ? this.ops.resources.children(a.vip_port_id, 'floatingip') : Promise.resolve([]),
    ]);
    const pools = await Promise.all(poolRows.map((p) => this.poolTree(p)));
    const flavor = lbFlavor(a.flavor_id) ?? null;
    return {
      id: lb.id,
      name: lb.name,
      flavor: flavor && { flavor_id: flavor.flavor_id, flavor_name: flavor.flavor_name, vcpus: flavor.vcpus, ram: flavor.ram },
      vip_address: a.vip_address,
      vip_port_id: a.vip_port_id,
      vip_ip_family: 'ipv4',
      additional_vips: [],
      floating_ips: await Promise.all(fips.filter((f) => f.ready).map((f) => this.floatingIps.present(f))),
      listeners: listeners.map((l) => ({ id: l.id })),
      admin_state_up: a.admin_state_up,
      provisioning_status: provisioning(lb),
      operating_status: this.lbStatus(lb, listeners, pools, live),
      preferred_connectivity: a.preferred_connectivity,
      logging: a.logging,
      stats: showStats ? stats(lb, this.ops.clock.now()) : null,
      ddos_profile: null,
      tags_v2: tagList(a.tags),
      ...placed(this.ops, lb),
      creator_task_id: lb.creator_task_id,
      task_id: lb.task_id,
      created_at: zonedTime(lb.created_at),
      updated_at: zonedTime(lb.updated_at),
    };
  }

  async listener(row: ResourceRow, live: Liveness, showStats = false): Promise<Listener> {
    const a = attrsOf<ListenerAttrs>(row);
    const pools = await Promise.all((await this.ops.resources.attachedTo(row.id, 'lb_pool')).map((p) => this.poolTree(p)));
    const forwarded: Record<string, string> = a.insert_x_forwarded
      ? { 'X-Forwarded-For': 'True', 'X-Forwarded-Port': 'True', 'X-Forwarded-Proto': 'True' }
      : {};
    return {
      id: row.id,
      name: row.name,
      load_balancer_id: row.parent_id,
      protocol: a.protocol,
      protocol_port: a.protocol_port,
      admin_state_up: a.admin_state_up,
      allowed_cidrs: a.allowed_cidrs,
      connection_limit: a.connection_limit,
      insert_headers: forwarded,
      pool_count: pools.length,
      secret_id: a.secret_id,
      sni_secret_id: a.sni_secret_id,
      timeout_client_data: a.timeout_client_data,
      timeout_member_connect: a.timeout_member_connect,
      timeout_member_data: a.timeout_member_data,
      user_list: a.user_list,
      stats: showStats ? stats(row, this.ops.clock.now()) : null,
      provisioning_status: provisioning(row),
      operating_status: this.listenerStatus(row, pools, live),
      creator_task_id: row.creator_task_id,
      task_id: row.task_id,
    };
  }

  async pool(row: ResourceRow, live: Liveness): Promise<Pool>;
  async pool(row: ResourceRow, live: Liveness, detailed: false): Promise<Static<typeof PoolListItem>>;
  async pool(row: ResourceRow, live: Liveness, detailed = true): Promise<Pool | Static<typeof PoolListItem>> {
    const tree = await this.poolTree(row);
    const a = attrsOf<PoolAttrs>(row);
    const sp = a.session_persistence;
    return {
      id: row.id,
      name: row.name,
      protocol: a.protocol,
      lb_algorithm: a.lb_algorithm as Pool['lb_algorithm'],
      admin_state_up: a.admin_state_up,
      listeners: row.owner_id ? [{ id: row.owner_id }] : [],
      loadbalancers: [{ id: row.parent_id! }],
      healthmonitor: tree.monitor ? this.monitor(tree.monitor) : null,
      members: tree.members.map((m) => (detailed ? this.member(m, tree, live) : { id: m.id })),
      session_persistence: sp && {
        type: sp.type,
        cookie_name: sp.cookie_name ?? null,
        persistence_granularity: sp.persistence_granularity ?? null,
        persistence_timeout: sp.persistence_timeout ?? null,
      },
      timeout_client_data: a.timeout_client_data,
      timeout_member_connect: a.timeout_member_connect,
      timeout_member_data: a.timeout_member_data,
      secret_id: a.secret_id,
      ca_secret_id: a.ca_secret_id,
      crl_secret_id: a.crl_secret_id,
      provisioning_status: provisioning(row),
      operating_status: this.poolStatus(tree, live),
      creator_task_id: row.creator_task_id,
      task_id: row.task_id,
    } as Pool;
  }

  member(row: ResourceRow, tree: PoolTree, live: Liveness): Member {
    const a = attrsOf<MemberAttrs>(row);
    return {
      id: row.id,
      address: a.address,
      protocol_port: a.protocol_port,
      subnet_id: a.subnet_id,
      weight: a.weight,
      admin_state_up: a.admin_state_up,
      backup: a.backup,
      monitor_address: a.monitor_address,
      monitor_port: a.monitor_port,
      provisioning_status: provisioning(row),
      operating_status: this.memberStatus(row, tree, live),
    };
  }

  monitor(row: ResourceRow): Monitor {
    const a = attrsOf<MonitorAttrs>(row);
    return {
      id: row.id,
      type: a.type,
      delay: a.delay,
      timeout: a.timeout,
      max_retries: a.max_retries,
      max_retries_down: a.max_retries_down,
      admin_state_up: a.admin_state_up,
      domain_name: a.domain_name,
      expected_codes: a.expected_codes,
      http_method: a.http_method as Monitor['http_method'],
      http_version: a.http_version as Monitor['http_version'],
      url_path: a.url_path,
      provisioning_status: provisioning(row),
      operating_status: provisioning(row) === 'ACTIVE' && a.admin_state_up ? 'ONLINE' : 'OFFLINE',
    };
  }

  /** The status tree of a balancer: it, its listeners, their pools, members and monitors. */
  async status(lb: ResourceRow, live: Liveness): Promise<Static<typeof LoadBalancerStatusSchema>> {
    const listeners = await this.ops.resources.children(lb.id, 'lb_listener');
    const pools = await Promise.all((await this.ops.resources.children(lb.id, 'lb_pool')).map((p) => this.poolTree(p)));
    const ids = (row: ResourceRow) => ({ id: row.id, provisioning_status: provisioning(row) });
    return {
      ...ids(lb),
      name: lb.name,
      operating_status: this.lbStatus(lb, listeners, pools, live),
      tags: tagList(attrsOf<LbAttrs>(lb).tags),
      listeners: listeners.map((l) => ({
        ...ids(l),
        name: l.name,
        operating_status: this.listenerStatus(l, pools, live),
        pools: pools
          .filter((p) => p.row.owner_id === l.id)
          .map((p) => ({
            ...ids(p.row),
            name: p.row.name,
            operating_status: this.poolStatus(p, live),
            members: p.members.map((m) => ({
              ...ids(m),
              address: attrsOf<MemberAttrs>(m).address,
              protocol_port: attrsOf<MemberAttrs>(m).protocol_port,
              operating_status: this.memberStatus(m, p, live),
            })),
            health_monitor: p.monitor
              ? { ...ids(p.monitor), type: attrsOf<MonitorAttrs>(p.monitor).type, operating_status: this.monitor(p.monitor).operating_status }
              : null,
          })),
      })),
    };
  }
}

/**
 * Traffic counters, simulated: connections at a rate of the object's own since it was made, bytes and
 * errors in proportion (the same object at the same time always shows the same figures).
 */
export function stats(row: ResourceRow, now: number): Stats {
  const seconds = Math.max(0, Math.floor((now - Number(row.created_at)) / 1000));
  const total = Math.floor(seconds * reading(`${row.id}/rate`, 0.5, 20));
  return {
    total_connections: total,
    active_connections: Math.min(total, Math.floor(reading(`${row.id}/active/${Math.floor(now / 60_000)}`, 0, 200))),
    bytes_in: Math.floor(total * reading(`${row.id}/in`, 2e3, 6e4)),
    bytes_out: Math.floor(total * reading(`${row.id}/out`, 1e4, 4e5)),
    request_errors: Math.floor(total * reading(`${row.id}/errors`, 0, 0.01)),
  };
}
