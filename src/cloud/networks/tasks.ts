// Task types of networks: create_network, update_network (v2 PATCH) and delete_network.
import type { TaskType } from '../../platform/tasks/types.js';
import { attrsOf, pendingRow, ResourceStore } from '../common/resource-store.js';
import { createTask, deleteTask } from '../common/task-plans.js';
import type { QuotaService } from '../quotas/service.js';

const NETWORK_DURATION = [5_000, 10_000] as const;

export function networkTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    createTask(quotas, {
      type: 'create_network',
      durationMs: NETWORK_DURATION,
      idKey: 'network_id',
      label: 'Network',
      createdKey: 'networks',
      quota: () => ({ network_count: 1 }),
      finish: () => ({ status: 'active' }),
    }),
    {
      type: 'update_network',
      durationMs: NETWORK_DURATION,
      async complete({ trx, data, now }) {
        const store = new ResourceStore(trx);
        const row = await pendingRow(store, data.network_id, 'Network');
        const attrs = { ...attrsOf<Record<string, unknown>>(row), ...(data.tags ? { tags: data.tags } : {}) };
        await store.update(row.id, { name: data.name ?? row.name, attrs: JSON.stringify(attrs), task_id: null, updated_at: now });
      },
      async fail({ trx, data, now }) {
        await new ResourceStore(trx).update(data.network_id, { task_id: null, updated_at: now });
      },
    },
    deleteTask({
      type: 'delete_network',
      durationMs: NETWORK_DURATION,
      idKey: 'network_id',
      restore: { status: 'active' },
      // A network goes with its subnets: the request refused the delete while any had ports in use.
      async remove(store, id) {
        const subnets = await store.children(id, 'subnet');
        await store.deleteMany([...subnets.map((s) => s.id), id]);
      },
    }),
  ];
}
