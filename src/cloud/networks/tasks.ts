// Task types of networks: create_network and delete_network.
import type { TaskType } from '../../platform/tasks/types.js';
import { pendingRow, ResourceStore } from '../common/resource-store.js';
import type { QuotaService } from '../quotas/service.js';

const NETWORK_DURATION = [5_000, 10_000] as const;

export function networkTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    {
      type: 'create_network',
      durationMs: NETWORK_DURATION,
      async complete({ trx, task, data, now }) {
        const store = new ResourceStore(trx);
        await pendingRow(store, data.network_id, 'Network');
        await quotas.check(trx, task.client_id, Number(task.region_id), { network_count: 1 });
        await store.update(data.network_id, { status: 'active', ready: 1, task_id: null, updated_at: now });
        return { networks: [data.network_id] };
      },
      async fail({ trx, data }) {
        await new ResourceStore(trx).delete(data.network_id);
      },
    },
    {
      type: 'delete_network',
      durationMs: NETWORK_DURATION,
      async complete({ trx, data }) {
        const store = new ResourceStore(trx);
        const subnets = await store.children(data.network_id, 'subnet');
        await store.deleteMany([...subnets.map((s) => s.id), data.network_id]);
      },
      async fail({ trx, data, now }) {
        await new ResourceStore(trx).update(data.network_id, { status: 'active', task_id: null, updated_at: now });
      },
    },
  ];
}
