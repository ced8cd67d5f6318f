// Task types of floating IPs: create_fip and delete_fip.
import type { TaskType } from '../../platform/tasks/types.js';
import { createTask, deleteTask } from '../common/task-plans.js';
import type { QuotaService } from '../quotas/service.js';

// Not in the seed's Limits table; floating IPs are network objects, so the network range is used.
const FIP_DURATION = [5_000, 10_000] as const;

export function floatingIpTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    createTask(quotas, {
      type: 'create_fip', durationMs: FIP_DURATION, idKey: 'floatingip_id', label: 'Floating IP', createdKey: 'floatingips',
      quota: () => ({ floating_count: 1 }),
      // Created with a port, it is assigned (ACTIVE) at once.
      finish: (row) => ({ status: row.parent_id ? 'ACTIVE' : 'DOWN' }),
    }),
    // Deleting does not change a floating IP's status, so a failed delete has none to restore.
    deleteTask({ type: 'delete_fip', durationMs: FIP_DURATION, idKey: 'floatingip_id', restore: {} }),
  ];
}
