// Task types of volume snapshots: create_snapshot and delete_snapshot.
import type { TaskType } from '../../platform/tasks/types.js';
import { TaskFailure } from '../../platform/tasks/types.js';
import { createTask, deleteTask } from '../common/task-plans.js';
import type { QuotaService } from '../quotas/service.js';

// Not in the seed's Limits table: a snapshot copies a volume's changed blocks, quicker than a volume.
const SNAPSHOT_DURATION = [3_000, 10_000] as const;

export function snapshotTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    createTask(quotas, {
      type: 'create_snapshot',
      durationMs: SNAPSHOT_DURATION,
      idKey: 'snapshot_id',
      label: 'Snapshot',
      createdKey: 'snapshots',
      quota: (row) => ({ volume_snapshots_count: 1, volume_snapshots_size: row.size_gb }),
      async finish(row, store) {
        if (!(await store.byId(row.parent_id!))) throw new TaskFailure(`Volume ${row.parent_id} was deleted before snapshot ${row.id} was taken`);
        return { status: 'available' };
      },
    }),
    deleteTask({ type: 'delete_snapshot', durationMs: SNAPSHOT_DURATION, idKey: 'snapshot_id', restore: { status: 'available' } }),
  ];
}
