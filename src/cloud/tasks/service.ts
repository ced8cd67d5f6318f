// Tasks as the API shows them: get, list with the reference's filters, acknowledge.
import { Static } from 'typebox';
import type { Clock } from '../../platform/clock.js';
import { notFound } from '../../platform/errors.js';
import { fixedShape } from '../../platform/fixed-shape.js';
import { deepFreeze } from '../../platform/immutable.js';
import { LruCache } from '../../platform/lru.js';
import { badInput, queryField } from '../common/errors.js';
import { plainTime } from '../common/format.js';
import { CREATED_RESOURCE_KEYS, type TaskListQuery, type TaskSchema } from './schemas.js';
import { type TaskStore, type TaskView, VIEW_COLUMNS } from './store.js';

type Task = Static<typeof TaskSchema>;

/** The pattern admits impossible dates (month 84): those are a 400, not NaN in SQL (a 500 on PostgreSQL). */
function instant(name: string, value: string): number {
  const ms = Date.parse(withZone(value));
  if (Number.isNaN(ms)) throw badInput([queryField(name, 'Input should be a valid ISO 8601 date-time', 'datetime_parsing')]);
  return ms;
}

/** Task answers kept for polls (a few KB each with the row and the JSON text; clients poll the tasks in flight). */
const ANSWERS_KEPT = 500;

export class TaskService {
  /**
   * The last answer for each task polled lately, with the row it was made from. A client polls a task
   * until it ends, and while its row is unchanged the answer is the same frozen record, whose JSON text
   * the response serialiser keeps: the presentation and serialisation were half of a poll's CPU. The
   * row is still read every time (another process may have moved the task), and compared whole.
   */
  private readonly answers = new LruCache<{ row: TaskView; task: Task }>(ANSWERS_KEPT);

  constructor(
    private readonly store: TaskStore,
    private readonly clock: Clock,
    /** Refuses (404) a project that is not the client's, or a region that does not exist. */
    private readonly checkPlace: (clientId: number, projectId: number, regionId: number) => Promise<unknown>,
  ) {}

  async get(clientId: number, taskId: string): Promise<Task> {
    const row = await this.store.get(clientId, taskId);
    if (!row) throw notFound(`Task ${taskId}`);
    const kept = this.answers.get(taskId);
    if (kept && sameView(kept.row, row)) return kept.task;
    const task = deepFreeze(present(row));
    this.answers.set(taskId, { row, task }, 1);
    return task;
  }

  async list(clientId: number, q: Static<typeof TaskListQuery>) {
    const filter = {
      projectIds: q.project_id,
      regionIds: q.region_id,
      states: q.state,
      taskType: q.task_type,
      from: q.from_timestamp ? instant('from_timestamp', q.from_timestamp) : undefined,
      to: q.to_timestamp ? instant('to_timestamp', q.to_timestamp) : undefined,
      acknowledged: q.is_acknowledged,
    };
    const order = q.order_by ?? q.sorting ?? 'asc';
    const [count, rows] = await Promise.all([this.store.count(clientId, filter), q.limit === 0 ? [] : this.store.list(clientId, filter, q, order)]);
    return { count, results: rows.map(present) };
  }

  async active(clientId: number, projectId: number, regionId: number) {
    await this.checkPlace(clientId, projectId, regionId);
    const filter = { projectIds: [projectId], regionIds: [regionId], states: ['NEW', 'RUNNING'] };
    const [count, rows] = await Promise.all([this.store.count(clientId, filter), this.store.list(clientId, filter, { limit: 1000, offset: 0 }, 'asc')]);
    return { count, results: rows.map(present) };
  }

  async acknowledgeOne(clientId: number, userId: number, taskId: string): Promise<Task> {
    await this.get(clientId, taskId);
    await this.store.acknowledge(clientId, { taskIds: [taskId] }, userId, this.clock.now());
    return this.get(clientId, taskId);
  }

  /** Acknowledges the caller's tasks among `taskIds` (others' IDs are ignored, as unknown ones are). */
  async acknowledgeMany(clientId: number, userId: number, taskIds: string[]): Promise<void> {
    if (taskIds.length > 0) await this.store.acknowledge(clientId, { taskIds }, userId, this.clock.now());
  }

  async acknowledgeAll(clientId: number, userId: number, projectId?: number, regionId?: number): Promise<void> {
    await this.store.acknowledge(
      clientId,
      { projectIds: projectId ? [projectId] : undefined, regionIds: regionId ? [regionId] : undefined },
      userId,
      this.clock.now(),
    );
  }
}

function sameView(a: TaskView, b: TaskView): boolean {
  for (const column of VIEW_COLUMNS) if (a[column] !== b[column]) return false;
  return true;
}

/** Timestamps without a zone are UTC, as the API prints them. */
function withZone(text: string): string {
  const full = /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00` : text.replace(' ', 'T');
  return /(Z|[+-]\d\d:?\d\d)$/i.test(full) ? full : `${full}Z`;
}

// Every kind of created resource, one fixed-shape literal per task read (Object.fromEntries over the 36
// kinds took 7 us of each GET).
const createdResources = fixedShape(CREATED_RESOURCE_KEYS);

export function present(row: TaskView): Task {
  let created: Task['created_resources'] = null;
  if (row.state === 'FINISHED' && row.created_resources) {
    const made = JSON.parse(row.created_resources) as Record<string, (string | number)[]>;
    created = createdResources(CREATED_RESOURCE_KEYS.map((kind) => made[kind] ?? [])) as Task['created_resources'];
  }
  return {
    id: row.task_id,
    task_type: row.task_type,
    state: row.state,
    error: row.error,
    created_on: plainTime(row.created_at),
    updated_on: plainTime(row.updated_at),
    finished_on: plainTime(row.finished_at),
    created_resources: created,
    data: JSON.parse(row.data),
    detailed_state: row.state === 'FINISHED' || row.state === 'ERROR' ? row.state : null,
    project_id: row.project_id === null ? null : Number(row.project_id),
    region_id: row.region_id === null ? null : Number(row.region_id),
    client_id: Number(row.client_id),
    user_id: Number(row.user_id),
    user_client_id: Number(row.client_id),
    request_id: row.request_id,
    acknowledged_at: plainTime(row.acknowledged_at),
    acknowledged_by: row.acknowledged_by === null ? null : Number(row.acknowledged_by),
    job_id: null,
    schedule_id: null,
    lifecycle_policy_id: null,
  };
}
