// The one list of cloud task types the engine knows.
import type { TaskType } from '../platform/tasks/types.js';
import { instanceTaskTypes } from './instances/tasks.js';
import { clusterTaskTypes } from './k8s/tasks.js';
import { networkTaskTypes } from './networks/tasks.js';
import { subnetTaskTypes } from './networks/subnets/tasks.js';
import { projectTaskTypes } from './projects/tasks.js';
import type { QuotaService } from './quotas/service.js';
import { volumeTaskTypes } from './volumes/tasks.js';
import { floatingIpTaskTypes } from './floating-ips/tasks.js';

export function cloudTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    ...projectTaskTypes(),
    ...networkTaskTypes(quotas),
    ...subnetTaskTypes(quotas),
    ...instanceTaskTypes(quotas),
    ...volumeTaskTypes(quotas),
    ...floatingIpTaskTypes(quotas),
    ...clusterTaskTypes(quotas),
  ];
}
