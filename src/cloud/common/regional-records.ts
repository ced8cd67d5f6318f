// What the services of regional resources share when reading and changing their records: the
// not-found and busy rules, the paged list, the attribute update and starting a task on an
// existing record. The rules particular to one resource (what may be deleted, which fields an
// update may change, how a record is presented) stay in that resource's service.
import { AppError, notFound } from '../../platform/errors.js';
import type { Operations } from './operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import { attrsOf, ResourceStore, type ListFilter, type ResourceKind, type ResourceRow, type Scope } from './resource-store.js';

/** What a call that started a task answers: the task to poll and the resource it is about. */
export interface TaskIds {
  tasks: string[];
  id: string;
}

export class RegionalRecords {
  /**
   * @param kind the rows this helper reads and writes
   * @param label how messages name the resource ("Network", "Floating IP")
   */
  constructor(
    private readonly ops: Operations,
    readonly kind: ResourceKind,
    readonly label: string,
  ) {}

  /** The caller's record, or a 404 (another client's record is not found either). */
  async row(scope: Scope, id: string): Promise<ResourceRow> {
    const row = await this.ops.resources.get(this.kind, scope, id);
    if (!row) throw notFound(`${this.label} ${id}`);
    return row;
  }

  /** One page of records and the total that match the filter, each presented by `present`. */
  async page<T>(
    scope: Scope,
    filter: ListFilter,
    page: { limit: number; offset: number },
    present: (row: ResourceRow) => Promise<T>,
  ): Promise<{ count: number; results: T[] }> {
    const [count, rows] = await Promise.all([this.ops.resources.count(this.kind, scope, filter), this.ops.resources.list(this.kind, scope, filter, page)]);
    return { count, results: await Promise.all(rows.map(present)) };
  }

  /** The readable record `id`, presented. */
  async get<T>(caller: Caller, projectId: number, regionId: number, id: string, present: (row: ResourceRow) => Promise<T>): Promise<T> {
    const scope = await this.ops.readable(caller, projectId, regionId);
    return present(await this.row(scope, id));
  }

  /**
   * Renames the record (when `name` is given, not null) and lets `change` edit its attributes; updates are
   * immediate, not tasks. Answers the record as it is afterwards.
   */
  async updateAttrs<A, T>(
    caller: Caller,
    projectId: number,
    regionId: number,
    id: string,
    name: string | null | undefined,
    change: (attrs: A) => void,
    present: (row: ResourceRow) => Promise<T>,
  ): Promise<T> {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const row = await this.row(scope, id);
    const attrs = attrsOf<A>(row);
    change(attrs);
    await this.ops.resources.update(id, { name: name ?? row.name, attrs: JSON.stringify(attrs), updated_at: this.ops.clock.now() });
    return present(await this.row(scope, id));
  }

  /** The caller's record that a new task will work on: it must not be busy with another one. */
  async idleRow(scope: Scope, id: string): Promise<ResourceRow> {
    const row = await this.row(scope, id);
    this.requireIdle(row);
    return row;
  }

  /** One task at a time per record: a second one waits for the first to finish. */
  requireIdle(row: ResourceRow, ref: string = row.id): void {
    if (row.task_id) throw new AppError('conflict', `${this.label} ${ref} is busy with task ${row.task_id}; wait for it to finish`);
  }

  /**
   * Starts task `type` on an existing record: the record is marked as held by the task (with the
   * extra `changes`, e.g. a "deleting" status) in the same transaction that writes the task.
   */
  async startTask(caller: Caller, scope: Scope, row: ResourceRow, type: string, data: unknown, changes: Partial<ResourceRow> = {}): Promise<TaskIds> {
    const task = await this.ops.submit(caller, scope, type, data, async (trx, taskId) => {
      await new ResourceStore(trx).update(row.id, { ...changes, task_id: taskId, updated_at: this.ops.clock.now() });
    });
    return { tasks: [task], id: row.id };
  }
}
