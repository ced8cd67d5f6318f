// What every change below a balancer shares: the balancer must be the caller's, ACTIVE and free (the
// provider takes one change at a time per balancer), and the change is a task that holds the balancer
// (PENDING_UPDATE) while it runs.
import type { Kysely } from 'kysely';
import { AppError, notFound } from '../../platform/errors.js';
import { badInput, bodyField } from '../common/errors.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import { RegionalRecords, type TaskIds } from '../common/regional-records.js';
import { attrsOf, ResourceStore, type ResourceKind, type ResourceRow, type Scope } from '../common/resource-store.js';
import type { Reach } from './placement.js';
import type { LbAttrs } from './records.js';

export class Balancers {
  readonly records: RegionalRecords;

  constructor(private readonly ops: Operations) {
    this.records = new RegionalRecords(ops, 'loadbalancer', 'Load balancer');
  }

  /**
   * The balancer a change applies to. Named in a body (`field`), an unknown one is refused (400);
   * reached through a child, it must exist. Either way it must be ACTIVE with no task running (409).
   */
  async forChange(scope: Scope, id: string, field?: string): Promise<ResourceRow> {
    const lb = await this.ops.resources.get('loadbalancer', scope, id);
    if (!lb && field) throw badInput([bodyField([field], `load balancer ${id} does not exist in project ${scope.projectId}, region ${scope.regionId}`)]);
    if (!lb) throw notFound(`Load balancer ${id}`);
    this.records.requireIdle(lb);
    if (lb.status !== 'ACTIVE') throw new AppError('conflict', `Load balancer ${id} is ${lb.status}; it takes changes while ACTIVE`);
    return lb;
  }

  /** A child row of the caller (listener, pool, L7 policy...), or a 404. */
  async child(scope: Scope, kind: ResourceKind, label: string, id: string): Promise<ResourceRow> {
    const row = await this.ops.resources.get(kind, scope, id);
    if (!row) throw notFound(`${label} ${id}`);
    return row;
  }

  reach(lb: ResourceRow): Reach {
    const a = attrsOf<LbAttrs>(lb);
    return { lbId: lb.id, vipNetworkId: a.vip_network_id, connectivity: a.preferred_connectivity };
  }

  /**
   * Starts task `type` on something below balancer `lb`: `write` adds or marks its rows, and the balancer is
   * held (PENDING_UPDATE) by the task, in the same transaction. `id` is what the answer is about.
   */
  async startChildTask(
    caller: Caller,
    scope: Scope,
    lb: ResourceRow,
    type: string,
    data: Record<string, unknown>,
    id: string,
    write: (store: ResourceStore, taskId: string) => Promise<void>,
  ): Promise<TaskIds> {
    const task = await this.ops.submit(caller, scope, type, { load_balancer_id: lb.id, ...data }, async (trx: Kysely<any>, taskId) => {
      const store = new ResourceStore(trx);
      await write(store, taskId);
      await store.update(lb.id, { status: 'PENDING_UPDATE', task_id: taskId, updated_at: this.ops.clock.now() });
    });
    return { tasks: [task], id };
  }

  /** Inserts rows a task makes, held by it. */
  static async insertHeld(store: ResourceStore, rows: ResourceRow[], taskId: string): Promise<void> {
    await store.insert(...rows.map((row) => ({ ...row, creator_task_id: taskId, task_id: taskId })));
  }
}
