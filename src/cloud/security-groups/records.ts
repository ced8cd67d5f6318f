// How security groups and their rules are stored (group rows, rule rows under them) and shown, and the
// project's default group, made on first need with fixed IDs so that two first requests make one.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import type { Kysely } from 'kysely';
import { tagList, zonedTime } from '../common/format.js';
import type { Operations } from '../common/operations.js';
import { attrsOf, newRow, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import { stableUuid } from '../images/catalogue.js';
import { defaultGroupRules, type Rule } from './rules.js';
import type { GroupSchema, RuleSchema } from './schemas.js';

export type Group = Static<typeof GroupSchema>;
export type RuleView = Static<typeof RuleSchema>;

export interface GroupAttrs {
  description: string;
  tags: Record<string, string>;
  revision_number: number;
  /** The project's default group: it cannot be deleted. */
  is_default: boolean;
}

export interface RuleAttrs extends Rule {
  revision_number: number;
}

export const DEFAULT_GROUP_NAME = 'default';

export class GroupRecords {
  constructor(private readonly ops: Operations) {}

  /** The ID the default group of a project and region always has. */
  defaultId(scope: Scope): string {
    return stableUuid('edgeplane-default-security-group', `${scope.clientId}/${scope.projectId}/${scope.regionId}`);
  }

  /** Makes the default group of the scope if it is not there yet (its rows have fixed IDs: a racing twin inserts nothing). */
  async ensureDefault(scope: Scope): Promise<void> {
    const id = this.defaultId(scope);
    if (await this.ops.resources.byId(id)) return;
    const now = this.ops.clock.now();
    const attrs: GroupAttrs = { description: 'Default security group', tags: {}, revision_number: 1, is_default: true };
    await this.ops.transaction(scope, async (trx) => {
      const group = { ...newRow(scope, 'security_group', id, DEFAULT_GROUP_NAME, 'ACTIVE', '', attrs, now), ready: 1, creator_task_id: null, task_id: null };
      if (!(await insertIfAbsent(trx, group))) return;
      const rules = defaultGroupRules(id).map((rule, i) =>
        ruleRow(scope, id, stableUuid('edgeplane-default-security-group-rule', `${id}/${i}`), rule, null, now, 1),
      );
      for (const row of rules) await insertIfAbsent(trx, row);
    });
  }

  /** The group's rules, oldest first (pending ones included: a duplicate of a rule being added is one too). */
  async rules(groupId: string, store: ResourceStore = this.ops.resources): Promise<ResourceRow[]> {
    return store.children(groupId, 'security_group_rule');
  }

  insertRules(...args: Parameters<typeof insertRules>): Promise<string[]> {
    return insertRules(...args);
  }

  bump(...args: Parameters<typeof bump>): Promise<void> {
    return bump(...args);
  }

  async present(row: ResourceRow): Promise<Group> {
    const attrs = attrsOf<GroupAttrs>(row);
    const rules = (await this.rules(row.id)).filter((r) => r.ready).sort(byRule);
    return {
      id: row.id,
      name: row.name,
      description: attrs.description,
      revision_number: attrs.revision_number,
      security_group_rules: rules.map(presentRule),
      tags_v2: tagList(attrs.tags),
      project_id: Number(row.project_id),
      region_id: Number(row.region_id),
      region: this.ops.regions.name(Number(row.region_id)),
      created_at: zonedTime(row.created_at),
      updated_at: zonedTime(row.updated_at),
    };
  }
}

export async function insertRules(
  store: ResourceStore,
  scope: Scope,
  groupId: string,
  rules: Rule[],
  taskId: string | null,
  now: number,
  ready: 0 | 1,
  ids?: string[],
): Promise<string[]> {
  const made = rules.map((rule, i) => ruleRow(scope, groupId, ids?.[i] ?? randomUUID(), rule, taskId, now, ready));
  await store.insert(...made);
  return made.map((r) => r.id);
}

/** A change to the group or its rules: its revision moves on. */
export async function bump(store: ResourceStore, groupId: string, now: number, change: (attrs: GroupAttrs) => void = () => {}, name?: string): Promise<void> {
  const row = await store.byId(groupId);
  if (!row) return;
  const attrs = attrsOf<GroupAttrs>(row);
  change(attrs);
  attrs.revision_number += 1;
  await store.update(groupId, { attrs: JSON.stringify(attrs), updated_at: now, ...(name ? { name } : {}) });
}

export function ruleOf(row: ResourceRow): Rule {
  const { direction, ethertype, protocol, port_range_min, port_range_max, remote_ip_prefix, remote_group_id, description } = attrsOf<RuleAttrs>(row);
  return { direction, ethertype, protocol, port_range_min, port_range_max, remote_ip_prefix, remote_group_id, description };
}

export function presentRule(row: ResourceRow): RuleView {
  const attrs = attrsOf<RuleAttrs>(row);
  return {
    id: row.id,
    security_group_id: row.parent_id!,
    direction: attrs.direction,
    ethertype: attrs.ethertype,
    protocol: attrs.protocol as RuleView['protocol'],
    port_range_min: attrs.port_range_min,
    port_range_max: attrs.port_range_max,
    remote_ip_prefix: attrs.remote_ip_prefix,
    remote_group_id: attrs.remote_group_id,
    description: attrs.description,
    revision_number: attrs.revision_number,
    created_at: zonedTime(row.created_at),
    updated_at: zonedTime(row.updated_at),
  };
}

/** Rules in a stable order: egress before ingress, IPv4 before IPv6, then by protocol, port and remote. */
function byRule(a: ResourceRow, b: ResourceRow): number {
  const key = (row: ResourceRow) => {
    const r = attrsOf<RuleAttrs>(row);
    return [
      r.direction,
      r.ethertype,
      r.protocol ?? '',
      String(r.port_range_min ?? -1).padStart(5, '0'),
      r.remote_ip_prefix ?? '',
      r.remote_group_id ?? '',
      row.id,
    ].join('|');
  };
  return key(a).localeCompare(key(b));
}

function ruleRow(scope: Scope, groupId: string, id: string, rule: Rule, taskId: string | null, now: number, ready: 0 | 1): ResourceRow {
  const attrs: RuleAttrs = { ...rule, revision_number: 0 };
  return { ...newRow(scope, 'security_group_rule', id, '', 'ACTIVE', '', attrs, now, { parent_id: groupId }), creator_task_id: taskId, task_id: taskId, ready };
}

/** Inserts the row unless one with its ID exists; whether it inserted. */
async function insertIfAbsent(trx: Kysely<any>, row: ResourceRow): Promise<boolean> {
  const result = await trx
    .insertInto('cloud_resources')
    .values(row)
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}
