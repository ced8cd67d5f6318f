// Rule templates: tenancy, system templates, full and partial changes, every option rule, deprecations
// and rule matching. No SQL (store.ts) and no HTTP (routes.ts): what a route must add to its answer,
// such as the Deprecation header, comes back in the result.
import type { Principal } from '../../platform/auth/principal.js';
import type { Clock } from '../../platform/clock.js';
import { AppError, bodyField, type FieldError, invalid, notFound } from '../../platform/errors.js';
import { type Page, type PageRequest, paginate } from '../../platform/pagination.js';
import { EDGE_APP_ALIAS, OPTION_NAMES, type OptionName, type OptionValue, type StoredOptions } from './options.js';
import { deprecationsOf, optionErrors } from './options-rules.js';
import { matchTemplate, requestPath, ruleErrors } from './rule-match.js';
import { READ_ONLY_FIELDS, type RuleTemplate, type RuleTemplateInput, type RuleTemplatePatchInput } from './schemas.js';
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

type OptionsSent = Record<string, OptionValue | null | undefined>;

function parseOptions(text: string): StoredOptions {
  return JSON.parse(text) as StoredOptions;
}

export function toTemplate(row: RuleTemplateRow): RuleTemplate {
  const stored = parseOptions(row.options);
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
    options: Object.fromEntries(OPTION_NAMES.map((name) => [name, stored[name] ?? null])) as RuleTemplate['options'],
  };
}

function result(row: RuleTemplateRow): TemplateResult {
  return { template: toTemplate(row), deprecations: deprecationsOf(parseOptions(row.options), row.rule_type) };
}

/** Read-only fields are refused by the schema as unknown; say plainly why. */
function explainReadOnly(fields: FieldError[]): FieldError[] {
  return fields.map((f) =>
    f.type === 'extra_forbidden' && f.path.length === 1 && (READ_ONLY_FIELDS as readonly string[]).includes(String(f.path[0]))
      ? { ...f, message: 'Read-only field: it is returned but cannot be set', type: 'read_only' }
      : f,
  );
}

/** Options as sent, with the seed's `edge_app` name folded into `fastedge`. */
function foldAlias(sent: unknown): { options: OptionsSent; errors: FieldError[] } {
  const options = (sent && typeof sent === 'object' && !Array.isArray(sent) ? sent : {}) as OptionsSent;
  if (!(EDGE_APP_ALIAS in options)) return { options, errors: [] };
  const { [EDGE_APP_ALIAS]: edgeApp, ...rest } = options;
  if ('fastedge' in rest) return { options: rest, errors: [bodyField(['options', EDGE_APP_ALIAS], 'edge_app is another name for fastedge: send one of them', 'conflict')] };
  return { options: { ...rest, fastedge: edgeApp }, errors: [] };
}

/** Applies sent options to stored ones: null removes (inherit), an object sets (ON or OFF), absent keeps. */
function applyOptions(base: StoredOptions, sent: OptionsSent): StoredOptions {
  const next: StoredOptions = { ...base };
  for (const [name, value] of Object.entries(sent)) {
    if (value === undefined) continue;
    if (value === null) delete next[name as OptionName];
    else next[name as OptionName] = value;
  }
  return next;
}

interface Candidate {
  rule: unknown;
  ruleType: unknown;
  options: StoredOptions;
}

/** Every problem of a request at once: schema problems, then the rules on what would be stored. */
function check(schemaFields: FieldError[], candidate: Candidate, extra: FieldError[]): void {
  const fields = [...explainReadOnly(schemaFields), ...extra];
  const refused = new Set(schemaFields.map((f) => String(f.path[0])));
  if (!refused.has('rule') && !refused.has('ruleType') && typeof candidate.rule === 'string' && typeof candidate.ruleType === 'number') {
    fields.push(...ruleErrors(candidate.rule, candidate.ruleType));
  }
  // Options the schema refused are left out of the rules: their shape is unknown.
  const badOptions = new Set(schemaFields.filter((f) => f.path[0] === 'options' && f.path.length > 1).map((f) => String(f.path[1])));
  if (badOptions.has(EDGE_APP_ALIAS)) badOptions.add('fastedge');
  fields.push(...optionErrors(candidate.options, badOptions));
  if (fields.length > 0) throw invalid(fields);
}

/** The body as an object, whatever the schema thought of it (rules then run on what can be read). */
function asObject<T>(body: unknown): Partial<T> {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Partial<T>) : {};
}

export class RuleTemplateService {
  constructor(
    private readonly store: RuleTemplateStore,
    private readonly clock: Clock,
  ) {}

  async list(principal: Principal, page: PageRequest): Promise<Page<RuleTemplate>> {
    await this.ensureSystemTemplates();
    const id = principal.clientId;
    return paginate(page, () => this.store.count(id), async (p) => (await this.store.list(id, p)).map(toTemplate));
  }

  async get(principal: Principal, id: number): Promise<TemplateResult> {
    return result(await this.visible(principal, id));
  }

  async create(principal: Principal, body: unknown, schemaFields: FieldError[]): Promise<TemplateResult> {
    const input = asObject<RuleTemplateInput>(body);
    const folded = foldAlias(input.options);
    const options = applyOptions({}, folded.options);
    check(schemaFields, { rule: input.rule, ruleType: input.ruleType, options }, folded.errors);
    const fields = this.fields(input as RuleTemplateInput, options);
    const id = await this.store.insert(principal.clientId, fields, this.clock.now());
    return this.get(principal, id);
  }

  /** PUT: the body replaces the whole template; omitted optional fields go back to their defaults. */
  async replace(principal: Principal, id: number, body: unknown, schemaFields: FieldError[]): Promise<TemplateResult> {
    await this.changeable(principal, id);
    const input = asObject<RuleTemplateInput>(body);
    const folded = foldAlias(input.options);
    const options = applyOptions({}, folded.options);
    check(schemaFields, { rule: input.rule, ruleType: input.ruleType, options }, folded.errors);
    await this.store.update(principal.clientId, id, this.fields(input as RuleTemplateInput, options), this.clock.now());
    return this.get(principal, id);
  }

  /** PATCH: only the fields sent change; inside options, only the options sent. */
  async update(principal: Principal, id: number, body: unknown, schemaFields: FieldError[]): Promise<TemplateResult> {
    const row = await this.changeable(principal, id);
    const input = asObject<RuleTemplatePatchInput>(body);
    const folded = foldAlias(input.options);
    const options = applyOptions(parseOptions(row.options), folded.options);
    const rule = input.rule ?? row.rule;
    const ruleType = input.ruleType ?? row.rule_type;
    check(schemaFields, { rule, ruleType, options }, folded.errors);
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
    await this.store.markDeleted(principal.clientId, id, this.clock.now());
  }

  /** Which of the client's templates (its own and the system ones) applies to a request URI. */
  async match(clientId: number, uri: string): Promise<MatchOutcome> {
    await this.ensureSystemTemplates();
    const { template, matching } = matchTemplate(await this.store.rules(clientId), uri);
    const row = template && (await this.store.find(clientId, template.id));
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
    if (row.is_default === 1) throw new AppError('forbidden', 'System templates (default: true) cannot be changed or deleted; create a custom template instead.');
    return row;
  }
}
