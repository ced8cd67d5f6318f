// Task types of floating IPs: create_fip, update_floating_ip and delete_fip.
import type { TaskType } from '../../platform/tasks/types.js';
import { TaskFailure } from '../../platform/tasks/types.js';
import { attrsOf, pendingRow, ResourceStore } from '../common/resource-store.js';
import { createTask, deleteTask } from '../common/task-plans.js';
import type { QuotaService } from '../quotas/service.js';
import type { FipAttrs } from './service.js';

// Not in the seed's Limits table; floating IPs are network objects, so the network range is used.
const FIP_DURATION = [5_000, 10_000] as const;

export function floatingIpTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    createTask(quotas, {
      type: 'create_fip',
      durationMs: FIP_DURATION,
      idKey: 'floatingip_id',
      label: 'Floating IP',
      createdKey: 'floatingips',
      quota: () => ({ floating_count: 1 }),
      // Created with a port, it is assigned (ACTIVE) at once.
      finish: (row) => ({ status: row.parent_id ? 'ACTIVE' : 'DOWN' }),
    }),
    {
      type: 'update_floating_ip',
      durationMs: FIP_DURATION,
      async complete({ trx, data, now }) {
        const store = new ResourceStore(trx);
        const row = await pendingRow(store, data.floatingip_id, 'Floating IP');
        const changes: Record<string, unknown> = { task_id: null, updated_at: now };
        if (data.port_id !== undefined) {
          if (data.port_id !== null && !(await store.byId(data.port_id)))
            throw new TaskFailure(`Port ${data.port_id} was deleted before the floating IP could be assigned to it`);
          Object.assign(changes, { parent_id: data.port_id, owner_id: data.owner_id, status: data.port_id ? 'ACTIVE' : 'DOWN' });
        }
        if (data.tags !== undefined) changes.attrs = JSON.stringify({ ...attrsOf<FipAttrs>(row), tags: data.tags });
        await store.update(row.id, changes);
      },
      async fail({ trx, data, now }) {
        await new ResourceStore(trx).update(data.floatingip_id, { task_id: null, updated_at: now });
      },
    },
    // Deleting does not change a floating IP's status, so a failed delete has none to restore.
    deleteTask({ type: 'delete_fip', durationMs: FIP_DURATION, idKey: 'floatingip_id', restore: {} }),
  ];
}
