// Task types of load balancers and of what they hold. A change below a balancer holds it PENDING_UPDATE
// until its task ends; the rows a task made (PENDING_CREATE, not ready) become ACTIVE when it finishes
// and disappear when it fails; rows it removes are PENDING_DELETE meanwhile and come back if it fails.
import type { TaskContext, TaskType } from '../../platform/tasks/types.js';
import { TaskFailure } from '../../platform/tasks/types.js';
import { attrsOf, pendingRow, ResourceStore, type ResourceRow } from '../common/resource-store.js';
import { requireOwnAddresses } from '../networks/service.js';
import type { QuotaService } from '../quotas/service.js';
import type { PolicyAttrs } from './l7.js';
import { below, descendants, type LbAttrs } from './records.js';

// Not in the seed's Limits table. A balancer boots a pair of amphorae (a minute or two on the provider);
// changes below it reconfigure them in seconds; failover and resize rebuild an amphora.
const LB_CREATE = [30_000, 90_000] as const;
const LB_DELETE = [10_000, 30_000] as const;
const LB_REBUILD = [20_000, 60_000] as const;
const CHILD = [2_000, 8_000] as const;

/** The balancer is ACTIVE and free again (unless it went meanwhile). */
async function release(store: ResourceStore, lbId: string, now: number, status = 'ACTIVE'): Promise<void> {
  if (await store.byId(lbId)) await store.update(lbId, { status, task_id: null, updated_at: now });
}

/** Rows the task made become ACTIVE and usable. */
const activateCreated = (store: ResourceStore, { task, now }: TaskContext) =>
  store.updateCreatedBy(task.task_id, { ready: 1, status: 'ACTIVE', task_id: null, updated_at: now });

interface ChildPlan {
  type: string;
  /** The key of the task data that holds the child's ID. */
  idKey: string;
  label: string;
}

function childCreate(plan: ChildPlan & { createdKey: string; finish?: (store: ResourceStore, row: ResourceRow, ctx: TaskContext) => Promise<void> }): TaskType {
  return {
    type: plan.type,
    durationMs: CHILD,
    async complete(ctx) {
      const store = new ResourceStore(ctx.trx);
      const row = await pendingRow(store, ctx.data[plan.idKey], plan.label);
      await plan.finish?.(store, row, ctx);
      await activateCreated(store, ctx);
      await release(store, ctx.data.load_balancer_id, ctx.now);
      return { [plan.createdKey]: [row.id] };
    },
    async fail({ trx, task, data, now }) {
      const store = new ResourceStore(trx);
      await store.deleteCreatedBy(task.task_id);
      await release(store, data.load_balancer_id, now);
    },
  };
}

/** An update: `apply` changes the child; rows named in `data.remove` go, rows the task made stay. */
function childUpdate(plan: ChildPlan & { apply: (store: ResourceStore, row: ResourceRow, ctx: TaskContext) => Promise<void> }): TaskType {
  return {
    type: plan.type,
    durationMs: CHILD,
    async complete(ctx) {
      const store = new ResourceStore(ctx.trx);
      const row = await pendingRow(store, ctx.data[plan.idKey], plan.label);
      await store.deleteMany(ctx.data.remove ?? []);
      await plan.apply(store, row, ctx);
      await activateCreated(store, ctx);
      await store.update(row.id, { status: 'ACTIVE', task_id: null, updated_at: ctx.now });
      await release(store, ctx.data.load_balancer_id, ctx.now);
    },
    async fail({ trx, task, data, now }) {
      const store = new ResourceStore(trx);
      await store.deleteCreatedBy(task.task_id);
      for (const id of [data[plan.idKey], ...(data.remove ?? [])]) await store.update(id, { status: 'ACTIVE', task_id: null, updated_at: now });
      await release(store, data.load_balancer_id, now);
    },
  };
}

function childDelete(plan: ChildPlan & { remove: (store: ResourceStore, row: ResourceRow, ctx: TaskContext) => Promise<void> }): TaskType {
  return {
    type: plan.type,
    durationMs: CHILD,
    async complete(ctx) {
      const store = new ResourceStore(ctx.trx);
      const row = await store.byId(ctx.data[plan.idKey]);
      if (row) await plan.remove(store, row, ctx);
      await release(store, ctx.data.load_balancer_id, ctx.now);
    },
    async fail({ trx, data, now }) {
      const store = new ResourceStore(trx);
      await store.update(data[plan.idKey], { status: 'ACTIVE', task_id: null, updated_at: now });
      await release(store, data.load_balancer_id, now);
    },
  };
}

/** Writes the name and attributes a task carries. */
const rewrite = (store: ResourceStore, row: ResourceRow, { data, now }: TaskContext) =>
  store.update(row.id, { name: data.name ?? row.name, attrs: JSON.stringify(data.attrs), updated_at: now });

