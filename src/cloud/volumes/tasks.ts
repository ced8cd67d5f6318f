// Task types of volumes: create_volume and delete_volume.
import type { TaskType } from '../../platform/tasks/types.js';
import { createTask, deleteTask } from '../common/task-plans.js';
import type { QuotaService } from '../quotas/service.js';

// Seed, Limits: creating a volume typically takes 5 to 15 s.
const VOLUME_DURATION = [5_000, 15_000] as const;

export function volumeTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    createTask(quotas, {
      type: 'create_volume', durationMs: VOLUME_DURATION, idKey: 'volume_id', label: 'Volume', createdKey: 'volumes',
      quota: (row) => ({ volume_count: 1, volume_size: row.size_gb }),
      // A volume created for an instance is attached to it once made, if that instance still exists.
      async finish(_row, store, data) {
        const attachTo = data.attach_to ? await store.byId(data.attach_to) : undefined;
        return attachTo ? { owner_id: attachTo.id, status: 'in-use' } : { status: 'available' };
      },
    }),
    deleteTask({ type: 'delete_volume', durationMs: VOLUME_DURATION, idKey: 'volume_id', restore: { status: 'available' } }),
  ];
}
