// SQL of the task queue: enqueue, claim with a lease, guarded state moves. No rules here.
import { type CompiledQuery, sql, type Kysely } from 'kysely';
import type { Engine } from '../db/index.js';
import { insertRow, insertRowQuery } from '../db/templates.js';
import { PENDING_STATES, type TaskRow, type TaskState } from './types.js';

interface Tables {
  tasks: TaskRow;
}

export class TaskQueueStore {
  private readonly db: Kysely<Tables>;

  constructor(
    db: Kysely<any>,
    private readonly engine: Engine,
  ) {
    this.db = db as Kysely<Tables>;
  }

  static in(trx: Kysely<any>): Kysely<Tables> {
    return trx as Kysely<Tables>;
  }

  /** Inserts a task row and returns its queue id (instant mode moves the task in the same transaction). */
  async insert(trx: Kysely<any>, row: Omit<TaskRow, 'id'>): Promise<number> {
    const { rows } = await insertRow<{ id: number }>(trx, 'tasks', row, ['id']);
    return Number(rows[0].id);
  }

  /** The insert of a task row whose queue id nobody reads (a transaction's last writes: instant mode's finished task). */
  insertQuery(trx: Kysely<any>, row: Omit<TaskRow, 'id'>): CompiledQuery {
    return insertRowQuery(trx, 'tasks', row);
  }

  /**
   * Leases up to `limit` due tasks to `owner`, oldest due first. On PostgreSQL, SKIP LOCKED lets several
   * processes claim from the same queue at once without waiting on each other or taking the same row.
   * Only tasks of the known `types`, and of clients other than `exceptClients`.
   */
  async claimDue(
    owner: string,
    now: number,
    wallNow: number,
    leaseMs: number,
    limit: number,
    types?: string[],
    exceptClients: readonly number[] = [],
  ): Promise<TaskRow[]> {
    let due = this.db
      .selectFrom('tasks')
      .select('id')
      .where('state', 'in', PENDING_STATES)
      .where('due_at', 'is not', null)
      .where('due_at', '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', wallNow)]))
      .orderBy('due_at')
      .orderBy('id')
      .limit(limit);
    // An engine only takes the task types it knows (another product's, or a newer version's, stay put).
    if (types) due = due.where('task_type', 'in', types);
    // Clients whose steps this process is running: their next ones wait for those (TaskEngine.startDue).
    if (exceptClients.length > 0) due = due.where('client_id', 'not in', exceptClients);
    if (this.engine === 'postgres') due = due.forUpdate().skipLocked();
    const rows = await this.db
      .updateTable('tasks')
      .set({ lease_owner: owner, lease_until: wallNow + leaseMs, attempts: sql`attempts + 1` })
      .where('id', 'in', due)
      .returningAll()
      .execute();
    return rows.sort((a, b) => Number(a.due_at) - Number(b.due_at) || a.id - b.id);
  }

  /** Leases one pending task (whatever its due time) unless another live owner holds it; in `trx` when given. */
  async claimOne(taskId: string, owner: string, wallNow: number, leaseMs: number, trx?: Kysely<any>): Promise<TaskRow | undefined> {
    return ((trx as Kysely<Tables> | undefined) ?? this.db)
      .updateTable('tasks')
      .set({ lease_owner: owner, lease_until: wallNow + leaseMs, attempts: sql`attempts + 1` })
      .where('task_id', '=', taskId)
      .where('state', 'in', PENDING_STATES)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', wallNow), eb('lease_owner', '=', owner)]))
      .returningAll()
      .executeTakeFirst();
  }

  async pendingIds(types: string[] | null, limit: number): Promise<string[]> {
    let q = this.db.selectFrom('tasks').select('task_id').where('state', 'in', PENDING_STATES).orderBy('id').limit(limit);
    if (types) q = q.where('task_type', 'in', types);
    return (await q.execute()).map((r) => r.task_id);
  }

  /**
   * Moves a task this owner holds from `from` to new values. Returns false when the task is no longer
   * ours or no longer in `from` (another process took it over after our lease ran out): the caller's
   * transaction must then roll back, which is what makes each step happen exactly once.
   */
  async move(trx: Kysely<any>, id: number, owner: string, from: TaskState, values: Partial<TaskRow>): Promise<boolean> {
    const result = await (trx as Kysely<Tables>)
      .updateTable('tasks')
      .set(values)
      .where('id', '=', id)
      .where('state', '=', from)
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async release(id: number, owner: string): Promise<void> {
    await this.db.updateTable('tasks').set({ lease_owner: null, lease_until: null }).where('id', '=', id).where('lease_owner', '=', owner).execute();
  }

  async countPending(): Promise<number> {
    const row = await this.db
      .selectFrom('tasks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('state', 'in', PENDING_STATES)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async nextDue(): Promise<number | null> {
    const row = await this.db
      .selectFrom('tasks')
      .select((eb) => eb.fn.min('due_at').as('next'))
      .where('state', 'in', PENDING_STATES)
      .where('due_at', 'is not', null)
      .executeTakeFirst();
    return row?.next == null ? null : Number(row.next);
  }

  /** Holds (due null) or releases (due now) the pending tasks of some types when the mode changes. */
  async reschedule(types: string[] | null, due: number | null): Promise<void> {
    let q = this.db.updateTable('tasks').set({ due_at: due }).where('state', 'in', PENDING_STATES);
    if (types) q = q.where('task_type', 'in', types);
    q = due === null ? q.where('due_at', 'is not', null) : q.where('due_at', 'is', null);
    await q.execute();
  }
}
