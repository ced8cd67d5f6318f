// Task types of Kubernetes clusters: create, upgrade and delete.
import type { TaskType } from '../../platform/tasks/types.js';
import { attrsOf, ResourceStore } from '../common/resource-store.js';
import { createTask, deleteTask } from '../common/task-plans.js';
import type { QuotaService } from '../quotas/service.js';
import type { ClusterAttrs } from './service.js';

// Seed, Limits: creating a cluster typically takes 5 to 15 minutes; upgrades and deletes are alike.
const CLUSTER_DURATION = [300_000, 900_000] as const;

export function clusterTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    createTask(quotas, {
      type: 'create_k8s_cluster_v2', durationMs: CLUSTER_DURATION, idKey: 'cluster_id', label: 'Cluster',
      // One create names exactly one resource, as the official client's create_and_poll helpers expect.
      createdKey: 'k8s_clusters',
      quota: () => ({ cluster_count: 1 }),
      finish: () => ({ status: 'Provisioned' }),
    }),
    {
      type: 'upgrade_k8s_cluster_v2',
      durationMs: CLUSTER_DURATION,
      async complete({ trx, data, now }) {
        const store = new ResourceStore(trx);
        const row = await store.byId(data.cluster_id);
        if (!row) return;
        const attrs = attrsOf<ClusterAttrs>(row);
        attrs.version = data.version;
        await store.update(row.id, { attrs: JSON.stringify(attrs), task_id: null, updated_at: now });
      },
      async fail({ trx, data, now }) {
        await new ResourceStore(trx).update(data.cluster_id, { task_id: null, updated_at: now });
      },
    },
    deleteTask({ type: 'delete_k8s_cluster_v2', durationMs: CLUSTER_DURATION, idKey: 'cluster_id', restore: { status: 'Provisioned' } }),
  ];
}
