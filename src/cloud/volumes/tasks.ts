// Task types of volumes: create_volume and delete_volume.
import type { TaskType } from '../../platform/tasks/types.js';
import { pendingRow, ResourceStore } from '../common/resource-store.js';
import type { QuotaService } from '../quotas/service.js';

// Seed, Limits: creating a volume typically takes 5 to 15 s.
const VOLUME_DURATION = [5_000, 15_000] as const;

export function volumeTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    {
      type: 'create_volume',
      durationMs: VOLUME_DURATION,
      async complete({ trx, task, data, now }) {
        const store = new ResourceStore(trx);
        const row = await pendingRow(store, data.volume_id, 'Volume');
        await quotas.check(trx, task.client_id, Number(task.region_id), { volume_count: 1, volume_size: row.size_gb });
        const attachTo = data.attach_to ? await store.byId(data.attach_to) : undefined;
        await store.update(data.volume_id, { ready: 1, task_id: null, updated_at: now, ...(attachTo ? { owner_id: attachTo.id, status: 'in-use' } : { status: 'available' }) });
        return { volumes: [data.volume_id] };
      },
      async fail({ trx, data }) {
        await new ResourceStore(trx).delete(data.volume_id);
      },
    },
    {
      type: 'delete_volume',
      durationMs: VOLUME_DURATION,
      async complete({ trx, data }) {
        await new ResourceStore(trx).delete(data.volume_id);
      },
      async fail({ trx, data, now }) {
        await new ResourceStore(trx).update(data.volume_id, { status: 'available', task_id: null, updated_at: now });
      },
    },
  ];
}
