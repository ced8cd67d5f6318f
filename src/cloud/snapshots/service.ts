// Volume snapshots: taken and deleted through tasks. A snapshot keeps its volume's size, type and
// boot data; volumes (and instance boot volumes) can be made from an available one.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError } from '../../platform/errors.js';
import { badInput, bodyField } from '../common/errors.js';
import { pageOf } from '../common/filters.js';
import { patchTags, tagList, zonedTime } from '../common/format.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import { RegionalRecords, type TaskIds } from '../common/regional-records.js';
import { attrsOf, newRow, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import type { SnapshotCreateBody, SnapshotListQuery, SnapshotSchema, SnapshotUpdateBody } from './schemas.js';

type Snapshot = Static<typeof SnapshotSchema>;

export interface SnapshotAttrs {
  description: string | null;
  tags: Record<string, string>;
  /** Of the volume when the snapshot was taken: what a volume made from it gets. */
  volume_type: string;
  bootable: boolean;
  image_id: string | null;
}

/** What a snapshot reads of its volume. */
interface VolumeFacts {
  volume_type: string;
  bootable: boolean;
  image_id?: string | null;
}

export class SnapshotService {
  private readonly records: RegionalRecords;

  constructor(private readonly ops: Operations) {
    this.records = new RegionalRecords(ops, 'snapshot', 'Snapshot');
  }

  async create(caller: Caller, projectId: number, regionId: number, body: Static<typeof SnapshotCreateBody>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const volume = await this.ops.resources.get('volume', scope, body.volume_id);
    if (!volume) throw badInput([bodyField(['volume_id'], `volume ${body.volume_id} does not exist in project ${projectId}, region ${regionId}`)]);
    if (!volume.ready || volume.task_id)
      throw new AppError('conflict', `Volume ${body.volume_id} is busy (status ${volume.status}); wait for its task to finish`);
    const facts = attrsOf<VolumeFacts>(volume);
    const attrs: SnapshotAttrs = {
      description: body.description ?? null,
      tags: body.tags ?? {},
      volume_type: facts.volume_type,
      bootable: facts.bootable,
      image_id: facts.image_id ?? null,
    };
    const id = randomUUID();
    const task = await this.ops.submit(caller, scope, 'create_snapshot', { snapshot_id: id, volume_id: volume.id }, async (trx, taskId) => {
      await new ResourceStore(trx).insert(
        newRow(scope, 'snapshot', id, body.name, 'creating', taskId, attrs, this.ops.clock.now(), { parent_id: volume.id, size_gb: volume.size_gb }),
      );
    });
    return { tasks: [task], id };
  }

  async list(caller: Caller, projectId: number, regionId: number, query: Static<typeof SnapshotListQuery>) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    // Snapshots are never made by lifecycle policies or schedules here: filtering by one finds none.
    if (query.lifecycle_policy_id !== undefined || query.schedule_id !== undefined) return { count: 0, results: [] };
    const volumes = query.instance_id === undefined ? undefined : new Set((await this.ops.resources.attachedTo(query.instance_id, 'volume')).map((v) => v.id));
    const rows = (await this.ops.resources.all('snapshot', scope)).filter(
      (r) => (query.volume_id === undefined || r.parent_id === query.volume_id) && (volumes === undefined || volumes.has(r.parent_id!)),
    );
    const page = pageOf(rows, query);
    return { count: page.count, results: page.results.map((r) => this.present(r)) };
  }

  async get(caller: Caller, projectId: number, regionId: number, id: string): Promise<Snapshot> {
    return this.records.get(caller, projectId, regionId, id, async (r) => this.present(r));
  }

  async update(caller: Caller, projectId: number, regionId: number, id: string, body: Static<typeof SnapshotUpdateBody>): Promise<Snapshot> {
    return this.records.updateAttrs<SnapshotAttrs, Snapshot>(
      caller,
      projectId,
      regionId,
      id,
      body.name,
      (attrs) => {
        attrs.tags = patchTags(attrs.tags, body.tags);
      },
      async (r) => this.present(r),
    );
  }

  async delete(caller: Caller, projectId: number, regionId: number, id: string): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const row = await this.records.idleRow(scope, id);
    return this.records.startTask(caller, scope, row, 'delete_snapshot', { snapshot_id: id }, { status: 'deleting' });
  }

  /** An available snapshot of the scope a volume can be made from, or why not (the field `path` at fault). */
  async source(scope: Scope, id: string, path: (string | number)[]): Promise<{ row: ResourceRow; attrs: SnapshotAttrs }> {
    const row = await this.ops.resources.get('snapshot', scope, id);
    if (!row) throw badInput([bodyField(path, `snapshot ${id} does not exist in project ${scope.projectId}, region ${scope.regionId}`)]);
    if (!row.ready || row.status !== 'available') throw new AppError('conflict', `Snapshot ${id} is not available (status ${row.status})`);
    return { row, attrs: attrsOf<SnapshotAttrs>(row) };
  }

  present(row: ResourceRow): Snapshot {
    const attrs = attrsOf<SnapshotAttrs>(row);
    return {
      id: row.id,
      name: row.name,
      description: attrs.description,
      volume_id: row.parent_id!,
      size: Number(row.size_gb),
      status: row.status as Snapshot['status'],
      tags: tagList(attrs.tags),
      project_id: Number(row.project_id),
      region_id: Number(row.region_id),
      region: this.ops.regions.name(Number(row.region_id)),
      creator_task_id: row.creator_task_id ?? '',
      task_id: row.task_id,
      created_at: zonedTime(row.created_at),
      updated_at: zonedTime(row.updated_at),
    };
  }
}
