// Listeners: created, updated (v2) and deleted through tasks that hold their balancer; renamed at once
// (v1). A listener takes a port of its transport (TCP or UDP) no other listener of the balancer has, and
// a default pool of the same balancer whose protocol it can send traffic to.
import { Static } from 'typebox';
import { AppError } from '../../platform/errors.js';
import { badInput, bodyField } from '../common/errors.js';
import { pageOf } from '../common/filters.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import { RegionalRecords, type TaskIds } from '../common/regional-records.js';
import { attrsOf, type ResourceRow, type Scope } from '../common/resource-store.js';
import { Balancers } from './balancers.js';
import { MAX_LISTENERS, type LbBuilder } from './builder.js';
import { canonicalCidrs, listenerMisfits, poolProtocolMisfit } from './checks.js';
import type { ListenerProtocol } from './enums.js';
import type { ListenerCreateBody, ListenerListQuery, ListenerPatchBody } from './listener-schemas.js';
import type { LbPresenter } from './present.js';
import type { ListenerAttrs, PoolAttrs } from './records.js';

export class ListenerService {
  readonly records: RegionalRecords;

  constructor(
    private readonly ops: Operations,
    private readonly balancers: Balancers,
    private readonly builder: LbBuilder,
    private readonly presenter: LbPresenter,
  ) {
    this.records = new RegionalRecords(ops, 'lb_listener', 'Listener');
  }

  async create(caller: Caller, projectId: number, regionId: number, body: Static<typeof ListenerCreateBody>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const misfits = listenerMisfits(body, []);
    if (misfits.length > 0) throw badInput(misfits);
    const lb = await this.balancers.forChange(scope, body.load_balancer_id, 'load_balancer_id');
    const siblings = await this.ops.resources.children(lb.id, 'lb_listener');
    if (body.protocol !== 'PROMETHEUS' && siblings.filter((l) => attrsOf<ListenerAttrs>(l).protocol !== 'PROMETHEUS').length >= MAX_LISTENERS) {
      throw new AppError('conflict', `Load balancer ${lb.id} has ${MAX_LISTENERS} listeners, the most it holds`);
    }
    this.builder.requireFreePort(siblings, body.protocol, body.protocol_port);
    if (body.default_pool_id) await this.requireDefaultPool(scope, lb, body.default_pool_id, body.protocol);
    const row = this.builder.listenerRow(scope, lb.id, body, this.ops.clock.now());
    return this.balancers.startChildTask(
      caller,
      scope,
      lb,
      'create_lblistener',
      { listener_id: row.id, default_pool_id: body.default_pool_id ?? null },
      row.id,
      (store, taskId) => Balancers.insertHeld(store, [row], taskId),
    );
  }

  /** A pool of the same balancer, no listener's default pool yet, of a protocol the listener sends to. */
  private async requireDefaultPool(scope: Scope, lb: ResourceRow, poolId: string, protocol: ListenerProtocol): Promise<void> {
    const pool = await this.ops.resources.get('lb_pool', scope, poolId);
    if (!pool || pool.parent_id !== lb.id) throw badInput([bodyField(['default_pool_id'], `pool ${poolId} is not a pool of load balancer ${lb.id}`)]);
    if (pool.owner_id) throw new AppError('conflict', `Pool ${poolId} is the default pool of listener ${pool.owner_id} already`);
    const misfit = poolProtocolMisfit(protocol, attrsOf<PoolAttrs>(pool).protocol, ['default_pool_id']);
    if (misfit.length > 0) throw badInput(misfit);
  }

