// Task types of subnets: create_subnet and delete_subnet.
import type { TaskType } from '../../../platform/tasks/types.js';
import { createTask, deleteTask } from '../../common/task-plans.js';
import type { QuotaService } from '../../quotas/service.js';

const SUBNET_DURATION = [5_000, 10_000] as const;

export function subnetTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    createTask(quotas, {
      type: 'create_subnet',
      durationMs: SUBNET_DURATION,
      idKey: 'subnet_id',
      label: 'Subnet',
      createdKey: 'subnets',
      quota: () => ({ subnet_count: 1 }),
      finish: () => ({ status: 'active' }),
    }),
    deleteTask({ type: 'delete_subnet', durationMs: SUBNET_DURATION, idKey: 'subnet_id', restore: { status: 'active' } }),
  ];
}
