// The durable asynchronous task engine. Tasks live in the database; a step (NEW -> RUNNING, RUNNING ->
// FINISHED | ERROR) is one transaction that moves the task row and does the task type's work together,
// guarded by a lease so that with several processes on one database each step happens exactly once.
// How fast tasks progress is the progression mode: instant, realistic (durations of the real
// operation on the server clock, divided by a speed factor) or manual (the control API advances them).
import { randomUUID, createHash } from 'node:crypto';
import os from 'node:os';
import type { Clock } from '../clock.js';
import type { Caller } from '../auth/caller.js';
import type { Database } from '../db/index.js';
import { transactionEndingWith, writeAtEnd, writeLeftWrites } from '../db/final-statement.js';
import { TaskRegistry } from './registry.js';
import { TaskQueueStore } from './store.js';
import type { Kysely } from 'kysely';
import {
  TaskFailure,
  runChecks,
  type CommitCheck,
  type CreatedResources,
  type NewTask,
  type Submission,
  type TaskPlace,
  type ProgressionMode,
  type TaskContext,
  type TaskRow,
  type TaskType,
} from './types.js';

export interface ModeSetting {
  mode: ProgressionMode;
  speed: number;
}

export interface TaskEngineOptions {
  db: Database;
  clock: Clock;
  types: TaskType[];
  mode: ModeSetting;
  /** How long a claimed task stays reserved for its claimer; a dead claimer's tasks are retaken after it. */
  leaseMs?: number;
  /** How often the queue is looked at even when nothing local is due (other processes, expired leases). */
  pollMs?: number;
  log?: { error(obj: unknown, msg?: string): void };
  /** Wall time for leases (tests substitute it to expire a lease without waiting). */
  wallNow?: () => number;
}

/** Thrown to roll a step's transaction back when the task was no longer ours to move (made once: no stack per step). */
const LEASE_LOST = new Error('lease lost');
/** Thrown to roll back a create whose task failed in instant mode's one transaction (it is then run the usual way). */
const WORK_FAILED = new Error('task work failed');

/** Unexpected (non-TaskFailure) errors are retried this many times before the task is failed. */
const MAX_ATTEMPTS = 5;
const BATCH = 100;

// Leases guard against dead processes, so they run on wall time shared by every process, never on
// the server clock: that clock is per process and can be frozen or moved by the control API.
const systemWallNow = () => Date.now();

export class TaskEngine {
  readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  readonly registry: TaskRegistry;
  private readonly store: TaskQueueStore;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private defaultMode: ModeSetting;
  private readonly typeModes = new Map<string, ModeSetting>();
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private ticking: Promise<void> | null = null;
  private again = false;
  /** Clients with steps running in this process, each with the run of its steps (never rejected). */
  private readonly running = new Map<number, Promise<void>>();
  /** Set while the loop waits for running steps: kick() wakes it to start what became due meanwhile. */
  private wake: (() => void) | null = null;
  private stopped = true;
  /** Set by stop(): a pass in progress hands back the tasks it has not started. */
  private closing = false;
  private readonly wallNow: () => number;

  constructor(private readonly options: TaskEngineOptions) {
    this.registry = new TaskRegistry(options.types);
    this.store = new TaskQueueStore(options.db.kysely, options.db.engine);
    this.leaseMs = options.leaseMs ?? 5000;
    this.pollMs = options.pollMs ?? 1000;
    this.defaultMode = { ...options.mode };
    this.wallNow = options.wallNow ?? systemWallNow;
  }

  // ---- modes ---------------------------------------------------------------------------------------

  modeOf(type: string): ModeSetting {
    return this.typeModes.get(type) ?? this.defaultMode;
  }

  modes(): { default: ModeSetting; task_types: Record<string, ModeSetting> } {
    return { default: { ...this.defaultMode }, task_types: Object.fromEntries(this.typeModes) };
  }

  /** Sets the mode globally (type omitted: also clears per-type settings) or for one task type. */
  async setMode(setting: ModeSetting, type?: string): Promise<void> {
    if (type) this.typeModes.set(type, { ...setting });
    else {
      this.defaultMode = { ...setting };
      this.typeModes.clear();
    }
    // Tasks held for manual advance start flowing when their type leaves manual mode, and vice versa.
    const types = type ? [type] : null;
    await this.store.reschedule(types, setting.mode === 'manual' ? null : this.options.clock.now());
    // Answer once the released tasks have run (instant mode: finished before anyone polls them).
    await this.kick();
  }

