// Pools, their members and health monitors: every change is a task that holds the balancer, except
// removing a monitor (at once, as the provider answers it). A pool is its listener's default pool or
// stands alone on its balancer (for L7 redirects); its protocol must suit its listener, its members be
// reachable and unique (address and port), its monitor fit its protocol.
import { Static } from 'typebox';
import { AppError, notFound } from '../../platform/errors.js';
import { badInput, bodyField } from '../common/errors.js';
import { pageOf } from '../common/filters.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import { RegionalRecords, type TaskIds } from '../common/regional-records.js';
import { attrsOf, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import { Balancers } from './balancers.js';
import type { LbBuilder } from './builder.js';
import { memberMisfits, monitorMisfits, poolProtocolMisfit } from './checks.js';
import type { LbPlacement } from './placement.js';
import type { MemberInput, MonitorInput, PoolCreateBody, PoolListQuery, PoolPatchBody } from './pool-schemas.js';
import type { LbPresenter } from './present.js';
import { monitorAttrs, type ListenerAttrs, type MemberAttrs, type MonitorAttrs, type PoolAttrs } from './records.js';

/** What a pool update does. */
interface PoolChange {
  name: string;
  attrs: PoolAttrs;
  adds: ResourceRow[];
  removes: ResourceRow[];
}

export class PoolService {
  readonly records: RegionalRecords;

  constructor(
    private readonly ops: Operations,
    private readonly balancers: Balancers,
    private readonly builder: LbBuilder,
    private readonly placement: LbPlacement,
    private readonly presenter: LbPresenter,
  ) {
    this.records = new RegionalRecords(ops, 'lb_pool', 'Pool');
  }

  async create(caller: Caller, projectId: number, regionId: number, body: Static<typeof PoolCreateBody>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const misfits = this.builder.poolChecks(body, []);
    if (misfits.length > 0) throw badInput(misfits);
    const { lb, listener } = await this.home(scope, body.load_balancer_id ?? null, body.listener_id ?? null);
    if (listener) {
      const protocol = poolProtocolMisfit(attrsOf<ListenerAttrs>(listener).protocol, body.protocol, ['protocol']);
      if (protocol.length > 0) throw badInput(protocol);
      const current = (await this.ops.resources.attachedTo(listener.id, 'lb_pool'))[0];
      if (current) throw new AppError('conflict', `Listener ${listener.id} has a default pool already (${current.id})`);
    }
    const rows = await this.builder.pool(scope, this.balancers.reach(lb), listener?.id ?? null, body, [], this.ops.clock.now());
    return this.balancers.startChildTask(caller, scope, lb, 'create_lbpool', { pool_id: rows[0].id }, rows[0].id, (store, taskId) =>
      Balancers.insertHeld(store, rows, taskId),
    );
  }

  /** The balancer (and listener) a new pool goes on: one of the two IDs at least, agreeing when both are given. */
  private async home(scope: Scope, lbId: string | null, listenerId: string | null): Promise<{ lb: ResourceRow; listener: ResourceRow | null }> {
    if (!listenerId) {
      if (!lbId) throw badInput([bodyField(['listener_id'], 'a pool needs its listener_id or its load_balancer_id')]);
      return { lb: await this.balancers.forChange(scope, lbId, 'load_balancer_id'), listener: null };
    }
    const listener = await this.ops.resources.get('lb_listener', scope, listenerId);
    if (!listener)
      throw badInput([bodyField(['listener_id'], `listener ${listenerId} does not exist in project ${scope.projectId}, region ${scope.regionId}`)]);
    if (lbId && lbId !== listener.parent_id)
      throw badInput([bodyField(['load_balancer_id'], `listener ${listenerId} belongs to load balancer ${listener.parent_id}, not ${lbId}`)]);
    return { lb: await this.balancers.forChange(scope, listener.parent_id!), listener };
  }

  async list(caller: Caller, projectId: number, regionId: number, query: Static<typeof PoolListQuery>) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const live = await this.presenter.liveness(scope);
    const rows = (await this.ops.resources.all('lb_pool', scope)).filter(
      (r) =>
        (query.load_balancer_id === undefined || r.parent_id === query.load_balancer_id) &&
        (query.listener_id === undefined || r.owner_id === query.listener_id) &&
        (query.name === undefined || r.name === query.name),
    );
    const page = pageOf(rows, query);
    return {
      count: page.count,
      results: await Promise.all(page.results.map((r) => (query.details ? this.presenter.pool(r, live) : this.presenter.pool(r, live, false)))),
    };
  }

  async get(caller: Caller, projectId: number, regionId: number, id: string) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    return this.presenter.pool(await this.records.row(scope, id), await this.presenter.liveness(scope));
  }

  /**
   * Through the task patch_lbpool: the fields given change, `members` replaces every member, `healthmonitor`
   * the monitor (null removes it). No task when nothing would change.
   */
  async patch(caller: Caller, projectId: number, regionId: number, id: string, body: Static<typeof PoolPatchBody>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const pool = await this.records.row(scope, id);
    const lb = await this.balancers.forChange(scope, pool.parent_id!);
    const plan = await this.patchPlan(scope, lb, pool, body);
    if (!plan) return { tasks: [], id };
    return this.balancers.startChildTask(
      caller,
      scope,
      lb,
      'patch_lbpool',
      { pool_id: id, name: plan.name, attrs: plan.attrs, remove: plan.removes.map((r) => r.id) },
      id,
      async (store, taskId) => {
        await store.update(id, { status: 'PENDING_UPDATE', task_id: taskId });
        for (const row of plan.removes) await store.update(row.id, { status: 'PENDING_DELETE', task_id: taskId });
        await Balancers.insertHeld(store, plan.adds, taskId);
      },
    );
  }

  /** What an update changes: the pool's name and attributes, the member and monitor rows it adds and removes (null: nothing). */
  private async patchPlan(scope: Scope, lb: ResourceRow, pool: ResourceRow, body: Static<typeof PoolPatchBody>): Promise<PoolChange | null> {
    const current = attrsOf<PoolAttrs>(pool);
    const attrs = changedPool(current, body);
    const tree = await this.presenter.poolTree(pool);
    const monitor = this.nextMonitor(tree.monitor, body.healthmonitor);
    await this.requireProtocolFits(pool, attrs);
    const misfits = this.builder.poolChecks({ ...attrs, healthmonitor: monitor, members: body.members ?? [] }, []);
    if (misfits.length > 0) throw badInput(misfits);
    const now = this.ops.clock.now();
    const membersChange = body.members != null && !sameMemberSet(tree.members, body.members);
    const monitorChange =
      body.healthmonitor !== undefined && (monitor ? JSON.stringify(monitorAttrs(monitor)) !== tree.monitor?.attrs : tree.monitor !== undefined);
    const name = body.name ?? pool.name;
    if (name === pool.name && JSON.stringify(attrs) === JSON.stringify(current) && !membersChange && !monitorChange) return null;
    const adds = membersChange ? await this.builder.members(scope, this.balancers.reach(lb), pool.id, body.members!, ['members'], now) : [];
    if (monitorChange && monitor) adds.push(this.builder.monitorRow(scope, pool.id, monitor, now));
    const removes = [...(membersChange ? tree.members : []), ...(monitorChange && tree.monitor ? [tree.monitor] : [])];
    return { name, attrs, adds, removes };
  }

  /** The monitor a pool will have after an update: the new fields, the current type when none is given. */
  private nextMonitor(current: ResourceRow | undefined, input: Static<typeof PoolPatchBody>['healthmonitor']): Static<typeof MonitorInput> | null | undefined {
    if (input === undefined) return current ? (attrsOf<MonitorAttrs>(current) as Static<typeof MonitorInput>) : undefined;
    if (input === null) return null;
    const type = input.type ?? (current ? attrsOf<MonitorAttrs>(current).type : null);
    if (!type) throw badInput([bodyField(['healthmonitor', 'type'], 'the pool has no monitor yet: give its type')]);
    return { ...input, type };
  }

  /** A pool's protocol must suit its listener and the listeners whose L7 policies send traffic to it. */
  private async requireProtocolFits(pool: ResourceRow, next: PoolAttrs): Promise<void> {
    const listeners = [...(pool.owner_id ? [await this.ops.resources.byId(pool.owner_id)] : []), ...(await this.redirecting(pool)).map((p) => p.listener)];
    for (const listener of listeners) {
      if (!listener) continue;
      const misfit = poolProtocolMisfit(attrsOf<ListenerAttrs>(listener).protocol, next.protocol, ['protocol']);
      if (misfit.length > 0) throw badInput(misfit);
    }
  }

  /** The L7 policies (and their listeners) that send traffic to the pool. */
  private async redirecting(pool: ResourceRow): Promise<{ policy: ResourceRow; listener: ResourceRow }[]> {
    const out: { policy: ResourceRow; listener: ResourceRow }[] = [];
    for (const listener of await this.ops.resources.children(pool.parent_id!, 'lb_listener')) {
      for (const policy of await this.ops.resources.children(listener.id, 'l7policy')) {
        if (attrsOf<{ redirect_pool_id: string | null }>(policy).redirect_pool_id === pool.id) out.push({ policy, listener });
      }
    }
    return out;
  }

  async delete(caller: Caller, projectId: number, regionId: number, id: string): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const pool = await this.records.row(scope, id);
    const lb = await this.balancers.forChange(scope, pool.parent_id!);
    const [redirect] = await this.redirecting(pool);
    if (redirect) throw new AppError('conflict', `Pool ${id} receives traffic from L7 policy ${redirect.policy.id}; delete or change that policy first`);
    return this.balancers.startChildTask(caller, scope, lb, 'delete_lbpool', { pool_id: id }, id, (store, taskId) =>
      store.update(id, { status: 'PENDING_DELETE', task_id: taskId }),
    );
  }

  async addMember(caller: Caller, projectId: number, regionId: number, poolId: string, body: Static<typeof MemberInput>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const misfits = memberMisfits(body, []);
    if (misfits.length > 0) throw badInput(misfits);
    const pool = await this.records.row(scope, poolId);
    const lb = await this.balancers.forChange(scope, pool.parent_id!);
    const existing = (await this.ops.resources.children(poolId, 'lb_member')).map((m) => attrsOf<MemberAttrs>(m));
    if (this.builder.duplicateMembers([body], [], existing).length > 0)
      throw new AppError('conflict', `${body.address}:${body.protocol_port} is a member of pool ${poolId} already`);
    const row = await this.builder.member(scope, this.balancers.reach(lb), poolId, body, [], this.ops.clock.now());
    return this.balancers.startChildTask(caller, scope, lb, 'create_lbmember', { member_id: row.id, pool_id: poolId }, row.id, (store, taskId) =>
      Balancers.insertHeld(store, [row], taskId),
    );
  }

  async removeMember(caller: Caller, projectId: number, regionId: number, poolId: string, memberId: string): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const pool = await this.records.row(scope, poolId);
    const member = (await this.ops.resources.children(poolId, 'lb_member')).find((m) => m.id === memberId);
    if (!member) throw notFound(`Member ${memberId} of pool ${poolId}`);
    const lb = await this.balancers.forChange(scope, pool.parent_id!);
    return this.balancers.startChildTask(caller, scope, lb, 'delete_lbmember', { member_id: memberId, pool_id: poolId }, memberId, (store, taskId) =>
      store.update(memberId, { status: 'PENDING_DELETE', task_id: taskId }),
    );
  }

  async addMonitor(caller: Caller, projectId: number, regionId: number, poolId: string, body: Static<typeof MonitorInput>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const pool = await this.records.row(scope, poolId);
    const misfits = monitorMisfits(body, attrsOf<PoolAttrs>(pool).protocol, []);
    if (misfits.length > 0) throw badInput(misfits);
    const lb = await this.balancers.forChange(scope, pool.parent_id!);
    const current = (await this.presenter.poolTree(pool)).monitor;
    if (current) throw new AppError('conflict', `Pool ${poolId} has a health monitor already (${current.id}); delete it first`);
    const row = this.builder.monitorRow(scope, poolId, body, this.ops.clock.now());
    return this.balancers.startChildTask(
      caller,
      scope,
      lb,
      'create_lbpool_health_monitor',
      { healthmonitor_id: row.id, pool_id: poolId },
      row.id,
      (store, taskId) => Balancers.insertHeld(store, [row], taskId),
    );
  }

  /** Removes the pool's monitor at once (the provider answers 204, no task); the balancer must be free. */
  async removeMonitor(caller: Caller, projectId: number, regionId: number, poolId: string): Promise<void> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const pool = await this.records.row(scope, poolId);
    const monitor = (await this.presenter.poolTree(pool)).monitor;
    if (!monitor) throw notFound(`Health monitor of pool ${poolId}`);
    const lb = await this.balancers.forChange(scope, pool.parent_id!);
    const now = this.ops.clock.now();
    await this.ops.transaction(scope, async (trx) => {
      const store = new ResourceStore(trx);
      await store.delete(monitor.id);
      for (const id of [pool.id, lb.id]) await store.update(id, { updated_at: now });
    });
  }
}

