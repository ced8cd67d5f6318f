// Task types of instances: create_vm, delete_vm and the power actions.
import type { TaskContext, TaskType } from '../../platform/tasks/types.js';
import { attrsOf, pendingRow, ResourceStore } from '../common/resource-store.js';
import type { QuotaService } from '../quotas/service.js';
import type { InstanceAttrs, VolumeAttrs } from './service.js';

// Seed, Limits: create VM typically 15 to 30 s, delete VM 15 to 70 s. Power actions are not listed;
// they take a few seconds on the real platform.
const CREATE = [15_000, 30_000] as const;
const DELETE = [15_000, 70_000] as const;
const POWER = [3_000, 10_000] as const;

async function setState(ctx: TaskContext, status: string, vmState: string): Promise<void> {
  const store = new ResourceStore(ctx.trx);
  const row = await store.byId(ctx.data.instance_id);
  if (!row) return;
  const attrs = attrsOf<InstanceAttrs>(row);
  attrs.vm_state = vmState;
  attrs.task_state = null;
  await store.update(row.id, { status, attrs: JSON.stringify(attrs), task_id: null, updated_at: ctx.now });
}

async function release(ctx: TaskContext): Promise<void> {
  const store = new ResourceStore(ctx.trx);
  const row = await store.byId(ctx.data.instance_id);
  if (!row) return;
  const attrs = attrsOf<InstanceAttrs>(row);
  attrs.task_state = null;
  await store.update(row.id, { attrs: JSON.stringify(attrs), task_id: null, updated_at: ctx.now });
}

const power = (type: string, status: string, vmState: string): TaskType => ({
  type,
  durationMs: POWER,
  complete: (ctx) => setState(ctx, status, vmState),
  fail: (ctx) => release(ctx),
});

export function instanceTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    {
      type: 'create_vm',
      durationMs: CREATE,
      async complete(ctx) {
        const { trx, task, data, now } = ctx;
        const store = new ResourceStore(trx);
        const instance = await pendingRow(store, data.instance_id, 'Instance');
        const newVolumes = (await store.attachedTo(data.instance_id, 'volume')).filter((v) => v.creator_task_id === task.task_id);
        await quotas.check(trx, task.client_id, Number(task.region_id), {
          vm_count: 1, cpu_count: instance.vcpus, ram: instance.ram_mb,
          volume_count: newVolumes.length, volume_size: newVolumes.reduce((sum, v) => sum + v.size_gb, 0),
        });
        await store.updateCreatedBy(task.task_id, { ready: 1, task_id: null, status: 'in-use', updated_at: now });
        for (const id of data.attach as string[]) await store.update(id, { status: 'in-use', task_id: null, updated_at: now });
        await setState(ctx, 'ACTIVE', 'active');
        return { instances: [data.instance_id] };
      },
      async fail({ trx, task, data, now }) {
        const store = new ResourceStore(trx);
        for (const id of data.attach as string[]) await store.update(id, { owner_id: null, status: 'available', task_id: null, updated_at: now });
        await store.deleteCreatedBy(task.task_id);
      },
    },
    {
      type: 'delete_vm',
      durationMs: DELETE,
      async complete({ trx, data, now }) {
        const store = new ResourceStore(trx);
        const remove = new Set<string>(data.volumes);
        for (const row of await store.attachedTo(data.instance_id)) {
          if (row.kind === 'port') await store.delete(row.id);
          else if (row.kind === 'floatingip') {
            if (data.delete_floatings) await store.delete(row.id);
            else await store.update(row.id, { owner_id: null, parent_id: null, status: 'DOWN', updated_at: now });
          } else if (row.kind === 'volume') {
            if (remove.has(row.id) || attrsOf<VolumeAttrs>(row).delete_on_termination) await store.delete(row.id);
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
  ];
}
