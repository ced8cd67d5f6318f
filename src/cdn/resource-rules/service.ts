// The rules of a CDN resource: the rule-template fields per resource, with names and patterns unique in
// the resource, `active`, an optional origin group, a quota per resource, and the same option rules as
// templates plus the conflicts with what the rule inherits from its resource. And the effective options:
// which rule applies to a request path, and the options then in force.
import type { Principal } from '../../platform/auth/principal.js';
import type { Clock } from '../../platform/clock.js';
import { bodyField, type FieldError, notFound } from '../../platform/errors.js';
import type { Page } from '../../platform/pagination.js';
import { limitReached, refused, stateRefusal } from '../errors.js';
import { type ListRequest, pageOf } from '../http.js';
import { QUOTAS } from '../limits.js';
import { RULE_OPTION_SCHEMAS, type StoredOptions } from '../options/catalogue.js';
import { inheritedProblems, optionProblems, patternProblems } from '../options/check.js';
import type { RuleMatcher } from '../options/matcher.js';
import { requestPath } from '../options/pattern.js';
import { deprecationsOf } from '../options/rules.js';
import { applyOptions, mergeOptions, parseOptions, readOptions } from '../options/states.js';
import type { OriginGroupService } from '../origin-groups/service.js';
import type { ResourceService } from '../resources/service.js';
import type { ResourceRow } from '../resources/store.js';
import { isUniqueViolation } from '../unique.js';
import { toRule } from './present.js';
import type { ResourceRule, RuleInput } from './schemas.js';
import type { RuleFields, RuleRow, RuleStore } from './store.js';

export interface RuleResult {
  rule: ResourceRule;
  deprecations: string[];
}

export interface Effective {
  path: string;
  rule: ResourceRule | null;
  matching: { id: number; name: string; weight: number; rule: string; ruleType: number }[];
  originGroup: number;
  originProtocol: string;
  options: StoredOptions;
  sources: Record<string, 'rule' | 'resource'>;
}

const DEFAULTS = { active: true, weight: 1, overrideOriginProtocol: null, originGroup: null } as const;
const asObject = (body: unknown): RuleInput => (body && typeof body === 'object' && !Array.isArray(body) ? (body as RuleInput) : {});

export class ResourceRuleService {
  constructor(
    private readonly store: RuleStore,
    private readonly resources: ResourceService,
    private readonly groups: OriginGroupService,
    private readonly clock: Clock,
    private readonly matcher: RuleMatcher,
  ) {}

  async list(principal: Principal, resourceId: number, list: ListRequest): Promise<Page<ResourceRule>> {
    const resource = await this.resources.owned(principal.clientId, resourceId);
    const rows = await this.store.ofResource(principal.clientId, resourceId);
    return pageOf(
      rows.map((row) => toRule(row, resource.origin_protocol)),
      list,
    );
  }

  async get(principal: Principal, resourceId: number, id: number): Promise<RuleResult> {
    const resource = await this.resources.owned(principal.clientId, resourceId);
    return this.result(await this.owned(principal.clientId, resourceId, id), resource);
  }

  async create(principal: Principal, resourceId: number, body: unknown, schemaFields: FieldError[]): Promise<RuleResult> {
    const resource = await this.resources.owned(principal.clientId, resourceId);
    if (resource.primary_resource !== null) throw stateRefusal("A reserve resource shares its main resource's configuration and cannot have rules of its own");
    const input = asObject(body);
    const sent = readOptions(input.options, RULE_OPTION_SCHEMAS);
    const fields = this.fields(input, undefined, applyOptions({}, sent.options));
    await this.check(principal.clientId, resource, undefined, fields, schemaFields, sent.errors, body);
    if ((await this.store.count(principal.clientId, resourceId)) >= QUOTAS.rulesPerResource) {
      throw limitReached('bad_request', `The resource already has ${QUOTAS.rulesPerResource} rules, its limit: delete one to create another`);
    }
    const id = await this.write(() => this.store.insert(principal.clientId, resourceId, fields, this.clock.now()));
    return this.get(principal, resourceId, id);
  }

  /** PUT: rule and ruleType required; omitted fields go back to their defaults (the name is kept). */
  async replace(principal: Principal, resourceId: number, id: number, body: unknown, schemaFields: FieldError[]): Promise<RuleResult> {
    const resource = await this.resources.owned(principal.clientId, resourceId);
    const row = await this.owned(principal.clientId, resourceId, id);
    const input = asObject(body);
    const sent = readOptions(input.options, RULE_OPTION_SCHEMAS);
    const fields = this.fields({ name: row.name, ...input }, undefined, applyOptions({}, sent.options));
    await this.check(principal.clientId, resource, row, fields, schemaFields, sent.errors, body);
    await this.write(() => this.store.update(principal.clientId, resourceId, id, fields, this.clock.now()));
    return this.get(principal, resourceId, id);
  }

