// Request and response schemas of the rule-template operations, field names as the reference spells them.
// Bodies are open objects, as the reference leaves them: unknown fields are ignored; the read-only fields
// the seed names are refused by the service.
import { type Static, Type } from 'typebox';
import { Nullable, ReadOnlyField, StringEnum } from '../../platform/schema.js';
import { ListOf, PageQuery } from '../http.js';
import { MAX_LENGTH } from '../limits.js';
import { RuleOptionsInput, RuleOptionsOutput } from '../options/catalogue.js';

export const PROTOCOLS = ['HTTPS', 'HTTP', 'MATCH'] as const;

export const RuleName = (description: string) => Type.String({ maxLength: MAX_LENGTH.name, description });
export const Rule = Type.String({
  maxLength: 300,
  description: 'Regular expression the request path is matched against (RE2 syntax: no backreferences or lookarounds)',
});
export const RuleType = Type.Integer({ minimum: 0, maximum: 1, description: '0: regex starting with / or ^/; 1 (deprecated): / is put before the regex' });
export const Weight = Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Order: the lowest matching weight applies' });
export const OverrideOriginProtocol = Nullable(StringEnum(PROTOCOLS), { description: 'HTTPS, HTTP, MATCH, or null to inherit the resource originProtocol' });

/** Fields returned but never accepted (the seed says so): refused by name when sent. */
const ReadOnlyFields = {
  id: Type.Optional(ReadOnlyField()),
  client: Type.Optional(ReadOnlyField()),
  deleted: Type.Optional(ReadOnlyField()),
  template: Type.Optional(ReadOnlyField()),
  default: Type.Optional(ReadOnlyField()),
};

export const RuleTemplateSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Rule template ID' }),
    name: RuleName('Rule template name'),
    client: Type.Integer({ description: 'Owner client ID; 0 for system templates' }),
    deleted: Type.Boolean(),
    rule: Rule,
    ruleType: RuleType,
    weight: Weight,
    template: Type.Boolean({ description: 'Always true for a rule template' }),
    default: Type.Boolean({ description: 'true: system template, readable by all, not changeable' }),
    overrideOriginProtocol: OverrideOriginProtocol,
    options: RuleOptionsOutput,
  },
  { description: 'CDN rule template' },
);
export type RuleTemplate = Static<typeof RuleTemplateSchema>;

/** Create and full replacement: `rule` and `ruleType` required, omitted fields take their defaults. */
export const RuleTemplateBody = Type.Object({
  name: Type.Optional(RuleName('Rule template name')),
  rule: Rule,
  ruleType: RuleType,
  weight: Type.Optional(Weight),
  overrideOriginProtocol: Type.Optional(OverrideOriginProtocol),
  options: Type.Optional(RuleOptionsInput),
  ...ReadOnlyFields,
});
export type RuleTemplateInput = Static<typeof RuleTemplateBody>;

/** Partial update: only the fields sent change; inside `options`, only the options sent. */
export const RuleTemplatePatch = Type.Partial(RuleTemplateBody);
export type RuleTemplatePatchInput = Static<typeof RuleTemplatePatch>;

export const RuleTemplateParams = Type.Object({ rule_template_id: Type.Integer({ description: 'Rule template ID' }) });

export const ListQuery = Type.Object(PageQuery);

export const RuleTemplateList = ListOf(RuleTemplateSchema, 'Rule templates (own and system): an array, or a page when limit is given');

export const MatchBody = Type.Object(
  {
    client_id: Type.Integer({ minimum: 1, description: 'Client whose templates are matched' }),
    uri: Type.String({ minLength: 1, maxLength: 8192, description: 'Request URI (path, optionally with query or full URL)' }),
  },
  { additionalProperties: false },
);

export const MatchResult = Type.Object({
  path: Type.String({ description: 'The path that was matched' }),
  template: Nullable(RuleTemplateSchema, { description: 'The template that applies, or null' }),
  matching: Type.Array(Type.Object({ id: Type.Integer(), weight: Type.Integer(), rule: Type.String(), ruleType: Type.Integer() }), {
    description: 'Every matching template, in the order they apply',
  }),
});
