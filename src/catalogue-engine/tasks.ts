// The catalogue engine's cloud tasks. A create writes its record ahead of the task (hidden while it is
// being created) and the task makes it visible when it finishes; a delete removes the record and what is
// nested under it; an update applies the change. A failed task leaves things as they were. One module
// serves every task type the engine's operations carry (`create_loadbalancer`, `delete_lblistener`, ...).
import type { TaskContext, TaskType } from '../platform/tasks/types.js';
import { TaskFailure } from '../platform/tasks/types.js';
import { RecordStore } from './store.js';

export type EngineTaskData =
  | { kind: 'create'; record: number; key: string; createdKey: string; integer: boolean }
  | { kind: 'delete'; record: number }
  | { kind: 'update'; record: number; changes: Record<string, unknown> };

// Seed, Limits: most cloud resources are made in seconds to tens of seconds.
const DURATION = [3_000, 20_000] as const;

export function engineTaskType(type: string): TaskType {
  return {
    type,
    durationMs: DURATION,
    async complete({ trx, data, now }: TaskContext) {
      const work = data as EngineTaskData;
      const store = new RecordStore(trx);
      const row = await store.byId(work.record);
      if (!row) throw new TaskFailure(`the record this task works on was deleted before the task could finish`);
      switch (work.kind) {
        case 'create':
          await store.update(row.id, { state: 'ready', task_id: null, updated_at: now });
          return work.createdKey ? { [work.createdKey]: [work.integer ? Number(work.key) : decodeURIComponent(work.key)] } : {};
        case 'delete':
          await store.deleteTree(Number(row.client_id), row.path);
          return {};
        case 'update':
          await store.update(row.id, { body: JSON.stringify(work.changes), state: 'ready', task_id: null, updated_at: now });
          return {};
      }
    },
    async fail({ trx, data, now }: TaskContext) {
      const work = data as EngineTaskData;
      const store = new RecordStore(trx);
      if (work.kind === 'create') await store.deleteRow(work.record);
      else await store.update(work.record, { state: 'ready', task_id: null, updated_at: now });
    },
  };
}