  /** Unfinished tasks, and when the next one is due on the server clock (null: none, or all held). */
  async status(): Promise<{ pending: number; nextDue: number | null }> {
    const [pending, nextDue] = await Promise.all([this.store.countPending(), this.store.nextDue()]);
    return { pending, nextDue };
  }

  // ---- enqueueing ----------------------------------------------------------------------------------

  /**
   * The one way a product starts asynchronous work: writes a task of `type` and the rows `write`
   * adds in one transaction (`write` returns the task's data), then runs the task as its mode says.
   * In instant mode the task is run to FINISHED inside that same transaction, so the create answers
   * with its task done, in one transaction instead of two and without a claim: nobody else can see
   * the task before it commits. When the task's work fails, all of it is rolled back and the task is
   * written and run the usual way, which records the failure (ERROR with its reason, or a retry after
   * the lease). `write`'s own errors (a refused request) reach the caller unchanged. The caller's
   * planned failure (fault injection) and request ID go with the task.
   */
  async submit(caller: Caller, place: TaskPlace, type: string, write: (trx: Kysely<any>, taskId: string) => Promise<unknown>): Promise<string> {
    const input: Submission = {
      ...place,
      type,
      clientId: caller.clientId,
      userId: caller.userId,
      plannedFailure: caller.injectedFailure,
      requestId: caller.requestId,
    };
    const instant = this.modeOf(type).mode === 'instant';
    const { db } = this.options;
    if (instant && !input.plannedFailure) {
      const finished = await db.asClient(input.clientId, () => this.submitFinished(input, write));
      if (finished) return finished;
    }
    const taskId = await db.asClient(input.clientId, () =>
      db.kysely.transaction().execute(async (trx) => {
        const id = randomUUID();
        await this.enqueue(trx, { ...input, data: await write(trx, id) }, id);
        return id;
      }),
    );
    if (instant) await this.claimAndStep(taskId, 'end');
    else void this.kick();
    return taskId;
  }

  /** Writes a NEW task inside the caller's transaction (with the resource rows it is about). */
  async enqueue(trx: Kysely<any>, input: NewTask, taskId: string = randomUUID()): Promise<string> {
    await this.store.insert(trx, this.newRow(input, taskId, this.options.clock.now()));
    return taskId;
  }

  private newRow(input: NewTask, taskId: string, now: number): Omit<TaskRow, 'id'> {
    this.registry.get(input.type);
    return {
      task_id: taskId,
      client_id: input.clientId,
      user_id: input.userId,
      project_id: input.projectId,
      region_id: input.regionId,
      task_type: input.type,
      state: 'NEW',
      error: null,
      planned_failure: input.plannedFailure ?? null,
      data: JSON.stringify(input.data ?? {}),
      created_resources: null,
      request_id: input.requestId ?? null,
      due_at: this.modeOf(input.type).mode === 'manual' ? null : now,
      lease_owner: null,
      lease_until: null,
      runner: null,
      attempts: 0,
      created_at: now,
      updated_at: now,
      finished_at: null,
      acknowledged_at: null,
      acknowledged_by: null,
    };
  }

  /**
   * Instant mode's usual case: the rows, the task's work and the task, written once FINISHED, in one
   * transaction. The task row is written after the work, not claimed first and moved after: nobody
   * else can see the task before the transaction commits, and no task type reads its own row (one
   * statement fewer). The checks the work asked to run before the commit (TaskContext.beforeCommit) run
   * after the task row's write, as its last statements. The task row is left for the end of the
   * transaction (writeAtEnd: on PostgreSQL, in one socket write with the last check and the COMMIT).
   * Returns the task ID, or undefined when the task's work or a check failed and the transaction was
   * rolled back.
   */
  private async submitFinished(input: Submission, write: (trx: Kysely<any>, taskId: string) => Promise<unknown>): Promise<string | undefined> {
    const now = this.options.clock.now();
    const taskId = randomUUID();
    try {
      await this.inTransaction(
        async (trx, checks) => {
          const row = this.newRow({ ...input, data: await write(trx, taskId) }, taskId, now);
          let created: CreatedResources;
          try {
            created = await this.work(trx, { ...row, id: 0, attempts: 1 }, now, checks);
          } catch {
            throw WORK_FAILED;
          }
          await writeAtEnd(
            trx,
            this.store.insertQuery(trx, { ...row, ...this.finished(now), attempts: 1, state: 'FINISHED', created_resources: JSON.stringify(created) }),
          );
        },
        () => WORK_FAILED,
      );
      return taskId;
    } catch (error) {
      if (error === WORK_FAILED) return undefined;
      throw error;
    }
  }

