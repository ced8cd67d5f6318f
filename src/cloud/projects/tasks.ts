// Task type delete_project: the project's resources go with it.
import type { TaskType } from '../../platform/tasks/types.js';
import { ResourceStore } from '../common/resource-store.js';
import { ProjectStore } from './store.js';

export function projectTaskTypes(): TaskType[] {
  return [
    {
      type: 'delete_project',
      durationMs: [5_000, 20_000],
      async complete({ trx, task, data, now }) {
        await new ResourceStore(trx).deleteProject(task.client_id, data.project_id);
        await new ProjectStore(trx).update(task.client_id, data.project_id, { state: 'DELETED', deleted_at: now, task_id: null });
      },
      async fail({ trx, task, data }) {
        await new ProjectStore(trx).update(task.client_id, data.project_id, { state: 'ACTIVE', task_id: null });
      },
    },
  ];
}