/** The pool's attributes after an update: fields left out stay. */
function changedPool(a: PoolAttrs, b: Static<typeof PoolPatchBody>): PoolAttrs {
  const next = { ...a };
  if (b.protocol !== undefined) next.protocol = b.protocol;
  if (b.lb_algorithm !== undefined) next.lb_algorithm = b.lb_algorithm;
  if (b.admin_state_up !== undefined) next.admin_state_up = b.admin_state_up;
  if (b.session_persistence !== undefined) next.session_persistence = b.session_persistence;
  for (const name of ['timeout_client_data', 'timeout_member_connect', 'timeout_member_data', 'secret_id', 'ca_secret_id', 'crl_secret_id'] as const) {
    if (b[name] !== undefined) (next as Record<string, unknown>)[name] = b[name] ?? null;
  }
  return next;
}

/** Whether the members given are those the pool has (address, port, weight and the rest alike). */
function sameMemberSet(rows: ResourceRow[], members: Static<typeof MemberInput>[]): boolean {
  const key = (m: { address: string; protocol_port: number; weight?: number; admin_state_up?: boolean; backup?: boolean }) =>
    `${m.address}:${m.protocol_port}:${m.weight ?? 1}:${m.admin_state_up ?? true}:${m.backup ?? false}`;
  const have = rows.map((r) => key(attrsOf<MemberAttrs>(r))).sort();
  const want = members.map(key).sort();
  return JSON.stringify(have) === JSON.stringify(want);
}
