// Task types of volumes: create, delete (with the snapshots the request named), attach, detach,
// extend and revert to a snapshot.
import type { TaskContext, TaskType } from '../../platform/tasks/types.js';
import { TaskFailure } from '../../platform/tasks/types.js';
import { attrsOf, pendingRow, ResourceStore } from '../common/resource-store.js';
import { createTask, deleteTask } from '../common/task-plans.js';
import type { QuotaService } from '../quotas/service.js';
import type { VolumeAttrs } from './attrs.js';

// Seed, Limits: creating a volume typically takes 5 to 15 s. Attaching, detaching, extending and
// reverting are not listed; they are quicker than a create on the real platform.
const VOLUME_DURATION = [5_000, 15_000] as const;
const VOLUME_ACTION = [2_000, 8_000] as const;

/** Ends the task on the volume, with `changes` (a task that failed gives the status back). */
async function settle({ trx, data, now }: TaskContext, changes: Record<string, unknown>): Promise<void> {
  await new ResourceStore(trx).update(data.volume_id, { ...changes, task_id: null, updated_at: now });
}

/** The status a volume has when no task works on it. */
const restingStatus = (ownerId: string | null) => (ownerId ? 'in-use' : 'available');

export function volumeTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    createTask(quotas, {
      type: 'create_volume',
      durationMs: VOLUME_DURATION,
      idKey: 'volume_id',
      label: 'Volume',
      createdKey: 'volumes',
      quota: (row) => ({ volume_count: 1, volume_size: row.size_gb }),
      // A volume created for an instance is attached to it once made, if that instance still exists.
      async finish(row, store, data, now) {
        const attachTo = data.attach_to ? await store.byId(data.attach_to) : undefined;
        if (!attachTo) return { status: 'available' };
        const attrs = attrsOf<VolumeAttrs>(row);
        attrs.attached_at = now;
        return { owner_id: attachTo.id, status: 'in-use', attrs: JSON.stringify(attrs) };
      },
    }),
    deleteTask({
      type: 'delete_volume',
      durationMs: VOLUME_DURATION,
      idKey: 'volume_id',
      restore: { status: 'available' },
      async remove(store, id) {
        const snapshots = await store.children(id, 'snapshot');
        await store.deleteMany([...snapshots.map((s) => s.id), id]);
      },
    }),
    {
      type: 'attach_volume',
      durationMs: VOLUME_ACTION,
      async complete(ctx) {
        const store = new ResourceStore(ctx.trx);
        const volume = await pendingRow(store, ctx.data.volume_id, 'Volume');
        if (!(await store.byId(ctx.data.instance_id)))
          throw new TaskFailure(`Instance ${ctx.data.instance_id} was deleted before volume ${volume.id} could be attached to it`);
        const attrs = attrsOf<VolumeAttrs>(volume);
        Object.assign(attrs, { attached_at: ctx.now, attachment_tag: ctx.data.attachment_tag });
        await settle(ctx, { owner_id: ctx.data.instance_id, status: 'in-use', attrs: JSON.stringify(attrs) });
      },
      fail: (ctx) => settle(ctx, { status: 'available' }),
    },
    {
      type: 'detach_volume',
      durationMs: VOLUME_ACTION,
      async complete(ctx) {
        const volume = await pendingRow(new ResourceStore(ctx.trx), ctx.data.volume_id, 'Volume');
        const attrs = attrsOf<VolumeAttrs>(volume);
        attrs.attached_at = null;
        await settle(ctx, { owner_id: null, status: 'available', attrs: JSON.stringify(attrs) });
      },
      fail: (ctx) => settle(ctx, { status: 'in-use' }),
    },
    {
      type: 'extend_volume',
      durationMs: VOLUME_ACTION,
      async complete(ctx) {
        const volume = await pendingRow(new ResourceStore(ctx.trx), ctx.data.volume_id, 'Volume');
        await quotas.checkAtCommit(ctx, { volume_size: ctx.data.size - Number(volume.size_gb) });
        await settle(ctx, { size_gb: ctx.data.size, status: restingStatus(volume.owner_id) });
      },
      async fail(ctx) {
        const volume = await new ResourceStore(ctx.trx).byId(ctx.data.volume_id);
        if (volume) await settle(ctx, { status: restingStatus(volume.owner_id) });
      },
    },
    {
      type: 'revert_volume',
      durationMs: VOLUME_ACTION,
      async complete(ctx) {
        const store = new ResourceStore(ctx.trx);
        await pendingRow(store, ctx.data.volume_id, 'Volume');
        if (!(await store.byId(ctx.data.snapshot_id)))
          throw new TaskFailure(`Snapshot ${ctx.data.snapshot_id} was deleted before the volume could be reverted to it`);
        await settle(ctx, { status: 'available' });
      },
      fail: (ctx) => settle(ctx, { status: 'available' }),
    },
  ];
}
