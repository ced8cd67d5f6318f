// Rule templates: tenancy, system templates, full and partial changes, every option rule, deprecations,
// quotas and rule matching. No SQL (store.ts) and no HTTP (routes.ts): what a route must add to its
// answer, such as the Deprecation header, comes back in the result.
import type { Principal } from '../../platform/auth/principal.js';
import type { Clock } from '../../platform/clock.js';
import { mapInSlices } from '../../platform/cooperative.js';
import { AppError, type FieldError, notFound } from '../../platform/errors.js';
import type { Page } from '../../platform/pagination.js';
import { limitReached, refused } from '../errors.js';
import type { ListRequest } from '../http.js';
import { QUOTAS } from '../limits.js';
import { RULE_OPTION_NAMES, RULE_OPTION_SCHEMAS, type StoredOptions } from '../options/catalogue.js';
import { optionProblems, patternProblems } from '../options/check.js';
import type { RuleMatcher } from '../options/matcher.js';
import { requestPath } from '../options/pattern.js';
import { deprecationsOf } from '../options/rules.js';
import { allOptions, applyOptions, parseOptions, readOptions } from '../options/states.js';
import { type RuleTemplate, type RuleTemplateInput, type RuleTemplatePatchInput } from './schemas.js';
import type { RuleTemplateFields, RuleTemplateRow, RuleTemplateStore } from './store.js';
import { SYSTEM_CLIENT_ID, SYSTEM_TEMPLATES } from './system-templates.js';

export interface TemplateResult {
  template: RuleTemplate;
  /** Deprecated features the template uses, each naming its replacement (empty when none). */
  deprecations: string[];
}

export interface MatchOutcome {
  path: string;
  template: RuleTemplate | null;
  matching: { id: number; weight: number; rule: string; ruleType: number }[];
}

const DEFAULTS = { name: '', weight: 1, overrideOriginProtocol: null } as const;

export function toTemplate(row: RuleTemplateRow): RuleTemplate {
  return {
    id: row.id,
    name: row.name,
    client: row.client_id,
    deleted: row.deleted === 1,
    rule: row.rule,
    ruleType: row.rule_type,
    weight: row.weight,
    template: true,
    default: row.is_default === 1,
    overrideOriginProtocol: row.override_origin_protocol as RuleTemplate['overrideOriginProtocol'],
    options: allOptions(RULE_OPTION_NAMES, parseOptions(row.options)) as RuleTemplate['options'],
  };
}

function result(row: RuleTemplateRow): TemplateResult {
  return { template: toTemplate(row), deprecations: deprecationsOf(parseOptions(row.options), row.rule_type) };
}

/** The body as an object, whatever the schema thought of it (rules then run on what can be read). */
function asObject<T>(body: unknown): Partial<T> {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Partial<T>) : {};
}

interface Candidate {
  rule: unknown;
  ruleType: unknown;
  options: StoredOptions;
}

/** Every problem of a request at once: schema problems, then the rules on what would be stored. */
function check(schemaFields: FieldError[], candidate: Candidate, extra: FieldError[]): void {
  const fields = [
    ...schemaFields,
    ...extra,
    ...patternProblems(schemaFields, candidate.rule, candidate.ruleType),
    ...optionProblems(schemaFields, candidate.options),
  ];
  if (fields.length > 0) throw refused(fields);
}

export class RuleTemplateService {
  constructor(
    private readonly store: RuleTemplateStore,
    private readonly clock: Clock,
    private readonly matcher: RuleMatcher,
  ) {}

  async list(principal: Principal, list: ListRequest): Promise<Page<RuleTemplate>> {
    await this.ensureSystemTemplates();
    const id = principal.clientId;
    const [count, rows] = await Promise.all([this.store.count(id), this.store.list(id, list)]);
    return { count, results: await mapInSlices(rows, toTemplate) };
  }

  async get(principal: Principal, id: number): Promise<TemplateResult> {
    return result(await this.visible(principal, id));
  }

  async create(principal: Principal, body: unknown, schemaFields: FieldError[]): Promise<TemplateResult> {
    const input = asObject<RuleTemplateInput>(body);
    const sent = readOptions(input.options, RULE_OPTION_SCHEMAS);
    const options = applyOptions({}, sent.options);
    check(schemaFields, { rule: input.rule, ruleType: input.ruleType, options }, sent.errors);
    if ((await this.store.countOwn(principal.clientId)) >= QUOTAS.ruleTemplates) {
      throw limitReached('bad_request', `The account already has ${QUOTAS.ruleTemplates} rule templates, its limit: delete one to create another`);
    }
    const id = await this.store.insert(principal.clientId, this.fields(input as RuleTemplateInput, options), this.clock.now());
    return this.get(principal, id);
  }

