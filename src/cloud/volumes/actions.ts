// What is done to an existing volume: attaching and detaching (at once through v1, as tasks through v2),
// extending (a task), changing its type (at once) and reverting it to its newest snapshot (a task).
// One task at a time per volume; the root volume of an instance stays attached.
import { AppError } from '../../platform/errors.js';
import { badInput, badRequest, bodyField } from '../common/errors.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import type { TaskIds } from '../common/regional-records.js';
import { attrsOf, type ResourceRow, type Scope } from '../common/resource-store.js';
import type { VolumeAttrs } from './attrs.js';
import type { VolumeService } from './service.js';

type Volume = Awaited<ReturnType<VolumeService['present']>>;

export class VolumeActions {
  constructor(
    private readonly ops: Operations,
    private readonly volumes: VolumeService,
  ) {}

  /** v1: attached when the call returns. */
  async attachNow(caller: Caller, projectId: number, regionId: number, id: string, instanceId: string, tag?: string): Promise<Volume> {
    const { scope, row } = await this.attachable(caller, projectId, regionId, id, instanceId);
    const attrs = attrsOf<VolumeAttrs>(row);
    Object.assign(attrs, { attached_at: this.ops.clock.now(), attachment_tag: tag ?? null });
    await this.ops.resources.update(id, { owner_id: instanceId, status: 'in-use', attrs: JSON.stringify(attrs), updated_at: this.ops.clock.now() });
    return this.volumes.present(await this.volumes.records.row(scope, id));
  }

  /** v2: a task attaches it. */
  async attach(caller: Caller, projectId: number, regionId: number, id: string, instanceId: string, tag?: string): Promise<TaskIds> {
    const { scope, row } = await this.attachable(caller, projectId, regionId, id, instanceId);
    return this.volumes.records.startTask(
      caller,
      scope,
      row,
      'attach_volume',
      { volume_id: id, instance_id: instanceId, attachment_tag: tag ?? null },
      { status: 'attaching' },
    );
  }

  async detachNow(caller: Caller, projectId: number, regionId: number, id: string, instanceId: string): Promise<Volume> {
    const { scope, row } = await this.detachable(caller, projectId, regionId, id, instanceId);
    const attrs = attrsOf<VolumeAttrs>(row);
    attrs.attached_at = null;
    await this.ops.resources.update(id, { owner_id: null, status: 'available', attrs: JSON.stringify(attrs), updated_at: this.ops.clock.now() });
    return this.volumes.present(await this.volumes.records.row(scope, id));
  }

  async detach(caller: Caller, projectId: number, regionId: number, id: string, instanceId: string): Promise<TaskIds> {
    const { scope, row } = await this.detachable(caller, projectId, regionId, id, instanceId);
    return this.volumes.records.startTask(caller, scope, row, 'detach_volume', { volume_id: id, instance_id: instanceId }, { status: 'detaching' });
  }

  async extend(caller: Caller, projectId: number, regionId: number, id: string, size: number): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const row = await this.ready(scope, id);
    if (size <= Number(row.size_gb)) throw badInput([bodyField(['size'], `must be larger than the volume's size (${row.size_gb} GiB): volumes only grow`)]);
    return this.volumes.records.startTask(caller, scope, row, 'extend_volume', { volume_id: id, size, status: row.status }, { status: 'extending' });
  }

  async retype(caller: Caller, projectId: number, regionId: number, id: string, type: string): Promise<Volume> {
    const { scope, region } = await this.ops.place(caller, projectId, regionId, 'network');
    const row = await this.ready(scope, id);
    const attrs = attrsOf<VolumeAttrs>(row);
    if (attrs.volume_type === type) throw badInput([bodyField(['volume_type'], `volume ${id} is already of type ${type}`)]);
    if (!region.available_volume_types.includes(type))
      throw badInput([bodyField(['volume_type'], `volume type ${type} is not available in region ${regionId}`)]);
    attrs.volume_type = type;
    await this.ops.resources.update(id, { attrs: JSON.stringify(attrs), updated_at: this.ops.clock.now() });
    return this.volumes.present(await this.volumes.records.row(scope, id));
  }

  /** Back to the newest available snapshot; the volume must be detached and of the snapshot's size. */
  async revert(caller: Caller, projectId: number, regionId: number, id: string): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const row = await this.ready(scope, id);
    if (row.owner_id) throw new AppError('conflict', `Volume ${id} is attached to instance ${row.owner_id}; detach it before reverting it`);
    const snapshots = (await this.ops.resources.children(id, 'snapshot')).filter((s) => s.ready && s.status === 'available');
    const newest = snapshots.at(-1);
    if (!newest) throw badRequest(`Volume ${id} has no available snapshot to revert to`);
    if (Number(newest.size_gb) !== Number(row.size_gb))
      throw badRequest(`Volume ${id} was extended after snapshot ${newest.id} (${newest.size_gb} GiB); it cannot be reverted to it`);
    return this.volumes.records.startTask(caller, scope, row, 'revert_volume', { volume_id: id, snapshot_id: newest.id }, { status: 'reverting' });
  }

  /** A finished volume of the scope with no task on it. */
  private async ready(scope: Scope, id: string): Promise<ResourceRow> {
    const row = await this.volumes.records.idleRow(scope, id);
    if (!row.ready) throw new AppError('conflict', `Volume ${id} is not created yet (status ${row.status})`);
    return row;
  }

  private async attachable(caller: Caller, projectId: number, regionId: number, id: string, instanceId: string) {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_kvm');
    const row = await this.volumes.records.row(scope, id);
    const instance = await this.ops.resources.get('instance', scope, instanceId);
    if (!instance) throw badInput([bodyField(['instance_id'], `instance ${instanceId} does not exist in project ${projectId}, region ${regionId}`)]);
    if (!row.ready || row.task_id) throw new AppError('conflict', `Volume ${id} is not available (status ${row.status})`);
    if (row.owner_id) throw new AppError('conflict', `Volume ${id} is already attached to instance ${row.owner_id}`);
    if (instance.task_id || !instance.ready) throw new AppError('conflict', `Instance ${instanceId} is busy; wait for its task to finish`);
    return { scope, row };
  }

  private async detachable(caller: Caller, projectId: number, regionId: number, id: string, instanceId: string) {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_kvm');
    const row = await this.volumes.records.row(scope, id);
    if (row.owner_id !== instanceId) throw badRequest(`Volume ${id} is not attached to instance ${instanceId}`);
    if (row.task_id) throw new AppError('conflict', `Volume ${id} is busy with task ${row.task_id}; wait for it to finish`);
    if (attrsOf<VolumeAttrs>(row).is_root_volume) throw badRequest(`Volume ${id} is the root volume of instance ${instanceId} and cannot be detached`);
    return { scope, row };
  }
}