/** Numbers a listener's policies 1, 2, ... keeping their order, with `moved` put at its requested position. */
async function renumber(store: ResourceStore, listenerId: string, moved: ResourceRow | null, now: number): Promise<void> {
  const position = (r: ResourceRow) => attrsOf<PolicyAttrs>(r).position;
  const others = (await store.children(listenerId, 'l7policy')).filter((p) => p.id !== moved?.id).sort((a, b) => position(a) - position(b));
  if (moved) others.splice(Math.min(position(moved), others.length + 1) - 1, 0, moved);
  for (const [i, row] of others.entries()) {
    const current = (await store.byId(row.id))!;
    if (position(current) !== i + 1)
      await store.update(row.id, { attrs: JSON.stringify({ ...attrsOf<PolicyAttrs>(current), position: i + 1 }), updated_at: now });
  }
}

/** Removes a row and everything below it. */
async function removeTree(store: ResourceStore, row: ResourceRow): Promise<void> {
  const children = await below(store, [row]);
  await store.deleteMany([...(await below(store, children)).map((r) => r.id), ...children.map((r) => r.id), row.id]);
}

function balancerTasks(quotas: QuotaService): TaskType[] {
  return [
    {
      type: 'create_loadbalancer',
      durationMs: LB_CREATE,
      async complete(ctx) {
        const { trx, task, data, now } = ctx;
        const store = new ResourceStore(trx);
        const lb = await pendingRow(store, data.load_balancer_id, 'Load balancer');
        const vipPort = attrsOf<LbAttrs>(lb).vip_port_id!;
        const newFips = (await store.children(vipPort, 'floatingip')).filter((f) => f.creator_task_id === task.task_id);
        const publicVip = (await store.byId(vipPort))?.parent_id === null && !data.reserved_port_id;
        await quotas.check(ctx, {
          loadbalancer_count: 1,
          floating_count: newFips.length,
          external_ip_count: publicVip ? 1 : 0,
        });
        if (!data.reserved_port_id) await requireOwnAddresses(store, [(await store.byId(vipPort))!]);
        if (data.floatingip_id) {
          if (!(await store.byId(data.floatingip_id)))
            throw new TaskFailure(`Floating IP ${data.floatingip_id} was deleted before load balancer ${lb.id} could take it`);
          await store.update(data.floatingip_id, { parent_id: vipPort, owner_id: lb.id, status: 'ACTIVE', task_id: null, updated_at: now });
        }
        if (data.reserved_port_id) await store.update(data.reserved_port_id, { task_id: null, updated_at: now });
        await activateCreated(store, ctx);
        const made = await descendants(store, lb.id);
        const ids = (kind: string) => made.filter((r) => r.kind === kind).map((r) => r.id);
        return {
          loadbalancers: [lb.id],
          listeners: ids('lb_listener'),
          pools: ids('lb_pool'),
          members: ids('lb_member'),
          healthmonitors: ids('lb_healthmonitor'),
          floatingips: newFips.map((f) => f.id),
        };
      },
      async fail({ trx, task, data, now }) {
        const store = new ResourceStore(trx);
        await store.deleteCreatedBy(task.task_id);
        if (data.floatingip_id) await store.update(data.floatingip_id, { task_id: null, updated_at: now });
        if (data.reserved_port_id) await store.update(data.reserved_port_id, { owner_id: null, task_id: null, updated_at: now });
      },
    },
    {
      type: 'update_loadbalancer',
      durationMs: CHILD,
      async complete(ctx) {
        const store = new ResourceStore(ctx.trx);
        await rewrite(store, await pendingRow(store, ctx.data.load_balancer_id, 'Load balancer'), ctx);
        await release(store, ctx.data.load_balancer_id, ctx.now);
      },
      fail: ({ trx, data, now }) => release(new ResourceStore(trx), data.load_balancer_id, now),
    },
    ...['update_lbmetadata', 'replace_lbmetadata', 'delete_lbmetadata'].map((type): TaskType => ({
      type,
      durationMs: [1_000, 3_000],
      async complete({ trx, data, now }) {
        const store = new ResourceStore(trx);
        const lb = await pendingRow(store, data.load_balancer_id, 'Load balancer');
        await store.update(lb.id, { attrs: JSON.stringify({ ...attrsOf<LbAttrs>(lb), tags: data.tags }), task_id: null, updated_at: now });
      },
      fail: async ({ trx, data, now }) => new ResourceStore(trx).update(data.load_balancer_id, { task_id: null, updated_at: now }),
    })),
    {
      type: 'failover_loadbalancer',
      durationMs: LB_REBUILD,
      complete: ({ trx, data, now }) => release(new ResourceStore(trx), data.load_balancer_id, now),
      fail: ({ trx, data, now }) => release(new ResourceStore(trx), data.load_balancer_id, now, data.status ?? 'ACTIVE'),
    },
    {
      type: 'resize_loadbalancer',
      durationMs: LB_REBUILD,
      async complete({ trx, data, now }) {
        const store = new ResourceStore(trx);
        const lb = await pendingRow(store, data.load_balancer_id, 'Load balancer');
        await store.update(lb.id, { attrs: JSON.stringify({ ...attrsOf<LbAttrs>(lb), flavor_id: data.flavor_id }) });
        await release(store, lb.id, now);
      },
      fail: ({ trx, data, now }) => release(new ResourceStore(trx), data.load_balancer_id, now),
    },
    {
      type: 'delete_loadbalancer',
      durationMs: LB_DELETE,
      async complete({ trx, data, now }) {
        const store = new ResourceStore(trx);
        const lb = await store.byId(data.load_balancer_id);
        if (!lb) return;
        const a = attrsOf<LbAttrs>(lb);
        await store.deleteMany([...(await descendants(store, lb.id)).map((r) => r.id), lb.id]);
        if (!a.vip_port_id) return;
        // The VIP's floating IPs stay in the project, unassigned; a reserved VIP stays, free.
        for (const fip of await store.children(a.vip_port_id, 'floatingip')) {
          await store.update(
            fip.id,
            a.vip_reserved ? { owner_id: null, updated_at: now } : { parent_id: null, owner_id: null, status: 'DOWN', updated_at: now },
          );
        }
        if (a.vip_reserved) await store.update(a.vip_port_id, { owner_id: null, updated_at: now });
        else await store.delete(a.vip_port_id);
      },
      fail: ({ trx, data, now }) => release(new ResourceStore(trx), data.load_balancer_id, now, data.status ?? 'ACTIVE'),
    },
  ];
}

