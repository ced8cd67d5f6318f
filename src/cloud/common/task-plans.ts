// The two task plans most regional resources follow. Create: the row written by the request
// becomes ready once the client's quota allows it, or disappears when the task fails. Delete: the
// row goes when the task finishes, or gets its status back when the task fails. What differs per
// resource (task type, data key, quota, statuses) is passed in; resources whose tasks do more
// (instances, k8s upgrades) write their task types out in full.
import type { TaskType } from '../../platform/tasks/types.js';
import type { QuotaDelta, QuotaService } from '../quotas/service.js';
import { pendingRow, ResourceStore, type ResourceRow } from './resource-store.js';

interface PlanBase {
  type: string;
  durationMs: readonly [number, number];
  /** The key of the task data that holds the resource's ID (`network_id`, `floatingip_id`). */
  idKey: string;
}

export interface CreatePlan extends PlanBase {
  /** How a failure message names the resource ("Network"). */
  label: string;
  /** The key of `created_resources`, exactly as the reference spells it (`networks`). */
  createdKey: string;
  /** What the finished resource counts against the client's quotas. */
  quota: (row: ResourceRow) => QuotaDelta;
  /** The fields the finished row gets besides ready, task_id and updated_at (at least its status). */
  finish: (row: ResourceRow, store: ResourceStore, data: any, now: number) => Promise<Partial<ResourceRow>> | Partial<ResourceRow>;
}

export function createTask(quotas: QuotaService, plan: CreatePlan): TaskType {
  return {
    type: plan.type,
    durationMs: plan.durationMs,
    async complete(ctx) {
      const { trx, data, now } = ctx;
      const id: string = data[plan.idKey];
      const store = new ResourceStore(trx);
      const row = await pendingRow(store, id, plan.label);
      await quotas.checkAtCommit(ctx, plan.quota(row));
      // The step's last write: left for the end of the transaction, with the task row's and the COMMIT.
      await store.updateAtEnd(id, { ...(await plan.finish(row, store, data, now)), ready: 1, task_id: null, updated_at: now });
      return { [plan.createdKey]: [id] };
    },
    async fail({ trx, data }) {
      await new ResourceStore(trx).delete(data[plan.idKey]);
    },
  };
}

export interface DeletePlan extends PlanBase {
  /** The fields a failed delete restores besides task_id and updated_at (usually the status). */
  restore: Partial<ResourceRow>;
  /** Removes what goes with the resource, when that is more than its own row. */
  remove?: (store: ResourceStore, id: string) => Promise<void>;
}

export function deleteTask(plan: DeletePlan): TaskType {
  return {
    type: plan.type,
    durationMs: plan.durationMs,
    async complete({ trx, data }) {
      const store = new ResourceStore(trx);
      await (plan.remove ? plan.remove(store, data[plan.idKey]) : store.delete(data[plan.idKey]));
    },
    async fail({ trx, data, now }) {
      await new ResourceStore(trx).update(data[plan.idKey], { ...plan.restore, task_id: null, updated_at: now });
    },
  };
}
