// Volumes: created (empty, from an image or from a snapshot) and deleted through tasks. A volume
// attached to an instance, or with snapshots the delete does not name, cannot be deleted; a volume
// from an image must be big enough for it.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError } from '../../platform/errors.js';
import { badInput, bodyField, queryField } from '../common/errors.js';
import { pageOf, tagMatcher } from '../common/filters.js';
import { patchTags, tagList, zonedTime } from '../common/format.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import { RegionalRecords, type TaskIds } from '../common/regional-records.js';
import { attrsOf, newRow, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import { volumeMisfit } from '../images/fit.js';
import type { ImageService } from '../images/service.js';
import type { InstanceAttrs } from '../instances/service.js';
import type { RegionDefinition } from '../regions/catalogue.js';
import type { SnapshotService } from '../snapshots/service.js';
import type { VolumeAttrs } from './attrs.js';
import type { VolumeCreateBody, VolumeDeleteQuery, VolumeListQuery, VolumeSchema, VolumeUpdateBody } from './schemas.js';

type Volume = Static<typeof VolumeSchema>;
type Body = Static<typeof VolumeCreateBody>;

/** Where a new volume's data comes from, once checked. */
interface Source {
  size: number;
  type: string;
  bootable: boolean;
  imageId: string | null;
}

export class VolumeService {
  readonly records: RegionalRecords;

  constructor(
    private readonly ops: Operations,
    private readonly images: ImageService,
    private readonly snapshots: SnapshotService,
  ) {
    this.records = new RegionalRecords(ops, 'volume', 'Volume');
  }

  async create(caller: Caller, projectId: number, regionId: number, body: Body): Promise<TaskIds> {
    const { scope, region } = await this.ops.place(caller, projectId, regionId, 'network');
    const source = await this.source(scope, region, body);
    if (!region.available_volume_types.includes(source.type))
      throw badInput([
        bodyField(['type_name'], `volume type ${source.type} is not available in region ${regionId} (available: ${region.available_volume_types.join(', ')})`),
      ]);
    if (body.instance_id_to_attach_to) {
      const instance = await this.ops.resources.get('instance', scope, body.instance_id_to_attach_to);
      if (!instance)
        throw badInput([
          bodyField(['instance_id_to_attach_to'], `instance ${body.instance_id_to_attach_to} does not exist in project ${projectId}, region ${regionId}`),
        ]);
    }
    const id = randomUUID();
    const attrs: VolumeAttrs = {
      volume_type: source.type,
      bootable: source.bootable,
      is_root_volume: false,
      delete_on_termination: false,
      tags: body.tags ?? {},
      attached_at: null,
      attachment_tag: body.attachment_tag ?? null,
      image_id: source.imageId,
    };
    const task = await this.ops.submit(
      caller,
      scope,
      'create_volume',
      { volume_id: id, attach_to: body.instance_id_to_attach_to ?? null },
      async (trx, taskId) => {
        await new ResourceStore(trx).insert(newRow(scope, 'volume', id, body.name, 'creating', taskId, attrs, this.ops.clock.now(), { size_gb: source.size }));
      },
    );
    return { tasks: [task], id };
  }

  /** The size, type and boot data the body's source gives the volume. */
  private async source(scope: Scope, region: RegionDefinition, body: Body): Promise<Source> {
    if (body.source === 'snapshot') {
      if (!body.snapshot_id) throw badInput([bodyField(['snapshot_id'], 'Field required when source is snapshot', 'missing')]);
      const { row, attrs } = await this.snapshots.source(scope, body.snapshot_id, ['snapshot_id']);
      if (body.size !== undefined && body.size !== Number(row.size_gb))
        throw badInput([bodyField(['size'], `must equal the size of snapshot ${row.id} (${row.size_gb} GiB)`)]);
      return { size: Number(row.size_gb), type: body.type_name ?? attrs.volume_type, bootable: attrs.bootable, imageId: attrs.image_id };
    }
    if (body.size === undefined) throw badInput([bodyField(['size'], `Field required when source is ${body.source}`, 'missing')]);
    if (body.source === 'new-volume') return { size: body.size, type: body.type_name ?? 'standard', bootable: false, imageId: null };
    if (!body.image_id) throw badInput([bodyField(['image_id'], 'Field required when source is image', 'missing')]);
    const image = await this.images.boot(scope, region, body.image_id);
    if (!image) throw badInput([bodyField(['image_id'], `image ${body.image_id} does not exist in region ${region.id} for project ${scope.projectId}`)]);
    const misfit = volumeMisfit(image, body.size);
    if (misfit) throw badInput([bodyField([misfit.includes('GiB') ? 'size' : 'image_id'], misfit)]);
    return { size: body.size, type: body.type_name ?? 'standard', bootable: true, imageId: image.id };
  }

  async list(caller: Caller, projectId: number, regionId: number, query: Static<typeof VolumeListQuery>) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const tags = tagMatcher(query);
    const nodes =
      query.cluster_id === undefined
        ? undefined
        : new Set(
            (await this.ops.resources.all('instance', scope))
              .filter((i) => attrsOf<InstanceAttrs>(i).cluster?.cluster_id === query.cluster_id)
              .map((i) => i.id),
          );
    const rows = (await this.ops.resources.all('volume', scope)).filter((r) => {
      const attrs = attrsOf<VolumeAttrs>(r);
      return (
        (query.instance_id === undefined || r.owner_id === query.instance_id) &&
        (nodes === undefined || (r.owner_id !== null && nodes.has(r.owner_id))) &&
        (query.bootable === undefined || attrs.bootable === query.bootable) &&
        (query.has_attachments === undefined || (r.owner_id !== null) === query.has_attachments) &&
        (query.id_part === undefined || r.id.includes(query.id_part)) &&
        (query.name_part === undefined || r.name.toLowerCase().includes(query.name_part.toLowerCase())) &&
        tags(attrs.tags)
      );
    });
    const page = pageOf(rows, query);
    return { count: page.count, results: await Promise.all(page.results.map((r) => this.present(r))) };
  }

  async get(caller: Caller, projectId: number, regionId: number, id: string): Promise<Volume> {
    return this.records.get(caller, projectId, regionId, id, (r) => this.present(r));
  }

  async update(caller: Caller, projectId: number, regionId: number, id: string, body: Static<typeof VolumeUpdateBody>): Promise<Volume> {
    return this.records.updateAttrs<VolumeAttrs, Volume>(
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

  async delete(caller: Caller, projectId: number, regionId: number, id: string, query: Static<typeof VolumeDeleteQuery>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const row = await this.records.idleRow(scope, id);
    if (row.owner_id) {
      const instance = await this.ops.resources.byId(row.owner_id);
      throw new AppError('conflict', `Volume ${id} is attached to instance ${row.owner_id} (${instance?.status ?? 'unknown'}); detach it first`);
    }
    const named = (query.snapshots ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const snapshots = await this.ops.resources.children(id, 'snapshot');
    const foreign = named.filter((s) => !snapshots.some((snap) => snap.id === s));
    if (foreign.length > 0) throw badInput([queryField('snapshots', `snapshot(s) ${foreign.join(', ')} are not snapshots of volume ${id}`)]);
    const kept = snapshots.filter((s) => !named.includes(s.id));
    if (kept.length > 0)
      throw new AppError('conflict', `Volume ${id} has snapshot(s) ${kept.map((s) => s.id).join(', ')}; name them in \`snapshots\` to delete them with it`);
    const busy = snapshots.find((s) => s.task_id);
    if (busy) throw new AppError('conflict', `Snapshot ${busy.id} of volume ${id} is busy with task ${busy.task_id}`);
    return this.records.startTask(caller, scope, row, 'delete_volume', { volume_id: id, snapshots: named }, { status: 'deleting' });
  }

  async present(row: ResourceRow): Promise<Volume> {
    const attrs = attrsOf<VolumeAttrs>(row);
    const instance = row.owner_id ? await this.ops.resources.byId(row.owner_id) : undefined;
    const snapshots = await this.ops.resources.children(row.id, 'snapshot');
    const flavor = instance ? attrsOf<InstanceAttrs>(instance).flavor_id : null;
    return {
      id: row.id,
      name: row.name,
      size: Number(row.size_gb),
      volume_type: attrs.volume_type,
      status: row.status,
      bootable: attrs.bootable,
      is_root_volume: attrs.is_root_volume,
      attachments:
        row.owner_id && row.status !== 'attaching'
          ? [
              {
                attachment_id: `${row.id}:${row.owner_id}`,
                volume_id: row.id,
                server_id: row.owner_id,
                instance_name: instance?.name ?? null,
                device: attrs.is_root_volume ? '/dev/vda' : '/dev/vdb',
                flavor_id: flavor,
                attached_at: attrs.attached_at ? zonedTime(attrs.attached_at) : null,
              },
            ]
          : [],
      snapshot_ids: snapshots.map((s) => s.id),
      volume_image_metadata: attrs.image_id ? { image_id: attrs.image_id } : null,
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
