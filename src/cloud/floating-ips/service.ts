// Floating IPs: created and deleted through tasks; assigning to a port (an instance's, or a load
// balancer's VIP) and unassigning are immediate. The port must be the caller's, in the same project and
// region.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError } from '../../platform/errors.js';
import { badInput, bodyField } from '../common/errors.js';
import { pageOf, tagMatcher } from '../common/filters.js';
import { patchTags, tagList, zonedTime } from '../common/format.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import { RegionalRecords, type TaskIds } from '../common/regional-records.js';
import { attrsOf, newRow, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import type { PortAttrs } from '../instances/builder.js';
import type { FloatingIpCreateBody, FloatingIpListQuery, FloatingIpSchema, FloatingIpUpdateBody } from './schemas.js';

type FloatingIp = Static<typeof FloatingIpSchema>;

export interface FipAttrs {
  address: string;
  tags: Record<string, string>;
}

export class FloatingIpService {
  private counter = 0;

  private readonly records: RegionalRecords;
  /** Shows the instance a listed address is assigned to; set by the product once instances exist. */
  presentInstance: (row: ResourceRow) => Promise<unknown> = async () => null;
  /** Shows the load balancer a listed address is the VIP of; set by the product once balancers exist. */
  presentLoadBalancer: (row: ResourceRow) => Promise<unknown> = async () => null;

  constructor(private readonly ops: Operations) {
    this.records = new RegionalRecords(ops, 'floatingip', 'Floating IP');
  }

  async create(caller: Caller, projectId: number, regionId: number, body: Static<typeof FloatingIpCreateBody>) {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const port = body.port_id ? await this.port(scope, body.port_id) : undefined;
    const id = randomUUID();
    const now = this.ops.clock.now();
    const attrs: FipAttrs = { address: this.newAddress(now), tags: body.tags ?? {} };
    const task = await this.ops.submit(caller, scope, 'create_fip', { floatingip_id: id }, async (trx, taskId) => {
      await new ResourceStore(trx).insert(
        newRow(scope, 'floatingip', id, attrs.address, 'DOWN', taskId, attrs, now, port ? { parent_id: port.id, owner_id: port.owner_id } : {}),
      );
    });
    return { tasks: [task], id };
  }

  /** A public address for a new floating IP (from the documentation ranges, varied by time and a counter). */
  newAddress(now: number): string {
    this.counter = (this.counter + 1) % 60000;
    const n = (now + this.counter) % 65024;
    return `198.51.${100 + (Math.floor(n / 254) % 100)}.${(n % 254) + 1}`;
  }

  async list(caller: Caller, projectId: number, regionId: number, query: Static<typeof FloatingIpListQuery>) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const tags = tagMatcher(query);
    const rows = (await this.ops.resources.all('floatingip', scope)).filter(
      (r) =>
        (query.status === undefined || r.status === query.status) &&
        (query.port_ids === undefined || (r.parent_id !== null && query.port_ids.includes(r.parent_id))) &&
        tags(attrsOf<FipAttrs>(r).tags),
    );
    const page = pageOf(rows, query);
    // Listed floating IPs also carry the instance they are assigned to.
    const results = await Promise.all(
      page.results.map(async (r) => {
        const owner = r.owner_id ? await this.ops.resources.byId(r.owner_id) : undefined;
        const instance = owner?.kind === 'instance' ? summary((await this.presentInstance(owner)) as Record<string, unknown>) : null;
        return { ...(await this.present(r)), instance, loadbalancer: owner?.kind === 'loadbalancer' ? await this.presentLoadBalancer(owner) : null };
      }),
    );
    return { count: page.count, results };
  }

  async get(caller: Caller, projectId: number, regionId: number, id: string): Promise<FloatingIp> {
    return this.records.get(caller, projectId, regionId, id, (r) => this.present(r));
  }

  /** v1: tags only, at once. */
  async updateTags(
    caller: Caller,
    projectId: number,
    regionId: number,
    id: string,
    tags: Record<string, string | null> | null | undefined,
  ): Promise<FloatingIp> {
    return this.records.updateAttrs<FipAttrs, FloatingIp>(
      caller,
      projectId,
      regionId,
      id,
      undefined,
      (attrs) => {
        attrs.tags = patchTags(attrs.tags, tags);
      },
      (r) => this.present(r),
    );
  }

  /** v2: the port (null: unassign) and tags, through a task; no task when nothing would change. */
  async update(caller: Caller, projectId: number, regionId: number, id: string, body: Static<typeof FloatingIpUpdateBody>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const row = await this.records.idleRow(scope, id);
    const change: { floatingip_id: string; port_id?: string | null; owner_id?: string | null; tags?: Record<string, string> } = { floatingip_id: id };
    if (body.port_id !== undefined && body.port_id !== row.parent_id) {
      const port = body.port_id === null ? null : await this.port(scope, body.port_id);
      Object.assign(change, { port_id: port?.id ?? null, owner_id: port?.owner_id ?? null });
    }
    const portId = change.port_id !== undefined ? change.port_id : row.parent_id;
    if (body.fixed_ip_address) {
      const port = portId ? await this.ops.resources.byId(portId) : undefined;
      if (!port || attrsOf<PortAttrs>(port).ip_address !== body.fixed_ip_address)
        throw badInput([bodyField(['fixed_ip_address'], `${body.fixed_ip_address} is not the address of the port the floating IP is (to be) assigned to`)]);
    }
    const tags = patchTags(attrsOf<FipAttrs>(row).tags, body.tags);
    if (JSON.stringify(tags) !== JSON.stringify(attrsOf<FipAttrs>(row).tags)) change.tags = tags;
    if (Object.keys(change).length === 1) return { tasks: [], id };
    return this.records.startTask(caller, scope, row, 'update_floating_ip', change);
  }

  async delete(caller: Caller, projectId: number, regionId: number, id: string) {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const row = await this.records.idleRow(scope, id);
    return this.records.startTask(caller, scope, row, 'delete_fip', { floatingip_id: id });
  }

  async assign(caller: Caller, projectId: number, regionId: number, id: string, portId: string): Promise<FloatingIp> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const row = await this.records.row(scope, id);
    if (!row.ready || row.task_id) throw new AppError('conflict', `Floating IP ${id} is not ready; wait for its task to finish`);
    const port = await this.port(scope, portId);
    await this.ops.resources.update(id, { parent_id: port.id, owner_id: port.owner_id, status: 'ACTIVE', updated_at: this.ops.clock.now() });
    return this.present(await this.records.row(scope, id));
  }

  async unassign(caller: Caller, projectId: number, regionId: number, id: string): Promise<FloatingIp> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    await this.records.row(scope, id);
    await this.ops.resources.update(id, { parent_id: null, owner_id: null, status: 'DOWN', updated_at: this.ops.clock.now() });
    return this.present(await this.records.row(scope, id));
  }

  private async port(scope: Scope, portId: string): Promise<ResourceRow> {
    const port = await this.ops.resources.get('port', scope, portId);
    if (!port || !port.ready)
      throw badInput([bodyField(['port_id'], `port ${portId} is not an instance port of project ${scope.projectId}, region ${scope.regionId}`)]);
    return port;
  }

  async present(row: ResourceRow): Promise<FloatingIp> {
    const attrs = attrsOf<FipAttrs>(row);
    const port = row.parent_id ? await this.ops.resources.byId(row.parent_id) : undefined;
    return {
      id: row.id,
      floating_ip_address: attrs.address,
      fixed_ip_address: port ? attrsOf<PortAttrs>(port).ip_address : null,
      port_id: port?.id ?? null,
      router_id: null,
      status: row.status as FloatingIp['status'],
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

/** The fields of an instance a floating IP list shows: no fixed IPs, DDoS or isolation, a short flavor. */
function summary(instance: Record<string, unknown>): Record<string, unknown> {
  const { fixed_ip_assignments: _fixed, blackhole_ports: _blackhole, ddos_profile: _ddos, instance_isolation: _isolation, flavor, ...rest } = instance;
  const { flavor_id, flavor_name, vcpus, ram } = flavor as Record<string, unknown>;
  return { ...rest, flavor: { flavor_id, flavor_name, vcpus, ram } };
}
