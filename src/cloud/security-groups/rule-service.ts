// Rules of a security group one at a time: added and removed through tasks (v2), or at once (the
// deprecated v1 calls, including the replace that gives the rule a new ID). A rule the group already
// has is refused (409), as is a rule past the group's limit.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { notFound } from '../../platform/errors.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import type { TaskIds } from '../common/regional-records.js';
import { ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import { presentRule, ruleOf, type RuleView } from './records.js';
import type { RuleBodyV1, RuleBodyV2 } from './schemas.js';
import type { SecurityGroupService } from './service.js';

export class RuleService {
  constructor(
    private readonly ops: Operations,
    private readonly groups: SecurityGroupService,
  ) {}

  async createV2(caller: Caller, projectId: number, regionId: number, groupId: string, body: Static<typeof RuleBodyV2>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const group = await this.groups.records.idleRow(scope, groupId);
    const [rule] = await this.checked(scope, group, body);
    const id = randomUUID();
    const now = this.ops.clock.now();
    const task = await this.ops.submit(caller, scope, 'create_security_group_rule', { security_group_id: groupId, rule_id: id }, async (trx, taskId) => {
      const store = new ResourceStore(trx);
      await this.groups.groups.insertRules(store, scope, groupId, [rule], taskId, now, 0, [id]);
      await store.update(groupId, { task_id: taskId, updated_at: now });
    });
    return { tasks: [task], id };
  }

  async createV1(caller: Caller, projectId: number, regionId: number, groupId: string, body: Static<typeof RuleBodyV1>): Promise<RuleView> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const group = await this.groups.records.idleRow(scope, groupId);
    const [rule] = await this.checked(scope, group, body);
    const now = this.ops.clock.now();
    const [id] = await this.ops.transaction(scope, async (trx) => {
      const store = new ResourceStore(trx);
      const ids = await this.groups.groups.insertRules(store, scope, groupId, [rule], null, now, 1);
      await this.groups.groups.bump(store, groupId, now);
      return ids;
    });
    return presentRule((await this.ops.resources.byId(id))!);
  }

  async deleteV2(caller: Caller, projectId: number, regionId: number, groupId: string, ruleId: string): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const group = await this.groups.records.idleRow(scope, groupId);
    const rule = await this.rule(scope, ruleId);
    if (rule.parent_id !== group.id) throw notFound(`Rule ${ruleId} of security group ${groupId}`);
    const task = await this.ops.submit(caller, scope, 'delete_security_group_rule', { security_group_id: groupId, rule_id: ruleId }, async (trx, taskId) => {
      const store = new ResourceStore(trx);
      await store.update(groupId, { task_id: taskId, updated_at: this.ops.clock.now() });
      await store.update(ruleId, { task_id: taskId });
    });
    return { tasks: [task], id: ruleId };
  }

  async deleteV1(caller: Caller, projectId: number, regionId: number, ruleId: string): Promise<void> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const rule = await this.rule(scope, ruleId);
    await this.groups.records.idleRow(scope, rule.parent_id!);
    const now = this.ops.clock.now();
    await this.ops.transaction(scope, async (trx) => {
      const store = new ResourceStore(trx);
      await store.delete(ruleId);
      await this.groups.groups.bump(store, rule.parent_id!, now);
    });
  }

  /** The rule as the body describes it, under a new ID (the old one is gone). */
  async replace(caller: Caller, projectId: number, regionId: number, ruleId: string, body: Static<typeof RuleBodyV1>): Promise<RuleView> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const old = await this.rule(scope, ruleId);
    const group = await this.groups.records.idleRow(scope, old.parent_id!);
    const [rule] = await this.checked(scope, group, body, ruleId);
    const now = this.ops.clock.now();
    const [id] = await this.ops.transaction(scope, async (trx) => {
      const store = new ResourceStore(trx);
      await store.delete(ruleId);
      const ids = await this.groups.groups.insertRules(store, scope, group.id, [rule], null, now, 1);
      await this.groups.groups.bump(store, group.id, now);
      return ids;
    });
    return presentRule((await this.ops.resources.byId(id))!);
  }

  /** The body as a rule the group may take (not a repeat of one it has, other than `replacing`). */
  private async checked(scope: Scope, group: ResourceRow, body: Static<typeof RuleBodyV1>, replacing?: string) {
    const rules = await this.groups.checkRules(scope, [body], null, group.id);
    const current = (await this.groups.groups.rules(group.id)).filter((r) => r.id !== replacing).map(ruleOf);
    this.groups.refuseDuplicates([...current, ...rules], current.length);
    return rules;
  }

  private async rule(scope: Scope, ruleId: string): Promise<ResourceRow> {
    const rule = await this.ops.resources.get('security_group_rule', scope, ruleId);
    if (!rule || !rule.ready) throw notFound(`Security group rule ${ruleId}`);
    return rule;
  }
}
