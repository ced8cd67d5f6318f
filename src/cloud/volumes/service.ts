// Volumes: created and deleted through tasks; attach and detach are immediate. A volume attached to
// an instance cannot be deleted, and the root volume of an instance cannot be detached.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError, bodyField, invalid } from '../../platform/errors.js';
import { tagList, zonedTime } from '../common/format.js';
import type { Caller, Operations } from '../common/operations.js';
import { RegionalRecords } from '../common/regional-records.js';
import { attrsOf, newRow, ResourceStore, type ResourceRow } from '../common/resource-store.js';
import type { InstanceService, VolumeAttrs } from '../instances/service.js';
import type { VolumeCreateBody, VolumeListQuery, VolumeSchema } from './schemas.js';

type Volume = Static<typeof VolumeSchema>;

export class VolumeService {
  private readonly records: RegionalRecords;

  constructor(private readonly ops: Operations, private readonly instances: InstanceService) {
    this.records = new RegionalRecords(ops, 'volume', 'Volume');
  }

  async create(caller: Caller, projectId: number, regionId: number, body: Static<typeof VolumeCreateBody>) {
    const { scope, region } = await this.ops.place(caller, projectId, regionId, 'network');
    if (!region.available_volume_types.includes(body.type_name)) throw invalid([bodyField(['type_name'], `volume type ${body.type_name} is not available in region ${regionId} (available: ${region.available_volume_types.join(', ')})`)]);
    if (body.source === 'image' && !body.image_id) throw invalid([bodyField(['image_id'], 'required when source is image', 'missing')]);
    if (body.instance_id_to_attach_to) await this.instances.row(scope, body.instance_id_to_attach_to);
    const id = randomUUID();
    const attrs: VolumeAttrs = { volume_type: body.type_name, bootable: body.source === 'image', is_root_volume: false, delete_on_termination: false, tags: body.tags ?? {}, attached_at: null };
    const task = await this.ops.submit(caller, scope, 'create_volume', { volume_id: id, attach_to: body.instance_id_to_attach_to ?? null }, async (trx, taskId) => {
      await new ResourceStore(trx).insert(newRow(scope, 'volume', id, body.name, 'creating', taskId, attrs, this.ops.clock.now(), { size_gb: body.size }));
    });
    return { tasks: [task], id };
  }

  async list(caller: Caller, projectId: number, regionId: number, query: Static<typeof VolumeListQuery>) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    return this.records.page(scope, { ownerId: query.instance_id }, query, (r) => this.present(r));
  }

  async get(caller: Caller, projectId: number, regionId: number, id: string): Promise<Volume> {
    return this.records.get(caller, projectId, regionId, id, (r) => this.present(r));
  }

  async delete(caller: Caller, projectId: number, regionId: number, id: string) {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const row = await this.records.idleRow(scope, id);
    if (row.owner_id) {
      const instance = await this.ops.resources.byId(row.owner_id);
      throw new AppError('conflict', `Volume ${id} is attached to instance ${row.owner_id} (${instance?.status ?? 'unknown'}); detach it first`);
    }
    return this.records.startTask(caller, scope, row, 'delete_volume', { volume_id: id }, { status: 'deleting' });
  }

  async attach(caller: Caller, projectId: number, regionId: number, id: string, instanceId: string): Promise<Volume> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_kvm');
    const row = await this.records.row(scope, id);
    const instance = await this.instances.row(scope, instanceId);
    if (!row.ready || row.task_id) throw new AppError('conflict', `Volume ${id} is not available (status ${row.status})`);
    if (row.owner_id) throw new AppError('conflict', `Volume ${id} is already attached to instance ${row.owner_id}`);
    if (instance.task_id || !instance.ready) throw new AppError('conflict', `Instance ${instanceId} is busy; wait for its task to finish`);
    const attrs = attrsOf<VolumeAttrs>(row);
    attrs.attached_at = this.ops.clock.now();
    await this.ops.resources.update(id, { owner_id: instanceId, status: 'in-use', attrs: JSON.stringify(attrs), updated_at: this.ops.clock.now() });
    return this.present(await this.records.row(scope, id));
  }

  async detach(caller: Caller, projectId: number, regionId: number, id: string, instanceId: string): Promise<Volume> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_kvm');
    const row = await this.records.row(scope, id);
    if (row.owner_id !== instanceId) throw new AppError('bad_request', `Volume ${id} is not attached to instance ${instanceId}`);
    const attrs = attrsOf<VolumeAttrs>(row);
    if (attrs.is_root_volume) throw new AppError('bad_request', `Volume ${id} is the root volume of instance ${instanceId} and cannot be detached`);
    attrs.attached_at = null;
    await this.ops.resources.update(id, { owner_id: null, status: 'available', attrs: JSON.stringify(attrs), updated_at: this.ops.clock.now() });
    return this.present(await this.records.row(scope, id));
  }

  private async present(row: ResourceRow): Promise<Volume> {
    const attrs = attrsOf<VolumeAttrs>(row);
    const instance = row.owner_id ? await this.ops.resources.byId(row.owner_id) : undefined;
    return {
      id: row.id, name: row.name, size: row.size_gb, volume_type: attrs.volume_type, status: row.status, bootable: attrs.bootable, is_root_volume: attrs.is_root_volume,
      attachments: row.owner_id ? [{ attachment_id: `${row.id}:${row.owner_id}`, volume_id: row.id, server_id: row.owner_id, instance_name: instance?.name ?? null, device: attrs.is_root_volume ? '/dev/vda' : '/dev/vdb', attached_at: attrs.attached_at ? zonedTime(attrs.attached_at) : null }] : [],
      tags: tagList(attrs.tags), project_id: Number(row.project_id), region_id: Number(row.region_id), region: this.ops.regions.name(Number(row.region_id)),
      creator_task_id: row.creator_task_id, task_id: row.task_id, created_at: zonedTime(row.created_at), updated_at: zonedTime(row.updated_at),
    };
  }
}
