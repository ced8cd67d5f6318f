// Networks: created and deleted through tasks. A network in use (subnets with ports, instance
// ports) cannot be deleted; a network can be used by others only once its create task finished.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError } from '../../platform/errors.js';
import { tagList, zonedTime } from '../common/format.js';
import type { Caller, Operations } from '../common/operations.js';
import { RegionalRecords } from '../common/regional-records.js';
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
    const attrs: NetworkAttrs = { type: body.type, mtu: body.type === 'vlan' ? 1500 : 1450, segmentation_id: null, create_router: body.create_router, tags: body.tags ?? {} };
    const task = await this.ops.submit(caller, scope, 'create_network', { network_id: id }, async (trx, taskId) => {
      await new ResourceStore(trx).insert(newRow(scope, 'network', id, body.name, 'creating', taskId, attrs, now));
    });
    return { tasks: [task], id };
  }

  async list(caller: Caller, projectId: number, regionId: number, query: Static<typeof NetworkListQuery>) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    // Only private networks live in a project; the provider's external network is not listed here.
    if (query.external === true) return { count: 0, results: [] };
    return this.records.page(scope, { name: query.name, orderBy: query.order_by }, query, (r) => this.present(r));
  }

  async get(caller: Caller, projectId: number, regionId: number, id: string): Promise<Network> {
    return this.records.get(caller, projectId, regionId, id, (r) => this.present(r));
  }

  async update(caller: Caller, projectId: number, regionId: number, id: string, body: Static<typeof NetworkUpdateBody>): Promise<Network> {
    return this.records.updateAttrs<NetworkAttrs, Network>(caller, projectId, regionId, id, body.name, (attrs) => {
      if (body.tags !== undefined) attrs.tags = body.tags ?? {};
    }, (r) => this.present(r));
  }

  async delete(caller: Caller, projectId: number, regionId: number, id: string) {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const row = await this.records.idleRow(scope, id);
    const ports = await this.ops.resources.children(id, 'port');
    if (ports.length > 0) throw new AppError('conflict', `Network ${id} has ${ports.length} port(s) in use by instances; delete or detach them first`);
    return this.records.startTask(caller, scope, row, 'delete_network', { network_id: id }, { status: 'deleting' });
  }

  /** A network another resource may use: the caller's, and its create task finished. */
  async usable(scope: Scope, id: string, store: ResourceStore = this.ops.resources): Promise<ResourceRow> {
    const row = await store.get('network', scope, id);
    if (!row) throw new AppError('bad_request', `Network ${id} does not exist in project ${scope.projectId}, region ${scope.regionId}`);
    if (!row.ready) throw new AppError('conflict', `Network ${id} is not ready yet: its task ${row.creator_task_id} has not finished`);
    if (row.status === 'deleting') throw new AppError('conflict', `Network ${id} is being deleted`);
    return row;
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
