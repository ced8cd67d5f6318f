// Task types of instances: create_vm, delete_vm, the power actions, resize_vm, and attaching and
// detaching network interfaces (reserved fixed IPs among them: taken and let go of, never deleted unless
// a delete names them).
import type { TaskContext, TaskType } from '../../platform/tasks/types.js';
import { TaskFailure } from '../../platform/tasks/types.js';
import { attrsOf, pendingRow, ResourceStore, type ResourceRow } from '../common/resource-store.js';
import type { QuotaService } from '../quotas/service.js';
import type { VolumeAttrs } from '../volumes/attrs.js';
import { requireOwnAddresses } from '../networks/service.js';
import { schedule } from '../placement-groups/scheduler.js';
import type { PortAttrs } from './builder.js';
import { flavorById } from './flavors.js';
import type { InstanceAttrs } from './service.js';

// Seed, Limits: create VM typically 15 to 30 s, delete VM 15 to 70 s. Power actions, resizing and
// interface changes are not listed; they take seconds on the real platform (a resize, a minute).
const CREATE = [15_000, 30_000] as const;
const DELETE = [15_000, 70_000] as const;
const POWER = [3_000, 10_000] as const;
const RESIZE = [20_000, 60_000] as const;
const INTERFACE = [3_000, 10_000] as const;

async function setState(ctx: TaskContext, status: string, vmState: string, extra: Record<string, unknown> = {}): Promise<void> {
  const store = new ResourceStore(ctx.trx);
  const row = await store.byId(ctx.data.instance_id);
  if (!row) return;
  const attrs = attrsOf<InstanceAttrs>(row);
  attrs.vm_state = vmState;
  attrs.task_state = null;
  Object.assign(attrs, extra.attrs ?? {});
  const { attrs: _ignored, ...columns } = extra;
  await store.update(row.id, { status, attrs: JSON.stringify(attrs), task_id: null, updated_at: ctx.now, ...columns });
}

/** Lets go of the instance after a failed task, with the status it had (if the task changed it). */
async function release(ctx: TaskContext, status?: string): Promise<void> {
  const store = new ResourceStore(ctx.trx);
  const row = await store.byId(ctx.data.instance_id);
  if (!row) return;
  const attrs = attrsOf<InstanceAttrs>(row);
  attrs.task_state = null;
  await store.update(row.id, { attrs: JSON.stringify(attrs), task_id: null, updated_at: ctx.now, ...(status ? { status } : {}) });
}

const power = (type: string, status: string, vmState: string): TaskType => ({
  type,
  durationMs: POWER,
  complete: (ctx) => setState(ctx, status, vmState),
  fail: (ctx) => release(ctx),
});

const VM_STATES: Record<string, string> = { ACTIVE: 'active', SHUTOFF: 'stopped' };

/** A reserved fixed IP an instance takes as an interface, with the security groups of that interface. */
interface Reserve {
  port_id: string;
  groups: string[];
}

async function takeReserved(store: ResourceStore, portId: string, groups: string[], instanceId: string, now: number): Promise<void> {
  const port = await store.byId(portId);
  if (!port) throw new TaskFailure(`Reserved fixed IP ${portId} was deleted before instance ${instanceId} could take it`);
  await store.update(portId, {
    owner_id: instanceId,
    task_id: null,
    attrs: JSON.stringify({ ...attrsOf<PortAttrs>(port), security_group_ids: groups }),
    updated_at: now,
  });
}

/** A reserved fixed IP its instance lets go of: free again, in no security group, its floating IPs unassigned. */
async function releaseReserved(store: ResourceStore, port: ResourceRow, now: number): Promise<void> {
  for (const fip of await store.children(port.id, 'floatingip'))
    await store.update(fip.id, { owner_id: null, parent_id: null, status: 'DOWN', updated_at: now });
  await store.update(port.id, {
    owner_id: null,
    task_id: null,
    attrs: JSON.stringify({ ...attrsOf<PortAttrs>(port), security_group_ids: [], interface_name: null }),
    updated_at: now,
  });
}

