// Task types of placement groups: delete_servergroup, and moving an instance into a group or out of one.
import type { TaskType } from '../../platform/tasks/types.js';
import { attrsOf, pendingRow, ResourceStore } from '../common/resource-store.js';
import { deleteTask } from '../common/task-plans.js';
import { schedule, type Placed } from './scheduler.js';

// Not in the seed's Limits table: joining a group may move the instance to another host (a migration).
const MOVE = [10_000, 40_000] as const;

export function placementGroupTaskTypes(): TaskType[] {
  return [
    deleteTask({ type: 'delete_servergroup', durationMs: [2_000, 5_000], idKey: 'servergroup_id', restore: {} }),
    {
      type: 'put_into_server_group',
      durationMs: MOVE,
      async complete({ trx, data, now }) {
        const store = new ResourceStore(trx);
        const instance = await pendingRow(store, data.instance_id, 'Instance');
        const host = await schedule(store, instance, data.servergroup_id);
        await store.update(instance.id, {
          attrs: JSON.stringify({ ...attrsOf<Placed>(instance), host, servergroup_id: data.servergroup_id }),
          task_id: null,
          updated_at: now,
        });
      },
      async fail({ trx, data, now }) {
        await new ResourceStore(trx).update(data.instance_id, { task_id: null, updated_at: now });
      },
    },
    {
      type: 'remove_from_server_group',
      durationMs: [2_000, 5_000],
      async complete({ trx, data, now }) {
        const store = new ResourceStore(trx);
        const instance = await pendingRow(store, data.instance_id, 'Instance');
        await store.update(instance.id, { attrs: JSON.stringify({ ...attrsOf<Placed>(instance), servergroup_id: null }), task_id: null, updated_at: now });
      },
      async fail({ trx, data, now }) {
        await new ResourceStore(trx).update(data.instance_id, { task_id: null, updated_at: now });
      },
    },
  ];
}
