// Task types of security groups and their rules. A group and the rules it is created with become
// usable together; an update applies its name, description, tags and rule changes at once.
import { randomUUID } from 'node:crypto';
import type { TaskContext, TaskType } from '../../platform/tasks/types.js';
import { pendingRow, ResourceStore, type Scope } from '../common/resource-store.js';
import type { QuotaService } from '../quotas/service.js';
import { bump, insertRules, type GroupAttrs } from './records.js';
import type { Rule } from './rules.js';

// Not in the seed's Limits table: security group changes are quick network operations.
const DURATION = [2_000, 5_000] as const;

async function release({ trx, data, now }: TaskContext, ...ids: string[]): Promise<void> {
  const store = new ResourceStore(trx);
  for (const id of [data.security_group_id, ...ids]) await store.update(id, { task_id: null, updated_at: now });
}

export function securityGroupTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    {
      type: 'create_security_group',
      durationMs: DURATION,
      async complete(ctx) {
        const { trx, task, data, now } = ctx;
        const store = new ResourceStore(trx);
        await pendingRow(store, data.security_group_id, 'Security group');
        await quotas.checkAtCommit(ctx, { firewall_count: 1 });
        await store.updateCreatedBy(task.task_id, { ready: 1, task_id: null, updated_at: now });
        return { security_groups: [data.security_group_id] };
      },
      async fail({ trx, task }) {
        await new ResourceStore(trx).deleteCreatedBy(task.task_id);
      },
    },
    {
      type: 'update_security_group',
      durationMs: DURATION,
      async complete({ trx, task, data, now }) {
        const store = new ResourceStore(trx);
        const group = await pendingRow(store, data.security_group_id, 'Security group');
        const scope: Scope = { clientId: task.client_id, projectId: Number(group.project_id), regionId: Number(group.region_id) };
        await store.deleteMany(data.remove_rules ?? []);
        const added = (data.add_rules ?? []) as Rule[];
        await insertRules(
          store,
          scope,
          group.id,
          added,
          null,
          now,
          1,
          added.map(() => randomUUID()),
        );
        await bump(
          store,
          group.id,
          now,
          (attrs: GroupAttrs) => {
            if (data.description !== undefined) attrs.description = data.description;
            if (data.tags !== undefined) attrs.tags = data.tags;
          },
          data.name,
        );
        await store.update(group.id, { task_id: null });
      },
      fail: (ctx) => release(ctx),
    },
    {
      type: 'create_security_group_rule',
      durationMs: DURATION,
      async complete({ trx, data, now }) {
        const store = new ResourceStore(trx);
        await pendingRow(store, data.rule_id, 'Security group rule');
        await store.update(data.rule_id, { ready: 1, task_id: null, updated_at: now });
        await bump(store, data.security_group_id, now);
        await store.update(data.security_group_id, { task_id: null });
        return { security_group_rules: [data.rule_id] };
      },
      async fail(ctx) {
        await new ResourceStore(ctx.trx).delete(ctx.data.rule_id);
        await release(ctx);
      },
    },
    {
      type: 'delete_security_group_rule',
      durationMs: DURATION,
      async complete({ trx, data, now }) {
        const store = new ResourceStore(trx);
        await store.delete(data.rule_id);
        await bump(store, data.security_group_id, now);
        await store.update(data.security_group_id, { task_id: null });
      },
      fail: (ctx) => release(ctx, ctx.data.rule_id),
    },
  ];
}
