// Request and response schemas of a CDN resource's rules: the rule-template fields, per resource, plus
// `active` and an optional origin group. Bodies are open objects: unknown fields are ignored.
import { type Static, Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { ListOf, PageQuery } from '../http.js';
import { MAX_LENGTH } from '../limits.js';
import { RuleOptionsInput, RuleOptionsOutput } from '../options/catalogue.js';
import { OverrideOriginProtocol, PROTOCOLS, Rule, RuleName, RuleType, Weight } from '../rule-templates/schemas.js';

const Active = Type.Boolean({ description: 'An inactive rule is not applied' });
const OriginGroup = Nullable(Type.Integer({ description: 'Origin group ID' }), {
  description: "Origin group for the requests the rule applies to; null = the resource's",
});

export const ResourceRuleSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Rule ID' }),
    name: RuleName('Rule name, unique in the resource'),
    active: Active,
    deleted: Type.Boolean({ description: 'Always false' }),
    originGroup: OriginGroup,
    rule: Rule,
    ruleType: RuleType,
    weight: Weight,
    originProtocol: StringEnum(PROTOCOLS, { description: "The protocol in force: overrideOriginProtocol, else the resource's originProtocol" }),
    overrideOriginProtocol: OverrideOriginProtocol,
    preset_applied: Type.Boolean({ description: 'Always false (presets are not modelled)' }),
    primary_rule: Nullable(Type.Integer(), { description: 'Always null (shared cache zones are not modelled)' }),
    options: RuleOptionsOutput,
  },
  { description: 'Rule of a CDN resource' },
);
export type ResourceRule = Static<typeof ResourceRuleSchema>;

const fields = {
  name: RuleName('Rule name, unique in the resource'),
  rule: Rule,
  ruleType: RuleType,
  active: Active,
  weight: Weight,
  overrideOriginProtocol: OverrideOriginProtocol,
  originGroup: OriginGroup,
  options: RuleOptionsInput,
};
const optional = Type.Partial(Type.Object(fields));

export const RuleCreate = Type.Object({ ...optional.properties, name: fields.name, rule: fields.rule, ruleType: fields.ruleType });
export const RuleReplace = Type.Object({ ...optional.properties, rule: fields.rule, ruleType: fields.ruleType });
export const RulePatch = optional;
export type RuleInput = Static<typeof RulePatch>;

export const ResourceParams = Type.Object({ resource_id: Type.Integer({ description: 'CDN resource ID' }) });
export const RuleParams = Type.Object({ resource_id: Type.Integer({ description: 'CDN resource ID' }), rule_id: Type.Integer({ description: 'Rule ID' }) });
export const RuleListQuery = Type.Object(PageQuery);
export const RuleList = ListOf(ResourceRuleSchema, 'Rules of the resource: an array, or a page when limit is given');

export const EffectiveBody = Type.Object(
  {
    client_id: Type.Integer({ minimum: 1, description: 'Client owning the resource' }),
    resource_id: Type.Integer({ minimum: 1, description: 'CDN resource ID' }),
    uri: Type.String({ minLength: 1, maxLength: MAX_LENGTH.url, description: 'Request URI (path, optionally with query or full URL)' }),
  },
  { additionalProperties: false },
);

export const EffectiveResult = Type.Object({
  path: Type.String({ description: 'The path that was matched' }),
  rule: Nullable(ResourceRuleSchema, { description: 'The active rule that applies, or null' }),
  matching: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), weight: Type.Integer(), rule: Type.String(), ruleType: Type.Integer() }), {
    description: 'Every active rule whose pattern matches, in the order they apply',
  }),
  originGroup: Type.Integer({ description: 'The origin group in force' }),
  originProtocol: StringEnum(PROTOCOLS, { description: 'The origin protocol in force' }),
  options: Type.Record(Type.String(), Type.Unknown(), {
    description: 'Every option in force (ON or OFF); options neither the rule nor the resource sets are absent',
  }),
  sources: Type.Record(Type.String(), StringEnum(['rule', 'resource'] as const), { description: 'Where each option in force comes from' }),
});
