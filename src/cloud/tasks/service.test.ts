// Task polls: an unchanged row answers the record made for it before (the same frozen object, whose JSON
// text the serialiser keeps); any change in the row makes a new one.
import { describe, expect, it } from 'vitest';
import { TaskService } from './service.js';
import type { TaskStore, TaskView } from './store.js';

const row: TaskView = {
  task_id: 'a3c0e4a2-0000-4000-8000-000000000001',
  task_type: 'create_network',
  state: 'FINISHED',
  error: null,
  created_at: 1_790_000_000_000,
  updated_at: 1_790_000_001_000,
  finished_at: 1_790_000_001_000,
  created_resources: '{"networks":["n1"]}',
  data: '{}',
  project_id: 1,
  region_id: 76,
  client_id: 7,
  user_id: 9,
  request_id: null,
  acknowledged_at: null,
  acknowledged_by: null,
} as TaskView;

function serviceReading(rows: TaskView[]): TaskService {
  let next = 0;
  const store = { get: async () => rows[Math.min(next++, rows.length - 1)] } as unknown as TaskStore;
  return new TaskService(store, { now: () => 0 } as never, async () => undefined);
}

describe('TaskService.get', () => {
  it('answers the same frozen record while the row is unchanged, and a new one when any column changes', async () => {
    const acknowledged = { ...row, acknowledged_at: 1_790_000_002_000, acknowledged_by: 9 };
    const tasks = serviceReading([row, { ...row }, acknowledged, { ...acknowledged }]);
    const first = await tasks.get(7, row.task_id);
    expect(Object.isFrozen(first)).toBe(true);
    expect(await tasks.get(7, row.task_id)).toBe(first);
    const changed = await tasks.get(7, row.task_id);
    expect(changed).not.toBe(first);
    expect(changed).toMatchObject({ acknowledged_by: 9, acknowledged_at: expect.any(String) });
    expect(await tasks.get(7, row.task_id)).toBe(changed);
  });
});