  /** PATCH: only the fields sent change; inside options, only the options sent. */
  async update(principal: Principal, resourceId: number, id: number, body: unknown, schemaFields: FieldError[]): Promise<RuleResult> {
    const resource = await this.resources.owned(principal.clientId, resourceId);
    const row = await this.owned(principal.clientId, resourceId, id);
    const input = asObject(body);
    const sent = readOptions(input.options, RULE_OPTION_SCHEMAS);
    const fields = this.fields(input, row, applyOptions(parseOptions(row.options), sent.options));
    await this.check(principal.clientId, resource, row, fields, schemaFields, sent.errors, body);
    await this.write(() => this.store.update(principal.clientId, resourceId, id, fields, this.clock.now()));
    return this.get(principal, resourceId, id);
  }

  async delete(principal: Principal, resourceId: number, id: number): Promise<void> {
    await this.resources.owned(principal.clientId, resourceId);
    const row = await this.owned(principal.clientId, resourceId, id);
    if (row.active === 1) throw stateRefusal('The rule is active: deactivate it (active: false) before deleting it');
    await this.store.delete(principal.clientId, resourceId, id);
  }

  /** GET .../preset: presets are not applied by this server, so no rule has one. */
  async appliedPreset(principal: Principal, resourceId: number, id: number): Promise<never> {
    await this.resources.owned(principal.clientId, resourceId);
    await this.owned(principal.clientId, resourceId, id);
    throw notFound('Applied preset');
  }

  /** Which active rule of a resource applies to a request URI, and the options then in force. */
  async effective(clientId: number, resourceId: number, uri: string): Promise<Effective> {
    const resource = await this.resources.owned(clientId, resourceId);
    const active = (await this.store.ofResource(clientId, resourceId)).filter((r) => r.active === 1);
    const { rule, matching } = await this.matcher.match(
      active.map((r) => ({ id: r.id, name: r.name, rule: r.rule, ruleType: r.rule_type, weight: r.weight })),
      uri,
    );
    const row = rule ? active.find((r) => r.id === rule.id)! : null;
    const merged = mergeOptions(parseOptions(resource.options), row ? parseOptions(row.options) : null);
    return {
      path: requestPath(uri),
      rule: row ? toRule(row, resource.origin_protocol) : null,
      matching,
      originGroup: row?.origin_group_id ?? resource.origin_group_id,
      originProtocol: row?.override_origin_protocol ?? resource.origin_protocol,
      options: merged.options,
      sources: merged.sources,
    };
  }

  private fields(input: RuleInput, row: RuleRow | undefined, options: StoredOptions): RuleFields {
    const keep = <T>(sent: T | undefined, stored: T, fallback: T) => (sent !== undefined ? sent : row ? stored : fallback);
    return {
      name: keep(input.name, row?.name, '') as string,
      rule: keep(input.rule, row?.rule, '') as string,
      rule_type: keep(input.ruleType, row?.rule_type, 0) as number,
      weight: keep(input.weight, row?.weight, DEFAULTS.weight) as number,
      active: keep(input.active, row?.active === 1, DEFAULTS.active) ? 1 : 0,
      override_origin_protocol: keep(input.overrideOriginProtocol, row?.override_origin_protocol, DEFAULTS.overrideOriginProtocol) ?? null,
      origin_group_id: keep(input.originGroup, row?.origin_group_id, DEFAULTS.originGroup) ?? null,
      options: JSON.stringify(options),
    };
  }

  /** Every problem at once: schema, pattern, options (own and inherited), names, patterns, origin group. */
  private async check(
    clientId: number,
    resource: ResourceRow,
    row: RuleRow | undefined,
    fields: RuleFields,
    schemaFields: FieldError[],
    extra: FieldError[],
    body: unknown,
  ): Promise<void> {
    const options = parseOptions(fields.options);
    const errors = [
      ...schemaFields,
      ...extra,
      ...patternProblems(schemaFields, fields.rule, fields.rule_type),
      ...optionProblems(schemaFields, options),
      ...inheritedProblems(schemaFields, parseOptions(resource.options), options),
    ];
    const refusedTop = new Set(schemaFields.map((f) => String(f.path[0])));
    const siblings = (await this.store.ofResource(clientId, resource.id)).filter((r) => r.id !== row?.id);
    if (!refusedTop.has('name') && siblings.some((r) => r.name === fields.name))
      errors.push(bodyField(['name'], 'Another rule of the resource has this name', 'conflict'));
    if (!refusedTop.has('rule') && siblings.some((r) => r.rule === fields.rule))
      errors.push(bodyField(['rule'], 'Another rule of the resource has this pattern', 'conflict'));
    const sentGroup = asObject(body).originGroup;
    if (!refusedTop.has('originGroup') && typeof sentGroup === 'number' && !(await this.groups.view(clientId, sentGroup))) {
      errors.push(bodyField(['originGroup'], 'No origin group with this ID in the account'));
    }
    if (errors.length > 0) throw refused(errors);
  }

  private async owned(clientId: number, resourceId: number, id: number): Promise<RuleRow> {
    const row = await this.store.find(clientId, resourceId, id);
    if (!row) throw notFound('Rule');
    return row;
  }

  private result(row: RuleRow, resource: ResourceRow): RuleResult {
    return { rule: toRule(row, resource.origin_protocol), deprecations: deprecationsOf(parseOptions(row.options), row.rule_type) };
  }

  private async write<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isUniqueViolation(error)) throw refused([bodyField(['name'], 'Another rule of the resource has this name or pattern', 'conflict')]);
      throw error;
    }
  }
}