  /** PUT: the body replaces the whole template; omitted optional fields go back to their defaults. */
  async replace(principal: Principal, id: number, body: unknown, schemaFields: FieldError[]): Promise<TemplateResult> {
    await this.changeable(principal, id);
    const input = asObject<RuleTemplateInput>(body);
    const sent = readOptions(input.options, RULE_OPTION_SCHEMAS);
    const options = applyOptions({}, sent.options);
    check(schemaFields, { rule: input.rule, ruleType: input.ruleType, options }, sent.errors);
    await this.store.update(principal.clientId, id, this.fields(input as RuleTemplateInput, options), this.clock.now());
    return this.get(principal, id);
  }

  /** PATCH: only the fields sent change; inside options, only the options sent. */
  async update(principal: Principal, id: number, body: unknown, schemaFields: FieldError[]): Promise<TemplateResult> {
    const row = await this.changeable(principal, id);
    const input = asObject<RuleTemplatePatchInput>(body);
    const sent = readOptions(input.options, RULE_OPTION_SCHEMAS);
    const options = applyOptions(parseOptions(row.options), sent.options);
    const rule = input.rule ?? row.rule;
    const ruleType = input.ruleType ?? row.rule_type;
    check(schemaFields, { rule, ruleType, options }, sent.errors);
    const fields: RuleTemplateFields = {
      name: input.name ?? row.name,
      rule,
      rule_type: ruleType,
      weight: input.weight ?? row.weight,
      override_origin_protocol: input.overrideOriginProtocol === undefined ? row.override_origin_protocol : input.overrideOriginProtocol,
      options: JSON.stringify(options),
    };
    await this.store.update(principal.clientId, id, fields, this.clock.now());
    return this.get(principal, id);
  }

  async delete(principal: Principal, id: number): Promise<void> {
    await this.changeable(principal, id);
    await this.store.delete(principal.clientId, id);
  }

  /** Which of the client's templates (its own and the system ones) applies to a request URI. */
  async match(clientId: number, uri: string): Promise<MatchOutcome> {
    await this.ensureSystemTemplates();
    const { rule, matching } = await this.matcher.match(await this.store.rules(clientId), uri);
    const row = rule && (await this.store.find(clientId, rule.id));
    return { path: requestPath(uri), template: row ? toTemplate(row) : null, matching };
  }

  private fields(input: RuleTemplateInput, options: StoredOptions): RuleTemplateFields {
    return {
      name: input.name ?? DEFAULTS.name,
      rule: input.rule,
      rule_type: input.ruleType,
      weight: input.weight ?? DEFAULTS.weight,
      override_origin_protocol: input.overrideOriginProtocol === undefined ? DEFAULTS.overrideOriginProtocol : input.overrideOriginProtocol,
      options: JSON.stringify(options),
    };
  }

  /**
   * The system templates are product data, not client data: a full reset of the data removes them, so
   * they are written again when any is missing (one indexed count per read in the steady state).
   */
  private async ensureSystemTemplates(): Promise<void> {
    if ((await this.store.countSystem()) >= SYSTEM_TEMPLATES.length) return;
    const rows = SYSTEM_TEMPLATES.map((t) => ({
      system_key: t.key,
      client_id: SYSTEM_CLIENT_ID,
      name: t.name,
      rule: t.rule,
      rule_type: 0,
      weight: t.weight,
      override_origin_protocol: null,
      options: JSON.stringify(t.options),
    }));
    await this.store.insertSystem(rows, this.clock.now());
  }

  private async visible(principal: Principal, id: number): Promise<RuleTemplateRow> {
    await this.ensureSystemTemplates();
    const row = await this.store.find(principal.clientId, id);
    if (!row) throw notFound('Rule template');
    return row;
  }

  /** A template the caller may change: its own; system templates are refused, others' are not found. */
  private async changeable(principal: Principal, id: number): Promise<RuleTemplateRow> {
    const row = await this.visible(principal, id);
    if (row.is_default === 1)
      throw new AppError('forbidden', 'System templates (default: true) cannot be changed or deleted; create a custom template instead.');
    return row;
  }
}
