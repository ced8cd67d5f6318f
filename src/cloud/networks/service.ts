// Networks: created and deleted through tasks. A network in use (subnets with ports, instance
// ports) cannot be deleted; a network can be used by others only once its create task finished.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError } from '../../platform/errors.js';
import { TaskFailure } from '../../platform/tasks/types.js';
import { badInput, bodyField } from '../common/errors.js';
import { freeAddress, parseCidr } from './subnets/cidr.js';
import { pageOf, tagMatcher } from '../common/filters.js';
import { patchTags, tagList, zonedTime } from '../common/format.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import { RegionalRecords, type TaskIds } from '../common/regional-records.js';
import { attrsOf, newRow, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import type { NetworkCreateBody, NetworkListQuery, NetworkSchema, NetworkUpdateBody } from './schemas.js';

type Network = Static<typeof NetworkSchema>;

export interface NetworkAttrs {
  type: string;
  mtu: number;
  segmentation_id: number | null;
  create_router: boolean;
  tags: Record<string, string>;
}

export class NetworkService {
  private readonly records: RegionalRecords;

  constructor(private readonly ops: Operations) {
    this.records = new RegionalRecords(ops, 'network', 'Network');
  }

  async create(caller: Caller, projectId: number, regionId: number, body: Static<typeof NetworkCreateBody>) {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const id = randomUUID();
    const now = this.ops.clock.now();
    const attrs: NetworkAttrs = {
      type: body.type,
      mtu: body.type === 'vlan' ? 1500 : 1450,
      segmentation_id: null,
      create_router: body.create_router,
      tags: body.tags ?? {},
    };
    const task = await this.ops.submit(caller, scope, 'create_network', { network_id: id }, async (trx, taskId) => {
      // Read in the transaction only by its task's byId: left for the end, with the task's writes.
      await new ResourceStore(trx).insertAtEnd(newRow(scope, 'network', id, body.name, 'creating', taskId, attrs, now));
    });
    return { tasks: [task], id };
  }

  async list(caller: Caller, projectId: number, regionId: number, query: Static<typeof NetworkListQuery>) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    // Only private networks live in a project; the provider's external network is not listed here.
    if (query.external === true) return { count: 0, results: [] };
    const tags = tagMatcher(query);
    const rows = (await this.ops.resources.all('network', scope)).filter((r) => {
      const attrs = attrsOf<NetworkAttrs>(r);
      return (query.name === undefined || r.name === query.name) && (query.network_type === undefined || attrs.type === query.network_type) && tags(attrs.tags);
    });
    const [field, dir] = (query.order_by ?? 'created_at.asc').split('.');
    const sign = dir === 'desc' ? -1 : 1;
    // Every network here has the same priority: priority.desc keeps them newest first.
    rows.sort(
      (a, b) =>
        (field === 'name'
          ? a.name.localeCompare(b.name) || a.id.localeCompare(b.id)
          : Number(a.created_at) - Number(b.created_at) || a.id.localeCompare(b.id)) * sign,
    );
    const page = pageOf(rows, query);
    return { count: page.count, results: await Promise.all(page.results.map((r) => this.present(r))) };
  }

  async get(caller: Caller, projectId: number, regionId: number, id: string): Promise<Network> {
    return this.records.get(caller, projectId, regionId, id, (r) => this.present(r));
  }

  async update(caller: Caller, projectId: number, regionId: number, id: string, body: Static<typeof NetworkUpdateBody>): Promise<Network> {
    return this.records.updateAttrs<NetworkAttrs, Network>(
      caller,
      projectId,
      regionId,
      id,
      body.name,
      (attrs) => {
        attrs.tags = patchTags(attrs.tags, body.tags);
      },
      (r) => this.present(r),
    );
  }

  /** v2: name and tags through the task update_network; no task when nothing would change. */
  async updateV2(caller: Caller, projectId: number, regionId: number, id: string, body: Static<typeof NetworkUpdateBody>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const row = await this.records.idleRow(scope, id);
    const tags = patchTags(attrsOf<NetworkAttrs>(row).tags, body.tags);
    const change: { network_id: string; name?: string; tags?: Record<string, string> } = { network_id: id };
    if (body.name !== undefined && body.name !== row.name) change.name = body.name;
    if (JSON.stringify(tags) !== JSON.stringify(attrsOf<NetworkAttrs>(row).tags)) change.tags = tags;
    if (Object.keys(change).length === 1) return { tasks: [], id };
    return this.records.startTask(caller, scope, row, 'update_network', change);
  }

  async delete(caller: Caller, projectId: number, regionId: number, id: string) {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const row = await this.records.idleRow(scope, id);
    const ports = await this.ops.resources.children(id, 'port');
    if (ports.length > 0)
      throw new AppError(
        'conflict',
        `Network ${id} has ${ports.length} port(s) in use (${await portUsers(this.ops.resources, ports)}); delete or detach them first`,
      );
    return this.records.startTask(caller, scope, row, 'delete_network', { network_id: id }, { status: 'deleting' });
  }

  /** A network another resource may use: the caller's, and its create task finished. `field` names it in a refusal. */
  async usable(scope: Scope, id: string, store: ResourceStore = this.ops.resources, field?: (string | number)[]): Promise<ResourceRow> {
    const row = await store.get('network', scope, id);
    const missing = `Network ${id} does not exist in project ${scope.projectId}, region ${scope.regionId}`;
    if (!row) throw field ? badInput([bodyField(field, missing)]) : new AppError('bad_request', missing);
    if (!row.ready) throw new AppError('conflict', `Network ${id} is not ready yet: its task ${row.creator_task_id} has not finished`);
    if (row.status === 'deleting') throw new AppError('conflict', `Network ${id} is being deleted`);
    return row;
  }

  /** The fixed addresses ports hold on the network already: instances', balancers' and reserved ones. */
  async addressesInUse(networkId: string, store: ResourceStore = this.ops.resources): Promise<Set<string>> {
    return new Set((await store.children(networkId, 'port')).map((p) => attrsOf<{ ip_address: string }>(p).ip_address));
  }

  async present(row: ResourceRow): Promise<Network> {
    const attrs = attrsOf<NetworkAttrs>(row);
    const subnets = await this.ops.resources.children(row.id, 'subnet');
    return {
      id: row.id,
      name: row.name,
      type: attrs.type,
      mtu: attrs.mtu,
      segmentation_id: attrs.segmentation_id,
      external: false,
      shared: false,
      default: false,
      port_security_enabled: true,
      subnets: subnets.map((s) => s.id),
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

/** Who holds the ports, for a refusal's message: "instance 1f0c..., load balancer 9ab2...". */
export async function portUsers(store: ResourceStore, ports: ResourceRow[]): Promise<string> {
  const labels: Record<string, string> = { instance: 'instance', loadbalancer: 'load balancer', router: 'router', file_share: 'file share' };
  const owners = [...new Set(ports.map((p) => p.owner_id).filter((id): id is string => id !== null))];
  const named = await Promise.all(owners.map(async (id) => `${labels[(await store.byId(id))?.kind ?? ''] ?? 'resource'} ${id}`));
  const free = ports.filter((p) => p.owner_id === null).length;
  return [...named, ...(free > 0 ? [`${free} reserved`] : [])].join(', ');
}

/**
 * Another port holding `address` on the network, if any. Addresses are picked when a request or task
 * runs; tasks that finish ports check again, so that two made at once never share one.
 */
export async function addressHolder(store: ResourceStore, networkId: string, address: string, except: string): Promise<ResourceRow | undefined> {
  return (await store.children(networkId, 'port')).find((p) => p.id !== except && attrsOf<{ ip_address: string }>(p).ip_address === address);
}

/** Ports a task finishes must not share an address with a port made meanwhile (addresses are picked as requests run). */
export async function requireOwnAddresses(store: ResourceStore, rows: ResourceRow[]): Promise<void> {
  for (const port of rows) {
    if (port.kind !== 'port' || port.parent_id === null) continue;
    const address = attrsOf<{ ip_address: string }>(port).ip_address;
    const holder = await addressHolder(store, port.parent_id, address, port.id);
    if (holder) throw new TaskFailure(`Address ${address} was taken on network ${port.parent_id} by port ${holder.id} meanwhile; try again`);
  }
}

/**
 * The first free host address of the first of `subnetIds` that has one, for a port a task finishes (it
 * fails the task when none has): tasks take their client's quota row first, so they pick one at a time.
 */
export async function firstFreeAddress(store: ResourceStore, networkId: string, subnetIds: string[]): Promise<{ address: string; subnet: ResourceRow }> {
  const taken = new Set((await store.children(networkId, 'port')).map((p) => attrsOf<{ ip_address: string }>(p).ip_address));
  for (const id of subnetIds) {
    const subnet = await store.byId(id);
    if (!subnet?.ready) continue;
    const address = freeAddress(parseCidr(attrsOf<{ cidr: string }>(subnet).cidr)!, taken);
    if (address) return { address, subnet };
  }
  throw new TaskFailure(`No free address left in subnet ${subnetIds.join(', ')}`);
}
