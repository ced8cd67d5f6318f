// Load balancers: created through a task with their VIP, floating IP and (optionally) listeners, pools,
// members and monitors; renamed and retagged at once (v1) or through a task (v2); failed over, resized
// and deleted (with everything below them) through tasks. Lists, status trees and metrics are reads.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError, notFound } from '../../platform/errors.js';
import { badInput, bodyField } from '../common/errors.js';
import { pageOf, tagMatcher } from '../common/filters.js';
import { patchTags } from '../common/format.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import type { TaskIds } from '../common/regional-records.js';
import { attrsOf, newRow, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import type { FloatingIpService } from '../floating-ips/service.js';
import { METRICS_LIMITS, usagePoints } from '../instances/metrics.js';
import type { QuotaService } from '../quotas/service.js';
import { Balancers } from './balancers.js';
import type { LbBuilder } from './builder.js';
import { DEFAULT_LB_FLAVOR, LB_FLAVORS, lbFlavor, lbFlavorPrice } from './flavors.js';
import type { LbPlacement, Vip } from './placement.js';
import type { LbPresenter, LoadBalancer } from './present.js';
import type { LbAttrs, Logging } from './records.js';
import type { CheckLimitsBody, LoadBalancerCreateBody, LoadBalancerListQuery, LoadBalancerUpdateBody, LoadBalancerUpdateV2Body } from './schemas.js';

type Body = Static<typeof LoadBalancerCreateBody>;

/** The floating IP a create gives the VIP: a new row, or an unassigned one the caller has. */
interface FloatingPlan {
  row: ResourceRow | null;
  existingId: string | null;
}

export class LoadBalancerService {
  constructor(
    private readonly ops: Operations,
    private readonly balancers: Balancers,
    private readonly placement: LbPlacement,
    private readonly builder: LbBuilder,
    private readonly presenter: LbPresenter,
    private readonly floatingIps: FloatingIpService,
    private readonly quotas: QuotaService,
  ) {}

  async flavors(caller: Caller, projectId: number, regionId: number, query: { include_prices?: boolean; limit: number; offset: number }) {
    await this.ops.readable(caller, projectId, regionId);
    const priced = (f: (typeof LB_FLAVORS)[number]) =>
      query.include_prices ? { ...f, currency_code: 'EUR', ...lbFlavorPrice(f), price_status: 'show' as const } : f;
    return pageOf(LB_FLAVORS.map(priced), query);
  }

  async create(caller: Caller, projectId: number, regionId: number, body: Body): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const flavor = lbFlavor(body.flavor ?? DEFAULT_LB_FLAVOR.flavor_id);
    if (!flavor) throw badInput([bodyField(['flavor'], `unknown load balancer flavor ${body.flavor}; see GET /cloud/v1/lbflavors`)]);
    const logging = this.logging(body.logging, ['logging']);
    const id = randomUUID();
    const now = this.ops.clock.now();
    const vip = await this.placement.vip(scope, body, id, now);
    const floating = await this.floating(scope, body.floating_ip, vip, id, now);
    const connectivity = body.preferred_connectivity ?? 'L2';
    const children = await this.builder.listeners(scope, { lbId: id, vipNetworkId: vip.networkId, connectivity }, body.listeners ?? [], now + 1);
    const attrs: LbAttrs = {
      flavor_id: flavor.flavor_id,
      vip_address: attrsOf<{ ip_address: string }>(vip.port).ip_address,
      vip_port_id: vip.port.id,
      vip_network_id: vip.networkId,
      vip_subnet_id: vip.subnetId,
      vip_reserved: vip.reserved,
      admin_state_up: true,
      preferred_connectivity: connectivity,
      logging,
      tags: body.tags ?? {},
    };
    const data = { load_balancer_id: id, floatingip_id: floating.existingId, reserved_port_id: vip.reserved ? vip.port.id : null };
    const task = await this.ops.submit(caller, scope, 'create_loadbalancer', data, async (trx, taskId) => {
      const store = new ResourceStore(trx);
      await store.insert(newRow(scope, 'loadbalancer', id, body.name, 'PENDING_CREATE', taskId, attrs, now));
      if (vip.reserved) await store.update(vip.port.id, { owner_id: id, task_id: taskId, updated_at: now });
      await Balancers.insertHeld(store, [...(vip.reserved ? [] : [vip.port]), ...children, ...(floating.row ? [floating.row] : [])], taskId);
      if (floating.existingId) await store.update(floating.existingId, { task_id: taskId });
    });
    return { tasks: [task], id };
  }

  /** Logging settings: the destination must be a region. */
  private logging(input: Body['logging'], at: string[]): Logging | null {
    if (!input) return null;
    const region = input.destination_region_id ?? null;
    if (region !== null && !this.ops.regions.ids().includes(region))
      throw badInput([bodyField([...at, 'destination_region_id'], `there is no region ${region}`)]);
    return { enabled: input.enabled, destination_region_id: region, topic_name: input.topic_name ?? null, retention_policy: input.retention_policy ?? null };
  }

  private async floating(scope: Scope, input: Body['floating_ip'], vip: Vip, lbId: string, now: number): Promise<FloatingPlan> {
    if (!input) return { row: null, existingId: null };
    if (input.source === 'new') {
      const address = this.floatingIps.newAddress(now);
      return {
        row: newRow(scope, 'floatingip', randomUUID(), address, 'ACTIVE', '', { address, tags: {} }, now, { parent_id: vip.port.id, owner_id: lbId }),
        existingId: null,
      };
    }
    const fip = await this.ops.resources.get('floatingip', scope, input.existing_floating_id);
    if (!fip || !fip.ready)
      throw badInput([
        bodyField(
          ['floating_ip', 'existing_floating_id'],
          `floating IP ${input.existing_floating_id} does not exist in project ${scope.projectId}, region ${scope.regionId}`,
        ),
      ]);
    if (fip.owner_id || fip.task_id) throw new AppError('conflict', `Floating IP ${fip.id} is already assigned (or busy); unassign it first`);
    return { row: null, existingId: fip.id };
  }

  /** What a new balancer of this shape would exceed: itself, a new floating IP, a public VIP. */
  async checkLimits(caller: Caller, projectId: number, regionId: number, body: Static<typeof CheckLimitsBody>): Promise<Record<string, number>> {
    await this.ops.place(caller, projectId, regionId, 'network');
    const publicVip = !body.vip_network_id && !body.vip_port_id;
    return this.quotas.exceeded(caller.clientId, regionId, {
      loadbalancer_count: 1,
      floating_count: body.floating_ip?.source === 'new' ? 1 : 0,
      external_ip_count: publicVip ? 1 : 0,
    });
  }

  async list(caller: Caller, projectId: number, regionId: number, query: Static<typeof LoadBalancerListQuery>) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const tags = tagMatcher(query);
    const live = await this.presenter.liveness(scope);
    const rows = (await this.ops.resources.all('loadbalancer', scope)).filter((r) => {
      const a = attrsOf<LbAttrs>(r);
      return (
        (query.name === undefined || r.name === query.name) &&
        (query.provisioning_status === undefined || r.status === query.provisioning_status) &&
        (query.logging_enabled === undefined || (a.logging?.enabled ?? false) === query.logging_enabled) &&
        tags(a.tags)
      );
    });
    let balancers = await Promise.all(rows.map((r) => this.presenter.loadBalancer(r, live, query.show_stats)));
    balancers = balancers.filter(
      (b) =>
        (query.operating_status === undefined || b.operating_status === query.operating_status) &&
        (query.assigned_floating === undefined || b.floating_ips.length > 0 === query.assigned_floating),
    );
    sortBalancers(balancers, query.order_by ?? 'created_at.asc');
    return pageOf(balancers, query);
  }

  async get(caller: Caller, projectId: number, regionId: number, id: string, query: { show_stats?: boolean } = {}): Promise<LoadBalancer> {
    const scope = await this.ops.readable(caller, projectId, regionId);
    return this.presenter.loadBalancer(await this.balancers.records.row(scope, id), await this.presenter.liveness(scope), query.show_stats ?? false);
  }

  /** v1: name, tags, logging and connectivity, at once. */
  async update(caller: Caller, projectId: number, regionId: number, id: string, body: Static<typeof LoadBalancerUpdateBody>): Promise<LoadBalancer> {
    const logging = body.logging === undefined ? undefined : this.logging(body.logging, ['logging']);
    await this.balancers.records.updateAttrs<LbAttrs, unknown>(
      caller,
      projectId,
      regionId,
      id,
      body.name,
      (a) => {
        a.tags = patchTags(a.tags, body.tags);
        if (logging !== undefined) a.logging = logging;
        if (body.preferred_connectivity) a.preferred_connectivity = body.preferred_connectivity;
      },
      async () => null,
    );
    return this.get(caller, projectId, regionId, id);
  }

  /** v2: the same and the admin state, through the task update_loadbalancer; no task when nothing changes. */
  async updateV2(caller: Caller, projectId: number, regionId: number, id: string, body: Static<typeof LoadBalancerUpdateV2Body>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const lb = await this.balancers.forChange(scope, id);
    const a = attrsOf<LbAttrs>(lb);
    const next: LbAttrs = { ...a, tags: patchTags(a.tags, body.tags) };
    if (body.logging !== undefined) next.logging = this.logging(body.logging, ['logging']);
    if (body.preferred_connectivity) next.preferred_connectivity = body.preferred_connectivity;
    if (body.admin_state_up !== undefined) next.admin_state_up = body.admin_state_up;
    const name = body.name ?? lb.name;
    if (name === lb.name && JSON.stringify(next) === JSON.stringify(a)) return { tasks: [], id };
    return this.balancers.records.startTask(
      caller,
      scope,
      lb,
      'update_loadbalancer',
      { load_balancer_id: id, name, attrs: next },
      { status: 'PENDING_UPDATE' },
    );
  }

  /**
   * v2 tag calls, tasks: `merge` sets the tags given (update_lbmetadata), `replace` makes them the only ones
   * (replace_lbmetadata), `remove` takes one away (delete_lbmetadata; an absent key is a 404).
   */
  async retag(
    caller: Caller,
    projectId: number,
    regionId: number,
    id: string,
    change: { merge?: Record<string, string>; replace?: Record<string, string>; remove?: string },
  ): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const lb = await this.balancers.records.idleRow(scope, id);
    const tags = attrsOf<LbAttrs>(lb).tags;
    if (change.remove !== undefined && !(change.remove in tags)) throw notFound(`Tag ${change.remove} of load balancer ${id}`);
    const next = change.replace ?? (change.merge ? { ...tags, ...change.merge } : patchTags(tags, { [change.remove!]: null }));
    const type = change.replace ? 'replace_lbmetadata' : change.merge ? 'update_lbmetadata' : 'delete_lbmetadata';
    return this.balancers.records.startTask(caller, scope, lb, type, { load_balancer_id: id, tags: next });
  }

  async delete(caller: Caller, projectId: number, regionId: number, id: string): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const lb = await this.balancers.records.idleRow(scope, id);
    return this.balancers.records.startTask(
      caller,
      scope,
      lb,
      'delete_loadbalancer',
      { load_balancer_id: id, status: lb.status },
      { status: 'PENDING_DELETE' },
    );
  }

  /** Moves the VIP to the standby amphora. `force` also recovers a balancer in ERROR. */
  async failover(caller: Caller, projectId: number, regionId: number, id: string, force: boolean): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const lb = force ? await this.balancers.records.idleRow(scope, id) : await this.balancers.forChange(scope, id);
    if (force && lb.status !== 'ACTIVE' && lb.status !== 'ERROR')
      throw new AppError('conflict', `Load balancer ${id} is ${lb.status}; it can fail over while ACTIVE or ERROR`);
    return this.balancers.records.startTask(
      caller,
      scope,
      lb,
      'failover_loadbalancer',
      { load_balancer_id: id, status: lb.status },
      { status: 'PENDING_UPDATE' },
    );
  }

  async resize(caller: Caller, projectId: number, regionId: number, id: string, flavorId: string): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const lb = await this.balancers.forChange(scope, id);
    const flavor = lbFlavor(flavorId);
    if (!flavor) throw badInput([bodyField(['flavor'], `unknown load balancer flavor ${flavorId}; see GET /cloud/v1/lbflavors`)]);
    if (flavor.flavor_id === attrsOf<LbAttrs>(lb).flavor_id) throw badInput([bodyField(['flavor'], `load balancer ${id} has flavor ${flavorId} already`)]);
    return this.balancers.records.startTask(
      caller,
      scope,
      lb,
      'resize_loadbalancer',
      { load_balancer_id: id, flavor_id: flavor.flavor_id },
      { status: 'PENDING_UPDATE' },
    );
  }

  async statuses(caller: Caller, projectId: number, regionId: number) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const live = await this.presenter.liveness(scope);
    const results = await Promise.all((await this.ops.resources.all('loadbalancer', scope)).map((lb) => this.presenter.status(lb, live)));
    return { count: results.length, results };
  }

  async status(caller: Caller, projectId: number, regionId: number, id: string) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    return this.presenter.status(await this.balancers.records.row(scope, id), await this.presenter.liveness(scope));
  }

  /** Simulated usage of the balancer's amphora over the last hours or days (readings while it serves). */
  async metrics(caller: Caller, projectId: number, regionId: number, id: string, interval: number, unit: 'day' | 'hour') {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const lb = await this.balancers.records.row(scope, id);
    if (interval > METRICS_LIMITS[unit]) throw badInput([bodyField(['time_interval'], `at most ${METRICS_LIMITS[unit]} when time_unit is ${unit}`)]);
    const running = lb.status === 'ACTIVE' && attrsOf<LbAttrs>(lb).admin_state_up;
    const results = usagePoints({ id, created_at: Number(lb.created_at), running }, this.ops.clock.now(), interval, unit, () => ({}));
    return { count: results.length, results };
  }
}

/** Orders balancers by a presented field (`name.asc`), the ID breaking ties. */
function sortBalancers(balancers: LoadBalancer[], orderBy: string): void {
  const [field, dir] = orderBy.split('.');
  const sign = dir === 'desc' ? -1 : 1;
  const key = (b: LoadBalancer): string => (field === 'flavor' ? (b.flavor?.flavor_id ?? '') : String(b[field as keyof LoadBalancer] ?? ''));
  balancers.sort(
    (a, b) => (field === 'vip_address' ? compareAddresses(a.vip_address, b.vip_address) : key(a).localeCompare(key(b))) * sign || a.id.localeCompare(b.id),
  );
}

function compareAddresses(a: string | null, b: string | null): number {
  const n = (x: string | null) => (x ?? '').split('.').reduce((acc, o) => acc * 256 + Number(o || 0), 0);
  return n(a) - n(b);
}
