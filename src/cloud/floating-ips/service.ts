// Floating IPs: created and deleted through tasks; assigning to an instance port and unassigning are
// immediate. The port must be one of the caller's instance ports in the same project and region.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError } from '../../platform/errors.js';
import { tagList, zonedTime } from '../common/format.js';
import type { Caller, Operations } from '../common/operations.js';
import { RegionalRecords } from '../common/regional-records.js';
import { attrsOf, newRow, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import type { InstanceService, PortAttrs } from '../instances/service.js';
import type { FloatingIpCreateBody, FloatingIpListQuery, FloatingIpSchema } from './schemas.js';

type FloatingIp = Static<typeof FloatingIpSchema>;

interface FipAttrs {
  address: string;
  tags: Record<string, string>;
}

export class FloatingIpService {
  private counter = 0;

  private readonly records: RegionalRecords;

  constructor(private readonly ops: Operations, private readonly instances: InstanceService) {
    this.records = new RegionalRecords(ops, 'floatingip', 'Floating IP');
  }

  async create(caller: Caller, projectId: number, regionId: number, body: Static<typeof FloatingIpCreateBody>) {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const port = body.port_id ? await this.port(scope, body.port_id) : undefined;
    const id = randomUUID();
    const now = this.ops.clock.now();
    this.counter = (this.counter + 1) % 60000;
    const n = (now + this.counter) % 65024;
    const attrs: FipAttrs = { address: `198.51.${100 + Math.floor(n / 254) % 100}.${(n % 254) + 1}`, tags: body.tags ?? {} };
    const task = await this.ops.submit(caller, scope, 'create_fip', { floatingip_id: id }, async (trx, taskId) => {
      await new ResourceStore(trx).insert(newRow(scope, 'floatingip', id, attrs.address, 'DOWN', taskId, attrs, now, port ? { parent_id: port.id, owner_id: port.owner_id } : {}));
    });
    return { tasks: [task], id };
  }

  async list(caller: Caller, projectId: number, regionId: number, query: Static<typeof FloatingIpListQuery>) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    // Listed floating IPs also carry the instance they are assigned to.
    return this.records.page(scope, { status: query.status }, query, async (r) => {
      const owner = r.owner_id ? await this.ops.resources.byId(r.owner_id) : undefined;
      return { ...(await this.present(r)), instance: owner ? await this.instances.present(owner) : null, loadbalancer: null };
    });
  }

  async get(caller: Caller, projectId: number, regionId: number, id: string): Promise<FloatingIp> {
    return this.records.get(caller, projectId, regionId, id, (r) => this.present(r));
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
    if (!port || !port.ready) throw new AppError('bad_request', `Port ${portId} is not an instance port of project ${scope.projectId}, region ${scope.regionId}`);
    return port;
  }

  async present(row: ResourceRow): Promise<FloatingIp> {
    const attrs = attrsOf<FipAttrs>(row);
    const port = row.parent_id ? await this.ops.resources.byId(row.parent_id) : undefined;
    return {
      id: row.id, floating_ip_address: attrs.address, fixed_ip_address: port ? attrsOf<PortAttrs>(port).ip_address : null, port_id: port?.id ?? null,
      router_id: null, status: row.status as FloatingIp['status'], tags: tagList(attrs.tags),
      project_id: Number(row.project_id), region_id: Number(row.region_id), region: this.ops.regions.name(Number(row.region_id)),
      creator_task_id: row.creator_task_id, task_id: row.task_id, created_at: zonedTime(row.created_at), updated_at: zonedTime(row.updated_at),
    };
  }
}