  /** What a task's row gets when it finishes, besides its state and created resources. */
  private finished(now: number): Partial<TaskRow> {
    return { finished_at: now, updated_at: now, due_at: null, lease_owner: null, lease_until: null, runner: this.owner };
  }

  /**
   * A task type's work to its end: its start when the task is NEW, then its completion. Returns the
   * created resources; what the work asked to check before the commit is added to `checks`.
   */
  private async work(trx: Kysely<any>, task: TaskRow, now: number, checks: CommitCheck[]): Promise<CreatedResources> {
    const type = this.registry.get(task.task_type);
    if (task.state === 'NEW' && type.start) await type.start(this.context(trx, task, now, checks));
    if (task.planned_failure) throw new TaskFailure(task.planned_failure);
    return (await type.complete(this.context(trx, task, now, checks))) ?? {};
  }

  /**
   * Runs a task this engine has claimed to FINISHED inside `trx`. Throws when the work fails, or
   * LEASE_LOST when the task was no longer ours to move: either way the transaction must roll back.
   */
  private async finishWithin(trx: Kysely<any>, checks: CommitCheck[], task: TaskRow, now: number): Promise<void> {
    const created = await this.work(trx, task, now, checks);
    if (
      !(await this.store.move(trx, task.id, this.owner, task.state, { ...this.finished(now), state: 'FINISHED', created_resources: JSON.stringify(created) }))
    )
      throw LEASE_LOST;
  }

  // ---- manual advance ------------------------------------------------------------------------------

  /** Advances one task, or every pending task (optionally of some types), one step or to the end. */
  async advance(options: { taskId?: string; types?: string[]; to: 'step' | 'end' }): Promise<string[]> {
    const ids = options.taskId ? [options.taskId] : await this.store.pendingIds(options.types ?? this.registry.names(), 100_000);
    const advanced: string[] = [];
    for (const id of ids) if (await this.runOne(id, options.to)) advanced.push(id);
    return advanced;
  }

  private async runOne(taskId: string, to: 'step' | 'end'): Promise<boolean> {
    if (to === 'end') {
      const ran = await this.claimAndFinish(taskId);
      if (ran !== undefined) return ran;
    }
    return this.claimAndStep(taskId, to);
  }

  /** Claims a task, then moves it one step or to the end in transactions of their own (failures recorded). */
  private async claimAndStep(taskId: string, to: 'step' | 'end'): Promise<boolean> {
    const task = await this.store.claimOne(taskId, this.owner, this.wallNow(), this.leaseMs);
    if (!task) return false;
    if (to === 'end') await this.finish(task, this.options.clock.now());
    else await this.step(task, this.options.clock.now(), true);
    return true;
  }

  /**
   * Claims a task and runs it to FINISHED in one transaction: one write of the task row fewer than a
   * claim and a step, and one transaction instead of two (what advancing a held task to its end does).
   * Nobody can take the task over between the claim and the end, since both are in the transaction
   * (SQLite's write lock; PostgreSQL's row lock), so there is no RUNNING step to guard the work.
   * Returns whether a task was claimed, or undefined when the task failed: the transaction then left
   * no trace (not even the claim), and the caller runs it the usual way, which records the failure
   * (ERROR with its reason, or a retry after the lease for an unexpected error).
   */
  private async claimAndFinish(taskId: string): Promise<boolean | undefined> {
    const now = this.options.clock.now();
    try {
      return await this.inTransaction(async (trx, checks) => {
        const task = await this.store.claimOne(taskId, this.owner, this.wallNow(), this.leaseMs, trx);
        if (!task) return false;
        await this.finishWithin(trx, checks, task, now);
        return true;
      });
    } catch {
      return undefined;
    }
  }