function listenerTasks(): TaskType[] {
  return [
    childCreate({
      type: 'create_lblistener',
      idKey: 'listener_id',
      label: 'Listener',
      createdKey: 'listeners',
      async finish(store, row, { data, now }) {
        if (!data.default_pool_id) return;
        const pool = await store.byId(data.default_pool_id);
        if (!pool || pool.owner_id)
          throw new TaskFailure(`Pool ${data.default_pool_id} was deleted or taken by another listener before listener ${row.id} could use it`);
        await store.update(pool.id, { owner_id: row.id, updated_at: now });
      },
    }),
    childUpdate({ type: 'patch_lblistener', idKey: 'listener_id', label: 'Listener', apply: rewrite }),
    childDelete({
      type: 'delete_lblistener',
      idKey: 'listener_id',
      label: 'Listener',
      async remove(store, row, { data, now }) {
        for (const policy of await store.children(row.id, 'l7policy')) await removeTree(store, policy);
        for (const pool of await store.attachedTo(row.id, 'lb_pool')) {
          if (pool.id === data.pool_id) await removeTree(store, pool);
          else await store.update(pool.id, { owner_id: null, updated_at: now });
        }
        await store.delete(row.id);
      },
    }),
  ];
}

function poolTasks(): TaskType[] {
  return [
    childCreate({ type: 'create_lbpool', idKey: 'pool_id', label: 'Pool', createdKey: 'pools' }),
    childUpdate({ type: 'patch_lbpool', idKey: 'pool_id', label: 'Pool', apply: rewrite }),
    childDelete({ type: 'delete_lbpool', idKey: 'pool_id', label: 'Pool', remove: removeTree }),
    childCreate({ type: 'create_lbmember', idKey: 'member_id', label: 'Member', createdKey: 'members' }),
    childDelete({ type: 'delete_lbmember', idKey: 'member_id', label: 'Member', remove: (store, row) => store.delete(row.id) }),
    childCreate({ type: 'create_lbpool_health_monitor', idKey: 'healthmonitor_id', label: 'Health monitor', createdKey: 'healthmonitors' }),
  ];
}

function l7Tasks(): TaskType[] {
  return [
    childCreate({
      type: 'create_l7policy',
      idKey: 'l7policy_id',
      label: 'L7 policy',
      createdKey: 'l7polices',
      finish: (store, row, { now }) => renumber(store, row.parent_id!, row, now),
    }),
    childUpdate({
      type: 'update_l7policy',
      idKey: 'l7policy_id',
      label: 'L7 policy',
      async apply(store, row, ctx) {
        await rewrite(store, row, ctx);
        await renumber(store, row.parent_id!, (await store.byId(row.id))!, ctx.now);
      },
    }),
    childDelete({
      type: 'delete_l7policy',
      idKey: 'l7policy_id',
      label: 'L7 policy',
      async remove(store, row, { now }) {
        await removeTree(store, row);
        await renumber(store, row.parent_id!, null, now);
      },
    }),
    childCreate({ type: 'create_l7rule', idKey: 'l7rule_id', label: 'L7 rule', createdKey: 'l7rules' }),
    childUpdate({
      type: 'put_l7rule',
      idKey: 'l7rule_id',
      label: 'L7 rule',
      apply: (store, row, { data, now }) => store.update(row.id, { attrs: JSON.stringify(data.attrs), updated_at: now }),
    }),
    childDelete({ type: 'delete_l7rule', idKey: 'l7rule_id', label: 'L7 rule', remove: (store, row) => store.delete(row.id) }),
  ];
}

export function loadBalancerTaskTypes(quotas: QuotaService): TaskType[] {
  return [...balancerTasks(quotas), ...listenerTasks(), ...poolTasks(), ...l7Tasks()];
}
