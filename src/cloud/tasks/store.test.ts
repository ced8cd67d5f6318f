// Task lists compile their SQL once per filter shape (templateOf): filters of one shape with other values,
// and of every shape, must still answer what the filter asks. Each random filter's count and page are
// compared with the rows filtered and sorted here, on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../tests/support/app.js';
import { insertRow } from '../../platform/db/templates.js';
import type { TaskRow, TaskState } from '../../platform/tasks/types.js';
import { type TaskFilter, TaskStore } from './store.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const CLIENT = 424_242;
const OTHER_CLIENT = 434_343;
const STATES: TaskState[] = ['NEW', 'RUNNING', 'FINISHED', 'ERROR'];
const TYPES = ['create_network', 'delete_network', 'create_vm'];

/** A generator of the same numbers every run (mulberry32). */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function taskRow(n: number, clientId: number, next: () => number): Omit<TaskRow, 'id'> {
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)];
  const acknowledged = next() < 0.3;
  return {
    task_id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    client_id: clientId,
    user_id: 1,
    project_id: pick([1, 2, 3]),
    region_id: pick([76, 77]),
    task_type: pick(TYPES),
    state: pick(STATES),
    error: null,
    planned_failure: null,
    data: '{}',
    created_resources: null,
    request_id: null,
    due_at: null,
    lease_owner: null,
    lease_until: null,
    runner: null,
    attempts: 0,
    // Some tasks share a creation time: the list's order then falls back to the id.
    created_at: 1_790_000_000_000 + Math.floor(next() * 40) * 1_000,
    updated_at: 1_790_000_000_000,
    finished_at: null,
    acknowledged_at: acknowledged ? 1_790_000_100_000 : null,
    acknowledged_by: acknowledged ? 1 : null,
  };
}

function randomFilter(next: () => number): TaskFilter {
  const some = <T>(items: readonly T[]) => (next() < 0.5 ? undefined : items.filter(() => next() < 0.5));
  const time = () => (next() < 0.6 ? undefined : 1_790_000_000_000 + Math.floor(next() * 40) * 1_000);
  return {
    projectIds: some([1, 2, 3]),
    regionIds: some([76, 77]),
    states: some(STATES),
    taskType: next() < 0.5 ? undefined : TYPES[Math.floor(next() * TYPES.length)],
    from: time(),
    to: time(),
    acknowledged: next() < 0.5 ? undefined : next() < 0.5,
  };
}

function passes(row: TaskRow, f: TaskFilter): boolean {
  return (
    (!f.projectIds?.length || f.projectIds.includes(row.project_id!)) &&
    (!f.regionIds?.length || f.regionIds.includes(row.region_id!)) &&
    (!f.states?.length || f.states.includes(row.state)) &&
    (!f.taskType || row.task_type === f.taskType) &&
    (f.from === undefined || row.created_at >= f.from) &&
    (f.to === undefined || row.created_at <= f.to) &&
    (f.acknowledged === undefined || (row.acknowledged_at !== null) === f.acknowledged)
  );
}

describe('TaskStore lists', () => {
  it("answers each filter's count and page as the rows filtered here, for filters of one shape with other values and of every shape", async () => {
    const next = random(7);
    const rows: TaskRow[] = [];
    for (let n = 1; n <= 120; n += 1) {
      const row = taskRow(n, n % 5 === 0 ? OTHER_CLIENT : CLIENT, next);
      const { rows: inserted } = await insertRow<{ id: number }>(t.db.kysely, 'tasks', row, ['id']);
      rows.push({ ...row, id: Number(inserted[0].id) });
    }
    const store = new TaskStore(t.db.kysely, t.db.raw.sqlite);
    const mine = rows.filter((row) => row.client_id === CLIENT);
    const shapes = new Set<string>();
    for (let i = 0; i < 150; i += 1) {
      const filter = randomFilter(next);
      const order = next() < 0.5 ? 'asc' : 'desc';
      const page = { limit: 1 + Math.floor(next() * 10), offset: Math.floor(next() * 5) };
      const sign = order === 'asc' ? 1 : -1;
      const expected = mine.filter((row) => passes(row, filter)).sort((a, b) => sign * (a.created_at - b.created_at || a.id - b.id));
      shapes.add(JSON.stringify(Object.entries(filter).map(([name, value]) => [name, Array.isArray(value) ? value.length : value !== undefined])));
      expect(await store.count(CLIENT, filter), JSON.stringify(filter)).toBe(expected.length);
      const listed = await store.list(CLIENT, filter, page, order);
      expect(
        listed.map((row) => row.task_id),
        JSON.stringify({ filter, page, order }),
      ).toEqual(expected.slice(page.offset, page.offset + page.limit).map((row) => row.task_id));
    }
    // The random filters repeated shapes with other values, and covered many shapes.
    expect(shapes.size).toBeGreaterThan(40);
    expect(shapes.size).toBeLessThan(150);
  });
});
