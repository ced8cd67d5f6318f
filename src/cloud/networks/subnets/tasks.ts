// Task types of subnets: create_subnet and delete_subnet.
import type { TaskType } from '../../../platform/tasks/types.js';
import { pendingRow, ResourceStore } from '../../common/resource-store.js';
import type { QuotaService } from '../../quotas/service.js';

const SUBNET_DURATION = [5_000, 10_000] as const;

export function subnetTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    {
      type: 'create_subnet',
      durationMs: SUBNET_DURATION,
      async complete({ trx, task, data, now }) {
        const store = new ResourceStore(trx);
        await pendingRow(store, data.subnet_id, 'Subnet');
        await quotas.check(trx, task.client_id, Number(task.region_id), { subnet_count: 1 });
        await store.update(data.subnet_id, { status: 'active', ready: 1, task_id: null, updated_at: now });
        return { subnets: [data.subnet_id] };
      },
      async fail({ trx, data }) {
        await new ResourceStore(trx).delete(data.subnet_id);
      },
    },
    {
      type: 'delete_subnet',
      durationMs: SUBNET_DURATION,
      async complete({ trx, data }) {
        await new ResourceStore(trx).delete(data.subnet_id);
      },
      async fail({ trx, data, now }) {
        await new ResourceStore(trx).update(data.subnet_id, { status: 'active', task_id: null, updated_at: now });
      },
    },
  ];
}
