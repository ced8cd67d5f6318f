// Task types of Kubernetes clusters: create, upgrade and delete.
import type { TaskType } from '../../platform/tasks/types.js';
import { attrsOf, pendingRow, ResourceStore } from '../common/resource-store.js';
import type { QuotaService } from '../quotas/service.js';
import type { ClusterAttrs } from './service.js';

// Seed, Limits: creating a cluster typically takes 5 to 15 minutes; upgrades and deletes are alike.
const CLUSTER_DURATION = [300_000, 900_000] as const;

export function clusterTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    {
      type: 'create_k8s_cluster_v2',
      durationMs: CLUSTER_DURATION,
      async complete({ trx, task, data, now }) {
        const store = new ResourceStore(trx);
        await pendingRow(store, data.cluster_id, 'Cluster');
        await quotas.check(trx, task.client_id, Number(task.region_id), { cluster_count: 1 });
        await store.update(data.cluster_id, { status: 'Provisioned', ready: 1, task_id: null, updated_at: now });
        // One create names exactly one resource, as the official client's create_and_poll helpers expect.
        return { k8s_clusters: [data.cluster_id] };
      },
      async fail({ trx, data }) {
        await new ResourceStore(trx).delete(data.cluster_id);
      },
    },
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
    {
      type: 'delete_k8s_cluster_v2',
      durationMs: CLUSTER_DURATION,
      async complete({ trx, data }) {
        await new ResourceStore(trx).delete(data.cluster_id);
      },
      async fail({ trx, data, now }) {
        await new ResourceStore(trx).update(data.cluster_id, { status: 'Provisioned', task_id: null, updated_at: now });
      },
    },
  ];
}
