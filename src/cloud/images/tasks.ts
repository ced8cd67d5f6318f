// Task types of images: create_image (from a volume), download_image (from a URL) and delete_image.
// While the task runs the image is `saving`; it becomes `active` when the task finishes.
import type { TaskContext, TaskType } from '../../platform/tasks/types.js';
import { TaskFailure } from '../../platform/tasks/types.js';
import { attrsOf, ResourceStore } from '../common/resource-store.js';
import { createTask, deleteTask } from '../common/task-plans.js';
import type { QuotaService } from '../quotas/service.js';
import type { ImageAttrs } from './service.js';

// Not in the seed's Limits table: copying a volume is like creating one; a download takes longer.
const FROM_VOLUME = [10_000, 40_000] as const;
const DOWNLOAD = [20_000, 90_000] as const;
const DELETE = [5_000, 15_000] as const;
const GIB = 1024 ** 3;

async function saving({ trx, data, now }: TaskContext): Promise<void> {
  await new ResourceStore(trx).update(data.image_id, { status: 'saving', updated_at: now });
}

export function imageTaskTypes(quotas: QuotaService): TaskType[] {
  const plan = (type: string, durationMs: readonly [number, number]) => ({
    ...createTask(quotas, {
      type,
      durationMs,
      idKey: 'image_id',
      label: 'Image',
      createdKey: 'images',
      quota: (row) => ({ image_count: 1, image_size: row.size_gb * GIB }),
      async finish(row, store) {
        const from = attrsOf<ImageAttrs>(row).volume_id;
        // The volume went while the image was being made from it: there is nothing to copy.
        if (from && !(await store.byId(from))) throw new TaskFailure(`Volume ${from} was deleted before image ${row.id} could be made from it`);
        return { status: 'active' };
      },
    }),
    start: saving,
  });
  return [
    plan('create_image', FROM_VOLUME),
    plan('download_image', DOWNLOAD),
    deleteTask({ type: 'delete_image', durationMs: DELETE, idKey: 'image_id', restore: { status: 'active' } }),
  ];
}
