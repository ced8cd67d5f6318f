// Reads of the task queue for the API, scoped by client.
import type SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { listed, QueryTemplate, templateOf } from '../../platform/db/templates.js';
import { fixedShape } from '../../platform/fixed-shape.js';
import type { TaskRow } from '../../platform/tasks/types.js';

interface Tables {
  tasks: TaskRow;
}

export interface TaskFilter {
  projectIds?: number[];
  regionIds?: number[];
  states?: string[];
  taskType?: string;
  from?: number;
  to?: number;
  acknowledged?: boolean;
}

/** The columns a task's answer is made of (the queue's own bookkeeping, leases and due times, is not). */
export const VIEW_COLUMNS = [
  'task_id',
  'task_type',
  'state',
  'error',
  'created_at',
  'updated_at',
  'finished_at',
  'created_resources',
  'data',
  'project_id',
  'region_id',
  'client_id',
  'user_id',
  'request_id',
  'acknowledged_at',
  'acknowledged_by',
] as const satisfies readonly (keyof TaskRow)[];

export type TaskView = Pick<TaskRow, (typeof VIEW_COLUMNS)[number]>;

/** A row of VIEW_COLUMNS' cells, in their order (better-sqlite3's raw mode). */
type ViewCells = unknown[];
const viewOf = fixedShape(VIEW_COLUMNS);

/** A task poll on PostgreSQL (SQLite has its own raw statement): compiled once, see QueryTemplate. */
const TASK_BY_ID = new QueryTemplate(['taskId', 'clientId'], (db, v) =>
  db.selectFrom('tasks').select(VIEW_COLUMNS).where('task_id', '=', v.taskId).where('client_id', '=', v.clientId),
);

/** The filter values a task list's SQL compares to (set or not, each changes the SQL). */
const FILTER_VALUES = ['taskType', 'from', 'to'] as const;

/**
 * A filter's shape: the length of each list, which values are set, and `acknowledged`. Filters of one
 * shape make the same SQL, so a list's count and page are compiled once per shape (templateOf): Kysely
 * building and compiling the two queries was about a fifth of a task list's CPU (bench/README.md).
 */
function shapeOf(clientId: number, f: TaskFilter) {
  const projects = listed('project', f.projectIds ?? []);
  const regions = listed('region', f.regionIds ?? []);
  const states = listed('state', f.states ?? []);
  // A task type filters when not empty, a time when given (what the queries did before they were compiled once).
  const set = FILTER_VALUES.filter((name) => (name === 'taskType' ? Boolean(f.taskType) : f[name] !== undefined));
  const acknowledged = f.acknowledged;
  return {
    key: [projects.names.length, regions.names.length, states.names.length, set.join(','), acknowledged ?? ''].join('\u0000'),
    names: ['clientId', ...projects.names, ...regions.names, ...states.names, ...set],
    values: { clientId, ...projects.values, ...regions.values, ...states.values, taskType: f.taskType, from: f.from, to: f.to },
    /** The tasks that pass the filter, with a template's placeholders for the values. */
    filtered(db: Kysely<Tables>, v: Readonly<Record<string, string>>) {
      const of = (names: string[]) => names.map((name) => v[name]);
      let q = db.selectFrom('tasks').where('client_id', '=', v.clientId as unknown as number);
      if (projects.names.length > 0) q = q.where('project_id', 'in', of(projects.names) as unknown as number[]);
      if (regions.names.length > 0) q = q.where('region_id', 'in', of(regions.names) as unknown as number[]);
      if (states.names.length > 0) q = q.where('state', 'in', of(states.names) as TaskRow['state'][]);
      if (set.includes('taskType')) q = q.where('task_type', '=', v.taskType);
      if (set.includes('from')) q = q.where('created_at', '>=', v.from as unknown as number);
      if (set.includes('to')) q = q.where('created_at', '<=', v.to as unknown as number);
      if (acknowledged !== undefined) q = q.where('acknowledged_at', acknowledged ? 'is not' : 'is', null);
      return q;
    },
  };
}

export class TaskStore {
  private readonly db: Kysely<Tables>;
  /**
   * Polling a task is the hottest read of the cloud API: on SQLite it uses one prepared statement, read
   * as an array of cells. better-sqlite3 builds a named row object far slower: 14 us for `select *`,
   * 4.5 us for these columns raw, on a 2-core machine.
   */
  private readonly byId: SQLite.Statement<[string, number], ViewCells> | undefined;

  constructor(db: Kysely<any>, sqlite?: SQLite.Database) {
    this.db = db as Kysely<Tables>;
    this.byId = sqlite?.prepare<[string, number], ViewCells>(`select ${VIEW_COLUMNS.join(', ')} from tasks where task_id = ? and client_id = ?`).raw();
  }

  async get(clientId: number, taskId: string): Promise<TaskView | undefined> {
    if (!this.byId) return (await TASK_BY_ID.execute<TaskView>(this.db, { taskId, clientId })).rows[0];
    const cells = this.byId.get(taskId, clientId);
    return cells ? (viewOf(cells) as TaskView) : undefined;
  }

  async count(clientId: number, f: TaskFilter): Promise<number> {
    const shape = shapeOf(clientId, f);
    const template = templateOf(`tasks.count\u0000${shape.key}`, shape.names, (db, v) =>
      shape.filtered(db as Kysely<Tables>, v).select((eb) => eb.fn.countAll<number>().as('n')),
    );
    const { rows } = await template.execute<{ n: number | string }>(this.db, shape.values);
    return Number(rows[0].n);
  }

  async list(clientId: number, f: TaskFilter, page: { limit: number; offset: number }, order: 'asc' | 'desc'): Promise<TaskRow[]> {
    const shape = shapeOf(clientId, f);
    const template = templateOf(`tasks.list\u0000${shape.key}\u0000${order}`, [...shape.names, 'limit', 'offset'], (db, v) =>
      shape
        .filtered(db as Kysely<Tables>, v)
        .selectAll()
        .orderBy('created_at', order)
        .orderBy('id', order)
        .limit(v.limit as unknown as number)
        .offset(v.offset as unknown as number),
    );
    return (await template.execute<TaskRow>(this.db, { ...shape.values, ...page })).rows;
  }

  async acknowledge(clientId: number, f: TaskFilter & { taskIds?: string[] }, userId: number, now: number): Promise<number> {
    let q = this.db
      .updateTable('tasks')
      .set({ acknowledged_at: now, acknowledged_by: userId })
      .where('client_id', '=', clientId)
      .where('acknowledged_at', 'is', null);
    if (f.taskIds) q = q.where('task_id', 'in', f.taskIds);
    if (f.projectIds?.length) q = q.where('project_id', 'in', f.projectIds);
    if (f.regionIds?.length) q = q.where('region_id', 'in', f.regionIds);
    const result = await q.executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}
