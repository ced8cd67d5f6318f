// Task types of floating IPs: create_fip and delete_fip.
import type { TaskType } from '../../platform/tasks/types.js';
import { pendingRow, ResourceStore } from '../common/resource-store.js';
import type { QuotaService } from '../quotas/service.js';

// Not in the seed's Limits table; floating IPs are network objects, so the network range is used.
const FIP_DURATION = [5_000, 10_000] as const;

export function floatingIpTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    {
      type: 'create_fip',
      durationMs: FIP_DURATION,
      async complete({ trx, task, data, now }) {
        const store = new ResourceStore(trx);
        const row = await pendingRow(store, data.floatingip_id, 'Floating IP');
        await quotas.check(trx, task.client_id, Number(task.region_id), { floating_count: 1 });
        await store.update(data.floatingip_id, { ready: 1, task_id: null, status: row.parent_id ? 'ACTIVE' : 'DOWN', updated_at: now });
        return { floatingips: [data.floatingip_id] };
      },
      async fail({ trx, data }) {
        await new ResourceStore(trx).delete(data.floatingip_id);
      },
    },
    {
      type: 'delete_fip',
      durationMs: FIP_DURATION,
      async complete({ trx, data }) {
        await new ResourceStore(trx).delete(data.floatingip_id);
      },
      async fail({ trx, data, now }) {
        await new ResourceStore(trx).update(data.floatingip_id, { task_id: null, updated_at: now });
      },
    },
  ];
}