export function instanceTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    {
      type: 'create_vm',
      durationMs: CREATE,
      async complete(ctx) {
        const { trx, task, data, now } = ctx;
        const store = new ResourceStore(trx);
        const instance = await pendingRow(store, data.instance_id, 'Instance');
        const made = (await store.attachedTo(data.instance_id)).filter((r) => r.creator_task_id === task.task_id);
        const volumes = made.filter((r) => r.kind === 'volume');
        await quotas.checkAtCommit(ctx, {
          vm_count: 1,
          cpu_count: instance.vcpus,
          ram: instance.ram_mb,
          volume_count: volumes.length,
          volume_size: volumes.reduce((sum, v) => sum + Number(v.size_gb), 0),
          floating_count: made.filter((r) => r.kind === 'floatingip').length,
          external_ip_count: made.filter((r) => r.kind === 'port' && r.parent_id === null).length,
        });
        // The addresses still this instance's, and its host (from the client's load on each host), are
        // decided after the quota check, whose lock on the client's quota row keeps the client's other
        // tasks from both until the commit: at the end of the step, where that check runs on PostgreSQL.
        ctx.beforeCommit(async () => {
          await requireOwnAddresses(store, made);
          const host = await schedule(store, instance, attrsOf<InstanceAttrs>(instance).servergroup_id ?? null);
          await setState(ctx, 'ACTIVE', 'active', { ready: 1, attrs: { host } });
        });
        for (const [fipId, portId] of (data.assign ?? []) as [string, string][]) {
          if (!(await store.byId(fipId))) throw new TaskFailure(`Floating IP ${fipId} was deleted before instance ${data.instance_id} could take it`);
          await store.update(fipId, { parent_id: portId, owner_id: data.instance_id, status: 'ACTIVE', task_id: null, updated_at: now });
        }
        for (const row of made) await store.update(row.id, { ready: 1, task_id: null, status: row.kind === 'volume' ? 'in-use' : row.status, updated_at: now });
        for (const id of data.attach as string[]) await store.update(id, { status: 'in-use', task_id: null, updated_at: now });
        for (const { port_id, groups } of (data.reserve ?? []) as Reserve[]) await takeReserved(store, port_id, groups, data.instance_id, now);
        return { instances: [data.instance_id] };
      },
      async fail({ trx, task, data, now }) {
        const store = new ResourceStore(trx);
        for (const id of data.attach as string[]) await store.update(id, { owner_id: null, status: 'available', task_id: null, updated_at: now });
        for (const [fipId] of (data.assign ?? []) as [string, string][]) await store.update(fipId, { task_id: null, updated_at: now });
        for (const { port_id } of (data.reserve ?? []) as Reserve[]) await store.update(port_id, { owner_id: null, task_id: null, updated_at: now });
        await store.deleteCreatedBy(task.task_id);
      },
    },
    {
      type: 'delete_vm',
      durationMs: DELETE,
      async complete({ trx, data, now }) {
        const store = new ResourceStore(trx);
        const volumes = new Set<string>(data.volumes);
        const floatings = new Set<string>(data.floatings ?? []);
        const reserved = new Set<string>(data.reserved_fixed_ips ?? []);
        for (const row of await store.attachedTo(data.instance_id)) {
          // A reserved fixed IP stays in the project, free, unless the delete names it.
          if (row.kind === 'port' && attrsOf<PortAttrs>(row).reserved && !reserved.has(row.id)) await releaseReserved(store, row, now);
          else if (row.kind === 'port') await store.delete(row.id);
          else if (row.kind === 'floatingip') {
            if (data.delete_floatings || floatings.has(row.id)) await store.delete(row.id);
            else await store.update(row.id, { owner_id: null, parent_id: null, status: 'DOWN', updated_at: now });
          } else if (row.kind === 'volume') {
            if (volumes.has(row.id) || attrsOf<VolumeAttrs>(row).delete_on_termination)
              await store.deleteMany([...(await store.children(row.id, 'snapshot')).map((s) => s.id), row.id]);
            else await store.update(row.id, { owner_id: null, status: 'available', updated_at: now });
          }
        }
        await store.delete(data.instance_id);
      },
      fail: (ctx) => release(ctx),
    },
    power('start_vm', 'ACTIVE', 'active'),
    power('stop_vm', 'SHUTOFF', 'stopped'),
    power('soft_reboot_vm', 'ACTIVE', 'active'),
    power('hard_reboot_vm', 'ACTIVE', 'active'),
    power('suspend_vm', 'SUSPENDED', 'suspended'),
    power('resume_vm', 'ACTIVE', 'active'),
    {
      type: 'resize_vm',
      durationMs: RESIZE,
      async complete(ctx) {
        const instance = await pendingRow(new ResourceStore(ctx.trx), ctx.data.instance_id, 'Instance');
        const flavor = flavorById(ctx.data.flavor_id)!;
        await quotas.checkAtCommit(ctx, {
          cpu_count: flavor.vcpus - instance.vcpus,
          ram: flavor.ram - instance.ram_mb,
        });
        await setState(ctx, ctx.data.status, VM_STATES[ctx.data.status] ?? 'active', {
          vcpus: flavor.vcpus,
          ram_mb: flavor.ram,
          attrs: { flavor_id: flavor.flavor_id },
        });
      },
      fail: (ctx) => release(ctx, ctx.data.status),
    },
    {
      type: 'attach_vm_interface',
      durationMs: INTERFACE,
      async complete(ctx) {
        const { trx, task, data, now } = ctx;
        const store = new ResourceStore(trx);
        const port = await pendingRow(store, data.port_id, 'Port');
        if (data.groups) await takeReserved(store, port.id, data.groups, data.instance_id, now);
        else if (port.parent_id === null) await quotas.check(ctx, { external_ip_count: 1 });
        else await requireOwnAddresses(store, [port]);
        await store.updateCreatedBy(task.task_id, { ready: 1, task_id: null, updated_at: now });
        await store.update(data.instance_id, { task_id: null, updated_at: now });
        return { ports: [data.port_id] };
      },
      async fail({ trx, task, data, now }) {
        const store = new ResourceStore(trx);
        if (data.groups) await store.update(data.port_id, { owner_id: null, task_id: null, updated_at: now });
        await store.deleteCreatedBy(task.task_id);
        await store.update(data.instance_id, { task_id: null, updated_at: now });
      },
    },
    {
      type: 'detach_vm_interface',
      durationMs: INTERFACE,
      async complete({ trx, data, now }) {
        const store = new ResourceStore(trx);
        // Floating IPs on the port stay in the project, unassigned.
        for (const fip of await store.children(data.port_id, 'floatingip'))
          await store.update(fip.id, { owner_id: null, parent_id: null, status: 'DOWN', updated_at: now });
        const port = await store.byId(data.port_id);
        if (port && attrsOf<PortAttrs>(port).reserved) await releaseReserved(store, port, now);
        else await store.delete(data.port_id);
        await store.update(data.instance_id, { task_id: null, updated_at: now });
      },
      async fail({ trx, data, now }) {
        const store = new ResourceStore(trx);
        await store.update(data.port_id, { task_id: null, updated_at: now });
        await store.update(data.instance_id, { task_id: null, updated_at: now });
      },
    },
  ];
}
