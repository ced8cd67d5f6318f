// The one list of cloud task types the engine knows.
import type { TaskType } from '../platform/tasks/types.js';
import { fileShareTaskTypes } from './file-shares/tasks.js';
import { floatingIpTaskTypes } from './floating-ips/tasks.js';
import { imageTaskTypes } from './images/tasks.js';
import { instanceTaskTypes } from './instances/tasks.js';
import { clusterTaskTypes } from './k8s/tasks.js';
import { loadBalancerTaskTypes } from './load-balancers/tasks.js';
import { networkTaskTypes } from './networks/tasks.js';
import { subnetTaskTypes } from './networks/subnets/tasks.js';
import { placementGroupTaskTypes } from './placement-groups/tasks.js';
import { projectTaskTypes } from './projects/tasks.js';
import type { QuotaService } from './quotas/service.js';
import { reservedIpTaskTypes } from './reserved-ips/tasks.js';
import { routerTaskTypes } from './routers/tasks.js';
import { securityGroupTaskTypes } from './security-groups/tasks.js';
import { snapshotTaskTypes } from './snapshots/tasks.js';
import { volumeTaskTypes } from './volumes/tasks.js';

export function cloudTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    ...projectTaskTypes(),
    ...networkTaskTypes(quotas),
    ...subnetTaskTypes(quotas),
    ...instanceTaskTypes(quotas),
    ...imageTaskTypes(quotas),
    ...volumeTaskTypes(quotas),
    ...snapshotTaskTypes(quotas),
    ...floatingIpTaskTypes(quotas),
    ...reservedIpTaskTypes(quotas),
    ...routerTaskTypes(quotas),
    ...fileShareTaskTypes(quotas),
    ...placementGroupTaskTypes(),
    ...securityGroupTaskTypes(quotas),
    ...clusterTaskTypes(quotas),
    ...loadBalancerTaskTypes(quotas),
  ];
}
