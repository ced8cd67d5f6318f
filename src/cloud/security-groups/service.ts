// Security groups: every project has a default group in each region (it cannot be deleted); groups are
// created and updated through tasks (v2) or at once (the deprecated v1 calls); a group in use by an
// instance port, or named as the remote group of another group's rule, cannot be deleted.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError } from '../../platform/errors.js';
import { badInput, bodyField } from '../common/errors.js';
import { pageOf, tagMatcher } from '../common/filters.js';
import { patchTags } from '../common/format.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import { RegionalRecords, type TaskIds } from '../common/regional-records.js';
import { attrsOf, newRow, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import type { QuotaService } from '../quotas/service.js';
import { GroupRecords, ruleOf, type Group, type GroupAttrs } from './records.js';
import { defaultGroupRules, firstDuplicate, normaliseRule, sameRule, TEMPLATE_RULES, type Rule, type RuleInput } from './rules.js';
import type { CopyBody, GroupCreateBodyV1, GroupCreateBodyV2, GroupListQuery, GroupUpdateBodyV1, GroupUpdateBodyV2 } from './schemas.js';
import { MAX_RULES } from './schemas.js';

/** What ports record of their groups. */
export interface PortGroups {
  security_group_ids?: string[];
}

/** Shows instances (the groups' members) without this module knowing how. */
export type InstancePresenter = (row: ResourceRow) => Promise<unknown>;

export class SecurityGroupService {
  readonly records: RegionalRecords;
  readonly groups: GroupRecords;
  /** Set by the product once instances exist (they are made after groups). */
  presentInstance: InstancePresenter = async (row) => row;

  constructor(
    private readonly ops: Operations,
    private readonly quotas: QuotaService,
  ) {
    this.records = new RegionalRecords(ops, 'security_group', 'Security group');
    this.groups = new GroupRecords(ops);
  }

  async list(caller: Caller, projectId: number, regionId: number, query: Static<typeof GroupListQuery>) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    await this.groups.ensureDefault(scope);
    const tags = tagMatcher(query);
    const rows = (await this.ops.resources.all('security_group', scope)).filter(
      (r) => (query.name === undefined || r.name === query.name) && tags(attrsOf<GroupAttrs>(r).tags),
    );
    const page = pageOf(rows, query);
    return { count: page.count, results: await Promise.all(page.results.map((r) => this.groups.present(r))) };
  }

  async get(caller: Caller, projectId: number, regionId: number, id: string): Promise<Group> {
    const scope = await this.ops.readable(caller, projectId, regionId);
    await this.groups.ensureDefault(scope);
    return this.groups.present(await this.records.row(scope, id));
  }

  async createV2(caller: Caller, projectId: number, regionId: number, body: Static<typeof GroupCreateBodyV2>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const rules = body.rules === undefined ? TEMPLATE_RULES : await this.checkRules(scope, body.rules, ['rules']);
    const id = randomUUID();
    const now = this.ops.clock.now();
    const attrs: GroupAttrs = { description: body.description ?? '', tags: body.tags ?? {}, revision_number: 1, is_default: false };
    const task = await this.ops.submit(caller, scope, 'create_security_group', { security_group_id: id }, async (trx, taskId) => {
      const store = new ResourceStore(trx);
      await store.insert(newRow(scope, 'security_group', id, body.name, 'ACTIVE', taskId, attrs, now));
      await this.groups.insertRules(store, scope, id, rules, taskId, now, 0);
    });
    return { tasks: [task], id };
  }

  async createV1(caller: Caller, projectId: number, regionId: number, body: Static<typeof GroupCreateBodyV1>): Promise<Group> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const spec = body.security_group;
    const rules =
      spec.security_group_rules === undefined
        ? TEMPLATE_RULES
        : await this.checkRules(scope, spec.security_group_rules, ['security_group', 'security_group_rules']);
    const members = await this.instancePorts(scope, body.instances ?? []);
    const id = randomUUID();
    const now = this.ops.clock.now();
    const attrs: GroupAttrs = { description: spec.description ?? '', tags: spec.tags ?? {}, revision_number: 1, is_default: false };
    await this.ops.transaction(scope, async (trx) => {
      await this.quotas.checkNow(trx, caller.clientId, { firewall_count: 1 }, regionId);
      const store = new ResourceStore(trx);
      await store.insert({ ...newRow(scope, 'security_group', id, spec.name, 'ACTIVE', '', attrs, now), creator_task_id: null, task_id: null, ready: 1 });
      await this.groups.insertRules(store, scope, id, rules, null, now, 1);
      for (const port of members) await joinGroup(store, port, id, now);
    });
    return this.groups.present(await this.records.row(scope, id));
  }

  /** Answers no task when nothing would change (the official client's update_and_poll expects that). */
  async updateV2(caller: Caller, projectId: number, regionId: number, id: string, body: Static<typeof GroupUpdateBodyV2>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const row = await this.records.idleRow(scope, id);
    const attrs = attrsOf<GroupAttrs>(row);
    const change: Record<string, unknown> = {};
    if (body.name !== undefined && body.name !== row.name) change.name = body.name;
    if (body.description !== undefined && body.description !== attrs.description) change.description = body.description;
    const tags = patchTags(attrs.tags, body.tags);
    if (JSON.stringify(tags) !== JSON.stringify(attrs.tags)) change.tags = tags;
    if (body.rules !== undefined) {
      const wanted = await this.checkRules(scope, body.rules, ['rules'], id);
      const current = (await this.groups.rules(id)).map((r) => ({ id: r.id, rule: ruleOf(r) }));
      const remove = current.filter((c) => !wanted.some((w) => sameRule(w, c.rule))).map((c) => c.id);
      const add = wanted.filter((w) => !current.some((c) => sameRule(w, c.rule)));
      if (remove.length > 0 || add.length > 0) Object.assign(change, { remove_rules: remove, add_rules: add });
    }
    if (Object.keys(change).length === 0) return { tasks: [], id };
    return this.records.startTask(caller, scope, row, 'update_security_group', { security_group_id: id, ...change });
  }

  async updateV1(caller: Caller, projectId: number, regionId: number, id: string, body: Static<typeof GroupUpdateBodyV1>): Promise<Group> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    await this.records.idleRow(scope, id);
    const changes = body.changed_rules ?? [];
    const creates = changes.flatMap((c, i) => (c.action === 'create' ? [{ i, input: c as RuleInput }] : []));
    const deletes = changes.flatMap((c) => (c.action === 'delete' ? [(c as { security_group_rule_id: string }).security_group_rule_id] : []));
    const current = await this.groups.rules(id);
    const unknown = deletes.filter((ruleId) => !current.some((r) => r.id === ruleId));
    if (unknown.length > 0) throw badInput([bodyField(['changed_rules'], `rule(s) ${unknown.join(', ')} are not rules of group ${id}`)]);
    const added = await this.checkRules(
      scope,
      creates.map((c) => c.input),
      ['changed_rules'],
      id,
    );
    const kept = current.filter((r) => !deletes.includes(r.id)).map(ruleOf);
    this.refuseDuplicates([...kept, ...added], kept.length);
    const now = this.ops.clock.now();
    await this.ops.transaction(scope, async (trx) => {
      const store = new ResourceStore(trx);
      await store.deleteMany(deletes);
      await this.groups.insertRules(store, scope, id, added, null, now, 1);
      await this.groups.bump(store, id, now, (attrs) => (attrs.tags = patchTags(attrs.tags, body.tags)), body.name);
    });
    return this.groups.present(await this.records.row(scope, id));
  }

  /** A new group with the same description, tags and rules (rules naming the group itself name the copy). */
  async copy(caller: Caller, projectId: number, regionId: number, id: string, body: Static<typeof CopyBody>): Promise<Group> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const source = await this.records.row(scope, id);
    const copyId = randomUUID();
    const rules = (await this.groups.rules(id))
      .filter((r) => r.ready)
      .map(ruleOf)
      .map((r) => (r.remote_group_id === id ? { ...r, remote_group_id: copyId } : r));
    const attrs: GroupAttrs = { ...attrsOf<GroupAttrs>(source), revision_number: 1, is_default: false };
    const now = this.ops.clock.now();
    await this.ops.transaction(scope, async (trx) => {
      await this.quotas.checkNow(trx, caller.clientId, { firewall_count: 1 }, regionId);
      const store = new ResourceStore(trx);
      await store.insert({ ...newRow(scope, 'security_group', copyId, body.name, 'ACTIVE', '', attrs, now), creator_task_id: null, task_id: null, ready: 1 });
      await this.groups.insertRules(store, scope, copyId, rules, null, now, 1);
    });
    return this.groups.present(await this.records.row(scope, copyId));
  }

  /** Back to the rules the group had by default: the default group's own, or the template's. */
  async revert(caller: Caller, projectId: number, regionId: number, id: string): Promise<Group> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const row = await this.records.idleRow(scope, id);
    const rules = attrsOf<GroupAttrs>(row).is_default ? defaultGroupRules(id) : TEMPLATE_RULES;
    const now = this.ops.clock.now();
    await this.ops.transaction(scope, async (trx) => {
      const store = new ResourceStore(trx);
      await store.deleteMany((await this.groups.rules(id, store)).map((r) => r.id));
      await this.groups.insertRules(store, scope, id, rules, null, now, 1);
      await this.groups.bump(store, id, now);
    });
    return this.groups.present(await this.records.row(scope, id));
  }

  async delete(caller: Caller, projectId: number, regionId: number, id: string): Promise<void> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const row = await this.records.idleRow(scope, id);
    if (attrsOf<GroupAttrs>(row).is_default) throw new AppError('conflict', `Security group ${id} is the project's default group and cannot be deleted`);
    const ports = (await this.ops.resources.all('port', scope)).filter((p) => groupsOf(p).includes(id));
    if (ports.length > 0)
      throw new AppError(
        'conflict',
        `Security group ${id} is in use by ${ports.length} instance port(s) (instance ${ports[0].owner_id}); remove it from them first`,
      );
    const referring = (await this.ops.resources.all('security_group_rule', scope)).filter((r) => r.parent_id !== id && ruleOf(r).remote_group_id === id);
    if (referring.length > 0)
      throw new AppError(
        'conflict',
        `Security group ${id} is the remote group of rule ${referring[0].id} of group ${referring[0].parent_id}; delete that rule first`,
      );
    const rules = await this.groups.rules(id);
    await this.ops.transaction(scope, async (trx) => new ResourceStore(trx).deleteMany([...rules.map((r) => r.id), id]));
  }

  async instances(caller: Caller, projectId: number, regionId: number, id: string) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    await this.records.row(scope, id);
    const ownerIds = [...new Set((await this.ops.resources.all('port', scope)).filter((p) => p.ready && groupsOf(p).includes(id)).map((p) => p.owner_id!))];
    const rows = (await Promise.all(ownerIds.map((o) => this.ops.resources.get('instance', scope, o)))).filter((r): r is ResourceRow => r !== undefined);
    return { count: rows.length, results: await Promise.all(rows.map((r) => this.presentInstance(r))) };
  }

  /** The groups `ids` name (each must be a finished group of the scope), for instances, interfaces and pools. */
  async require(scope: Scope, ids: string[], path: (string | number)[]): Promise<ResourceRow[]> {
    await this.groups.ensureDefault(scope);
    const rows = await Promise.all(ids.map((id) => this.ops.resources.get('security_group', scope, id)));
    const missing = ids.filter((_, i) => !rows[i] || !rows[i]!.ready);
    if (missing.length > 0)
      throw badInput([bodyField(path, `security group(s) ${missing.join(', ')} do not exist in project ${scope.projectId}, region ${scope.regionId}`)]);
    return rows as ResourceRow[];
  }

  /** The groups named `names` (the oldest of a name when several share it). */
  async byNames(scope: Scope, names: string[], path: (string | number)[]): Promise<ResourceRow[]> {
    await this.groups.ensureDefault(scope);
    const all = (await this.ops.resources.all('security_group', scope)).filter((g) => g.ready);
    const found = names.map((n) => all.find((g) => g.name === n));
    const missing = names.filter((_, i) => !found[i]);
    if (missing.length > 0)
      throw badInput([bodyField(path, `no security group named ${missing.join(', ')} in project ${scope.projectId}, region ${scope.regionId}`)]);
    return found as ResourceRow[];
  }

  /**
   * Rules of a request in canonical form; remote groups must exist (`self`: the group itself may be
   * named). `path` locates the list in the body; null: the body is the one rule.
   */
  async checkRules(scope: Scope, inputs: RuleInput[], path: (string | number)[] | null, self?: string): Promise<Rule[]> {
    const at = (i: number, field?: string) => (path === null ? (field ? [field] : []) : [...path, i, ...(field ? [field] : [])]);
    const problems = [];
    const rules: Rule[] = [];
    for (const [i, input] of inputs.entries()) {
      const result = normaliseRule(input);
      if ('problems' in result) problems.push(...result.problems.map((p) => bodyField(at(i, p.field), p.message)));
      else rules.push(result.rule);
    }
    if (problems.length > 0) throw badInput(problems);
    const remotes = [...new Set(rules.map((r) => r.remote_group_id).filter((g): g is string => g !== null && g !== self))];
    const found = await Promise.all(remotes.map((g) => this.ops.resources.get('security_group', scope, g)));
    const missing = remotes.filter((_, i) => !found[i]);
    if (missing.length > 0)
      throw badInput([
        bodyField(path ?? ['remote_group_id'], `remote group(s) ${missing.join(', ')} do not exist in project ${scope.projectId}, region ${scope.regionId}`),
      ]);
    const dup = firstDuplicate(rules);
    if (dup >= 0) throw badInput([bodyField(at(dup), 'repeats an earlier rule of the list')]);
    return rules;
  }

  /** A rule that repeats one the group has (from index `from` on) is a conflict; so is a group past its rule limit. */
  refuseDuplicates(rules: Rule[], from: number): void {
    if (rules.length > MAX_RULES) throw new AppError('conflict', `A security group holds at most ${MAX_RULES} rules`);
    for (let i = from; i < rules.length; i += 1) {
      if (rules.slice(0, from).some((r) => sameRule(r, rules[i]))) throw new AppError('conflict', 'The security group already has this rule');
    }
  }

  /** The ports of the instances `ids` (each must be the caller's). */
  private async instancePorts(scope: Scope, ids: string[]): Promise<ResourceRow[]> {
    const ports: ResourceRow[] = [];
    for (const [i, id] of ids.entries()) {
      if (!(await this.ops.resources.get('instance', scope, id)))
        throw badInput([bodyField(['instances', i], `instance ${id} does not exist in project ${scope.projectId}, region ${scope.regionId}`)]);
      ports.push(...(await this.ops.resources.attachedTo(id, 'port')));
    }
    return ports;
  }
}

export function groupsOf(port: ResourceRow): string[] {
  return attrsOf<PortGroups>(port).security_group_ids ?? [];
}

/** Adds the group to a port's groups (once). */
export async function joinGroup(store: ResourceStore, port: ResourceRow, groupId: string, now: number): Promise<void> {
  const attrs = attrsOf<PortGroups & Record<string, unknown>>(port);
  const groups = attrs.security_group_ids ?? [];
  if (groups.includes(groupId)) return;
  attrs.security_group_ids = [...groups, groupId];
  await store.update(port.id, { attrs: JSON.stringify(attrs), updated_at: now });
}

/** Removes the group from a port's groups. */
export async function leaveGroup(store: ResourceStore, port: ResourceRow, groupId: string, now: number): Promise<void> {
  const attrs = attrsOf<PortGroups & Record<string, unknown>>(port);
  attrs.security_group_ids = (attrs.security_group_ids ?? []).filter((g) => g !== groupId);
  await store.update(port.id, { attrs: JSON.stringify(attrs), updated_at: now });
}
