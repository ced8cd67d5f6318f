// The contract between the task engine (product-agnostic) and the modules that implement one task type.
import type { Kysely } from 'kysely';
import { type FinalStatement, runStatement } from '../db/final-statement.js';

export const TASK_STATES = ['NEW', 'RUNNING', 'FINISHED', 'ERROR'] as const;
export type TaskState = (typeof TASK_STATES)[number];
export const PENDING_STATES: TaskState[] = ['NEW', 'RUNNING'];

export type ProgressionMode = 'instant' | 'realistic' | 'manual';

/** What a finished task made: resource-type key -> IDs (the product decides the keys). */
export type CreatedResources = Record<string, (string | number)[]>;

/** One row of the `tasks` table. */
export interface TaskRow {
  id: number;
  task_id: string;
  client_id: number;
  user_id: number;
  project_id: number | null;
  region_id: number | null;
  task_type: string;
  state: TaskState;
  error: string | null;
  planned_failure: string | null;
  /** JSON: the parameters the task type needs to finish its work. */
  data: string;
  /** JSON CreatedResources, set when FINISHED. */
  created_resources: string | null;
  request_id: string | null;
  /** Server-clock time the next step is due; null = held (manual mode). */
  due_at: number | null;
  lease_owner: string | null;
  lease_until: number | null;
  /** Which engine instance finished the task (proves single execution across processes). */
  runner: string | null;
  attempts: number;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  acknowledged_at: number | null;
  acknowledged_by: number | null;
}

/** A reasoned failure: the task ends in ERROR with this message, and nothing it planned is left created. */
export class TaskFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TaskFailure';
  }
}

export interface TaskContext {
  /** The transaction that also moves the task row: work and state change commit together or not at all. */
  trx: Kysely<any>;
  task: TaskRow;
  data: any;
  /** Server-clock time of this step. */
  now: number;
  /**
   * Runs `check` at the end of the step: after its work and the task row's own write, just before the
   * transaction commits, in the order asked. A check that throws fails the step as its work would. For
   * checks that lock a row until the commit (a quota), so that the lock is held for the shortest time.
   */
  beforeCommit(check: CommitCheck): void;
}

/**
 * What TaskContext.beforeCommit runs: a function, or one statement (made when the checks run) that fails
 * when the check fails. The last check of a step, when it is a statement, is sent with the COMMIT in one
 * message on PostgreSQL (platform/db/final-statement.ts).
 */
export type CommitCheck = (() => Promise<void>) | { statement: () => FinalStatement };

/** Runs the checks in order, but for the last one when it is a statement: returned, for the commit to carry. */
export async function runChecks(trx: Kysely<any>, checks: readonly CommitCheck[]): Promise<FinalStatement | undefined> {
  for (const [i, check] of checks.entries()) {
    if (typeof check === 'function') await check();
    else if (i === checks.length - 1) return check.statement();
    else await runStatement(trx, check.statement());
  }
  return undefined;
}

/** One task type: one small module beside the resource it works on. */
export interface TaskType {
  type: string;
  /** Typical duration in ms (min, max) of the real operation, used by the realistic mode. */
  durationMs: readonly [number, number];
  /** Optional work when the task starts running (e.g. mark a record "deleting"). */
  start?(ctx: TaskContext): Promise<void>;
  /** Does the work; returns what was created. Throw TaskFailure to fail with a reason. */
  complete(ctx: TaskContext): Promise<CreatedResources | void>;
  /** Undoes whatever the request wrote ahead of the task, so a failed task leaves nothing created. */
  fail(ctx: TaskContext, reason: string): Promise<void>;
}

export interface NewTask {
  clientId: number;
  userId: number;
  projectId: number | null;
  regionId: number | null;
  type: string;
  data: unknown;
  plannedFailure?: string | null;
  requestId?: string | null;
}

/** Where a task runs (null for what has no project or region). */
export interface TaskPlace {
  projectId: number | null;
  regionId: number | null;
}

/** A task as a product submits it: its data comes from the rows written with it. */
export type Submission = Omit<NewTask, 'data'>;
