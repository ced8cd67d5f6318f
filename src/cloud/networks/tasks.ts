// Task types of networks: create_network and delete_network.
import type { TaskType } from '../../platform/tasks/types.js';
import { createTask, deleteTask } from '../common/task-plans.js';
import type { QuotaService } from '../quotas/service.js';

const NETWORK_DURATION = [5_000, 10_000] as const;

export function networkTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    createTask(quotas, {
      type: 'create_network', durationMs: NETWORK_DURATION, idKey: 'network_id', label: 'Network', createdKey: 'networks',
      quota: () => ({ network_count: 1 }),
      finish: () => ({ status: 'active' }),
    }),
    deleteTask({
      type: 'delete_network', durationMs: NETWORK_DURATION, idKey: 'network_id',
      restore: { status: 'active' },
      // A network goes with its subnets: the request refused the delete while any had ports in use.
      async remove(store, id) {
        const subnets = await store.children(id, 'subnet');
        await store.deleteMany([...subnets.map((s) => s.id), id]);
      },
    }),
  ];
}