  // ---- the loop ------------------------------------------------------------------------------------

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.closing = false;
    this.unsubscribe = this.options.clock.onChange(() => this.kick());
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.closing = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.ticking;
  }

  /** Runs every due step now (and again if woken meanwhile). Resolves when the queue has caught up. */
  kick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.ticking) {
      this.again = true;
      this.wake?.();
      return this.ticking;
    }
    this.ticking = this.tick().finally(() => {
      this.ticking = null;
      this.schedule();
    });
    return this.ticking;
  }

  /**
   * Starts what is due (again while more is), then waits for the steps started. Woken meanwhile (a task
   * submitted, the clock moved), it starts what became due for clients with no step running, so a step
   * that waits for rows another session holds keeps only its own client's tasks waiting. Resolves when
   * nothing is due or running.
   */
  private async tick(): Promise<void> {
    for (;;) {
      this.again = false;
      // Whether the last claim left out clients with steps running: the due tasks it skipped.
      let skipped = false;
      try {
        while (!this.closing) {
          const { claimed, busy } = await this.startDue();
          skipped = busy > 0;
          if (claimed === 0) break;
        }
      } catch (error) {
        this.options.log?.error(error, 'task queue pass failed');
      }
      if (this.again && !this.stopped) continue;
      if (this.running.size === 0) {
        // Those clients' steps ended while the claim ran: what it skipped for them may be due.
        if (skipped && !this.closing) continue;
        return;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        void Promise.all(this.running.values()).then(() => resolve());
      });
      this.wake = null;
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.store.nextDue().then(
      (next) => {
        if (this.stopped) return;
        const wait = next === null ? this.pollMs : Math.max(0, Math.min(this.pollMs, next - this.options.clock.now()));
        this.timer = setTimeout(() => void this.kick(), wait);
        this.timer.unref();
      },
      () => {
        if (this.stopped) return;
        this.timer = setTimeout(() => void this.kick(), this.pollMs);
        this.timer.unref();
      },
    );
  }

  /** One pass: claims what is due and moves each task one step. Returns how many it claimed, once they have moved. */
  async processDue(): Promise<number> {
    const { claimed, runs } = await this.startDue();
    const moved = await Promise.allSettled(runs);
    const failed = moved.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    return claimed;
  }

  /**
   * Claims the due tasks of clients with no step running here, and starts moving each client's one step,
   * in due order; different clients' run side by side. A client's failed step leaves its later tasks of
   * the claim to their leases. Returns how many it claimed, how many clients it left out, and the runs it
   * started.
   */
  private async startDue(): Promise<{ claimed: number; busy: number; runs: Promise<void>[] }> {
    const now = this.options.clock.now();
    const busy = [...this.running.keys()];
    const tasks = await this.store.claimDue(this.owner, now, this.wallNow(), this.leaseMs, BATCH, this.registry.names(), busy);
    const byClient = new Map<number, TaskRow[]>();
    for (const task of tasks) {
      const own = byClient.get(task.client_id);
      if (own) own.push(task);
      else byClient.set(task.client_id, [task]);
    }
    const runs = [...byClient].map(([clientId, own]) => {
      // Behind the client's run if one started while this claim ran (a processDue beside the loop): its order holds.
      const run = (this.running.get(clientId) ?? Promise.resolve()).then(() => this.stepEach(own, now));
      const tracked = run.then(
        () => {},
        (error) => this.options.log?.error(error, 'task queue pass failed'),
      );
      this.running.set(clientId, tracked);
      void tracked.then(() => {
        if (this.running.get(clientId) === tracked) this.running.delete(clientId);
      });
      return run;
    });
    return { claimed: tasks.length, busy: busy.length, runs };
  }

  /** Moves claimed tasks one step each, in order; once the engine is closing, hands back the rest. */
  private async stepEach(tasks: TaskRow[], now: number): Promise<void> {
    for (const task of tasks) {
      if (this.closing) await this.store.release(task.id, this.owner);
      else await this.step(task, now, false);
    }
  }

  // ---- steps ---------------------------------------------------------------------------------------

  /** Moves a claimed task one step; instant mode goes straight to the end. */
  private async step(task: TaskRow, now: number, manual: boolean): Promise<void> {
    const setting = this.modeOf(task.task_type);
    if (task.state === 'RUNNING' || (!manual && setting.mode === 'instant')) return this.finish(task, now);
    const type = this.registry.get(task.task_type);
    let due: number | null = null;
    if (setting.mode === 'instant') due = now;
    else if (setting.mode === 'realistic') due = (task.due_at ?? now) + durationOf(task.task_id, type.durationMs, setting.speed);
    await this.guarded(task, async (trx, checks) => {
      const moved = await this.store.move(trx, task.id, this.owner, 'NEW', {
        state: 'RUNNING',
        due_at: due,
        updated_at: now,
        lease_owner: null,
        lease_until: null,
      });
      if (moved && type.start) await type.start(this.context(trx, task, now, checks));
      return moved;
    });
  }

  /** Runs the task type's work and moves the task to FINISHED, or to ERROR with the failure's reason. */
  private async finish(task: TaskRow, now: number): Promise<void> {
    const type = this.registry.get(task.task_type);
    const done = this.finished(now);
    try {
      await this.guarded(task, async (trx, checks) => {
        if (!(await this.store.move(trx, task.id, this.owner, task.state, { state: 'RUNNING' }))) return false;
        const created = await this.work(trx, task, now, checks);
        return this.store.move(trx, task.id, this.owner, 'RUNNING', { ...done, state: 'FINISHED', created_resources: JSON.stringify(created) });
      });
    } catch (error) {
      const reason = error instanceof TaskFailure ? error.message : task.attempts >= MAX_ATTEMPTS ? `internal error: ${(error as Error).message}` : null;
      if (reason === null) {
        // A transient failure (e.g. the database went away): leave the lease to run out and retry.
        this.options.log?.error(error, `task ${task.task_id} failed unexpectedly; will retry`);
        return;
      }
      await this.guarded(task, async (trx, checks) => {
        if (!(await this.store.move(trx, task.id, this.owner, task.state, { ...done, state: 'ERROR', error: reason, created_resources: null }))) return false;
        await type.fail(this.context(trx, task, now, checks), reason);
        return true;
      });
    }
  }

  /**
   * Runs a step in a transaction that is rolled back when the task was no longer ours to move, within its
   * client's share of the connections (Database.asClient).
   */
  private async guarded(task: TaskRow, work: (trx: Kysely<any>, checks: CommitCheck[]) => Promise<boolean>): Promise<void> {
    try {
      await this.options.db.asClient(task.client_id, () =>
        this.inTransaction(async (trx, checks) => {
          if (!(await work(trx, checks))) throw LEASE_LOST;
        }),
      );
    } catch (error) {
      if (error !== LEASE_LOST) throw error;
    }
  }

  /**
   * Runs `work` in a transaction, then the writes it left for the end (writeAtEnd), then the checks its
   * task work asked for (TaskContext.beforeCommit), then commits; the last check, when it is a statement,
   * goes with the COMMIT, and the writes too when nothing runs between them. A check's failure is thrown
   * as `checkFailed` makes it.
   */
  private inTransaction<T>(work: (trx: Kysely<any>, checks: CommitCheck[]) => Promise<T>, checkFailed: (error: unknown) => unknown = (e) => e): Promise<T> {
    return transactionEndingWith(this.options.db, async (trx) => {
      const checks: CommitCheck[] = [];
      const value = await work(trx, checks);
      // Checks see what the work left for the end written (a check may read the task row): it goes with
      // the COMMIT only when nothing but the last statement runs after it.
      if (!(checks.length === 0 || (checks.length === 1 && typeof checks[0] !== 'function'))) await writeLeftWrites(trx);
      let last;
      try {
        last = await runChecks(trx, checks);
      } catch (error) {
        throw checkFailed(error);
      }
      if (!last) return { value };
      const failed = (error: unknown) => {
        const own = last.failure(error);
        return own && (checkFailed(own) as Error);
      };
      return { value, last: { ...last, failure: failed } };
    });
  }

  private context(trx: Kysely<any>, task: TaskRow, now: number, checks: CommitCheck[]): TaskContext {
    return { trx, task, data: JSON.parse(task.data), now, beforeCommit: (check) => void checks.push(check) };
  }
}

/** A stable duration per task within the type's typical range, divided by the speed factor. */
export function durationOf(taskId: string, [min, max]: readonly [number, number], speed: number): number {
  const hash = createHash('sha1').update(taskId).digest().readUInt32BE(0);
  return Math.round((min + (hash % (max - min + 1))) / speed);
}
