// Placement groups: made at once (within the servergroup_count quota, checked on the request), deleted
// through a task once no instance is in them. Instances join one when they are created (servergroup_id)
// or later (put_into_servergroup), and leave (remove_from_servergroup), through tasks that place them on
// a host the group's policy allows.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError } from '../../platform/errors.js';
import { badInput, bodyField } from '../common/errors.js';
import { pageOf } from '../common/filters.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import { RegionalRecords, type TaskIds } from '../common/regional-records.js';
import { attrsOf, newRow, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import type { QuotaService } from '../quotas/service.js';
import type { Policy } from './hosts.js';
import type { Placed } from './scheduler.js';
import type { PlacementGroupCreateBody, PlacementGroupSchema } from './schemas.js';

type PlacementGroup = Static<typeof PlacementGroupSchema>;

export class PlacementGroupService {
  private readonly records: RegionalRecords;
  private readonly instances: RegionalRecords;

  constructor(
    private readonly ops: Operations,
    private readonly quotas: QuotaService,
  ) {
    this.records = new RegionalRecords(ops, 'servergroup', 'Placement group');
    this.instances = new RegionalRecords(ops, 'instance', 'Instance');
  }

  async create(caller: Caller, projectId: number, regionId: number, body: Static<typeof PlacementGroupCreateBody>): Promise<PlacementGroup> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_kvm');
    const now = this.ops.clock.now();
    const row = {
      ...newRow(scope, 'servergroup', randomUUID(), body.name, 'ACTIVE', '', { policy: body.policy }, now),
      ready: 1,
      creator_task_id: null,
      task_id: null,
    };
    await this.ops.transaction(scope, async (trx) => {
      await this.quotas.checkNow(trx, caller.clientId, { servergroup_count: 1 }, regionId);
      await new ResourceStore(trx).insert(row);
    });
    return this.present(row);
  }

  async list(caller: Caller, projectId: number, regionId: number, page: { limit: number; offset: number }) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const shown = pageOf(await this.ops.resources.all('servergroup', scope), page);
    return { count: shown.count, results: await Promise.all(shown.results.map((r) => this.present(r))) };
  }

  async get(caller: Caller, projectId: number, regionId: number, id: string): Promise<PlacementGroup> {
    const scope = await this.ops.readable(caller, projectId, regionId);
    return this.present(await this.records.row(scope, id));
  }

  async delete(caller: Caller, projectId: number, regionId: number, id: string): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_kvm');
    const row = await this.records.idleRow(scope, id);
    const members = await this.members(scope, id);
    if (members.length > 0) throw new AppError('conflict', `Placement group ${id} has instance(s) ${members.map((m) => m.id).join(', ')}; remove them first`);
    return this.records.startTask(caller, scope, row, 'delete_servergroup', { servergroup_id: id });
  }

  /** The group an instance is created into: the caller's, in the same project and region. */
  async require(scope: Scope, id: string, field: (string | number)[]): Promise<ResourceRow> {
    const row = await this.ops.resources.get('servergroup', scope, id);
    if (!row) throw badInput([bodyField(field, `placement group ${id} does not exist in project ${scope.projectId}, region ${scope.regionId}`)]);
    return row;
  }

  /** Moves a running or stopped instance into a group, through put_into_server_group (which finds it a host). */
  async putInto(caller: Caller, projectId: number, regionId: number, instanceId: string, groupId: string): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_kvm');
    const instance = await this.movable(scope, instanceId);
    const current = attrsOf<Placed>(instance).servergroup_id;
    if (current) throw new AppError('conflict', `Instance ${instanceId} is in placement group ${current} already; remove it from that group first`);
    await this.require(scope, groupId, ['servergroup_id']);
    return this.instances.startTask(caller, scope, instance, 'put_into_server_group', { instance_id: instanceId, servergroup_id: groupId });
  }

  async removeFrom(caller: Caller, projectId: number, regionId: number, instanceId: string): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_kvm');
    const instance = await this.movable(scope, instanceId);
    if (!attrsOf<Placed>(instance).servergroup_id) throw new AppError('conflict', `Instance ${instanceId} is in no placement group`);
    return this.instances.startTask(caller, scope, instance, 'remove_from_server_group', { instance_id: instanceId });
  }

  /** An instance no task works on, ACTIVE or SHUTOFF, that is not a Kubernetes node (its pool places those). */
  private async movable(scope: Scope, id: string): Promise<ResourceRow> {
    const instance = await this.instances.idleRow(scope, id);
    if (!['ACTIVE', 'SHUTOFF'].includes(instance.status))
      throw new AppError('conflict', `Instance ${id} is ${instance.status}; it changes group while ACTIVE or SHUTOFF`);
    if (attrsOf<{ cluster?: unknown }>(instance).cluster) throw new AppError('conflict', `Instance ${id} is a Kubernetes node; its pool places it`);
    return instance;
  }

  private async members(scope: Scope, groupId: string): Promise<ResourceRow[]> {
    return (await this.ops.resources.all('instance', scope)).filter((i) => attrsOf<Placed>(i).servergroup_id === groupId);
  }

  async present(row: ResourceRow): Promise<PlacementGroup> {
    const scope = { clientId: row.client_id, projectId: Number(row.project_id), regionId: Number(row.region_id) };
    const members = await this.members(scope, row.id);
    return {
      servergroup_id: row.id,
      name: row.name,
      policy: attrsOf<{ policy: Policy }>(row).policy,
      instances: members.map((m) => ({ instance_id: m.id, instance_name: m.name })),
      project_id: scope.projectId,
      region_id: scope.regionId,
      region: this.ops.regions.name(scope.regionId),
    };
  }
}