  async list(caller: Caller, projectId: number, regionId: number, query: Static<typeof ListenerListQuery>) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const live = await this.presenter.liveness(scope);
    const rows = (await this.ops.resources.all('lb_listener', scope)).filter(
      (r) => (query.load_balancer_id === undefined || r.parent_id === query.load_balancer_id) && (query.name === undefined || r.name === query.name),
    );
    const page = pageOf(rows, query);
    return { count: page.count, results: await Promise.all(page.results.map((r) => this.presenter.listener(r, live, query.show_stats))) };
  }

  async get(caller: Caller, projectId: number, regionId: number, id: string, query: { show_stats?: boolean } = {}) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    return this.presenter.listener(await this.records.row(scope, id), await this.presenter.liveness(scope), query.show_stats ?? false);
  }

  /** v1: a new name, at once. */
  async rename(caller: Caller, projectId: number, regionId: number, id: string, name: string) {
    await this.records.updateAttrs(
      caller,
      projectId,
      regionId,
      id,
      name,
      () => {},
      async () => null,
    );
    return this.get(caller, projectId, regionId, id);
  }

  /** v2: through the task patch_lblistener; no task when nothing would change. */
  async patch(caller: Caller, projectId: number, regionId: number, id: string, body: Static<typeof ListenerPatchBody>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const listener = await this.records.row(scope, id);
    const lb = await this.balancers.forChange(scope, listener.parent_id!);
    const current = attrsOf<ListenerAttrs>(listener);
    const proposed = changed(current, body);
    const misfits = listenerMisfits(proposed, []);
    if (misfits.length > 0) throw badInput(misfits);
    const next = { ...proposed, allowed_cidrs: canonicalCidrs(proposed.allowed_cidrs) };
    const name = body.name ?? listener.name;
    if (name === listener.name && JSON.stringify(next) === JSON.stringify(current)) return { tasks: [], id };
    return this.balancers.startChildTask(caller, scope, lb, 'patch_lblistener', { listener_id: id, name, attrs: next }, id, (store, taskId) =>
      store.update(id, { status: 'PENDING_UPDATE', task_id: taskId }),
    );
  }

  async delete(caller: Caller, projectId: number, regionId: number, id: string, query: { delete_default_pool?: boolean }): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const listener = await this.records.row(scope, id);
    const lb = await this.balancers.forChange(scope, listener.parent_id!);
    const withPool = query.delete_default_pool ?? false;
    const pool = (await this.ops.resources.attachedTo(id, 'lb_pool'))[0];
    if (withPool && pool) await this.requireUnredirected(lb, pool, id);
    return this.balancers.startChildTask(
      caller,
      scope,
      lb,
      'delete_lblistener',
      { listener_id: id, pool_id: withPool ? (pool?.id ?? null) : null },
      id,
      (store, taskId) => store.update(id, { status: 'PENDING_DELETE', task_id: taskId }),
    );
  }

  /** A pool another listener's L7 policy sends traffic to cannot go. */
  private async requireUnredirected(lb: ResourceRow, pool: ResourceRow, goingListener: string): Promise<void> {
    for (const listener of await this.ops.resources.children(lb.id, 'lb_listener')) {
      if (listener.id === goingListener) continue;
      const policy = (await this.ops.resources.children(listener.id, 'l7policy')).find(
        (p) => attrsOf<{ redirect_pool_id: string | null }>(p).redirect_pool_id === pool.id,
      );
      if (policy)
        throw new AppError('conflict', `Pool ${pool.id} receives traffic from L7 policy ${policy.id} of listener ${listener.id}; delete that policy first`);
    }
  }
}

/** The listener's attributes after a v2 update: fields left out stay, null clears where it may. */
function changed(a: ListenerAttrs, b: Static<typeof ListenerPatchBody>): ListenerAttrs {
  const next = { ...a };
  if (b.admin_state_up !== undefined) next.admin_state_up = b.admin_state_up;
  if (b.allowed_cidrs !== undefined) next.allowed_cidrs = b.allowed_cidrs;
  if (b.connection_limit !== undefined) next.connection_limit = b.connection_limit === -1 ? 100_000 : b.connection_limit;
  if (b.secret_id !== undefined) next.secret_id = b.secret_id;
  if (b.sni_secret_id !== undefined) next.sni_secret_id = b.sni_secret_id;
  if (b.user_list !== undefined) next.user_list = b.user_list ?? [];
  for (const name of ['timeout_client_data', 'timeout_member_connect', 'timeout_member_data'] as const) if (b[name] !== undefined) next[name] = b[name] ?? null;
  return next;
}
