// Schemas of L7 policies (what a listener does with requests that match) and their rules.
import { Type } from 'typebox';
import { IntegerEnum, Nullable, StringEnum } from '../../platform/schema.js';
import { LIMITS, pageQuery, ResourceName, Text } from '../common/schemas.js';
import { COMPARE_TYPES, L7_RULE_TYPES, OPERATING_STATUSES, POLICY_ACTIONS, PROVISIONING_STATUSES, REDIRECT_CODES } from './enums.js';

const Tags = Type.Optional(Type.Array(Text(255, { minLength: 1 }), { maxItems: LIMITS.tags, description: 'Plain strings' }));
const Url = Text(LIMITS.url, { minLength: 1 });
/**
 * A policy's action and the fields it takes. One object rather than the reference's union of four, so
 * that a missing or misplaced field is refused by name (l7.ts checks which fields each action takes).
 */
const policyFields = {
  action: StringEnum(POLICY_ACTIONS),
  name: Type.Optional(ResourceName()),
  position: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: '1 is evaluated first' })),
  tags: Tags,
  redirect_url: Type.Optional(Url),
  redirect_prefix: Type.Optional(Url),
  redirect_pool_id: Type.Optional(Text(36)),
  redirect_http_code: Type.Optional(IntegerEnum(REDIRECT_CODES, { description: 'REDIRECT_TO_URL and REDIRECT_PREFIX; default 302' })),
};
export const PolicyCreateBody = Type.Object({ listener_id: Text(36), ...policyFields });
export const PolicyUpdateBody = Type.Object(policyFields);

export const RuleCreateBody = Type.Object({
  type: StringEnum(L7_RULE_TYPES),
  compare_type: StringEnum(COMPARE_TYPES),
  value: Text(255, { minLength: 1 }),
  key: Type.Optional(Text(255, { description: 'COOKIE and HEADER rules: the cookie or header name' })),
  invert: Type.Optional(Type.Boolean()),
  tags: Tags,
});
export const RuleReplaceBody = Type.Object({
  type: Type.Optional(StringEnum(L7_RULE_TYPES)),
  compare_type: Type.Optional(StringEnum(COMPARE_TYPES)),
  value: Type.Optional(Text(255, { minLength: 1 })),
  key: Type.Optional(Text(255)),
  invert: Type.Optional(Type.Boolean()),
  tags: Tags,
});

const placed = { project_id: Type.Integer(), region_id: Type.Integer(), region: Type.String() };
const statuses = { provisioning_status: StringEnum(PROVISIONING_STATUSES), operating_status: StringEnum(OPERATING_STATUSES), task_id: Nullable(Type.String()) };

export const RuleSchema = Type.Object(
  {
    id: Type.String(),
    type: StringEnum(L7_RULE_TYPES),
    compare_type: StringEnum(COMPARE_TYPES),
    value: Type.String(),
    key: Nullable(Type.String()),
    invert: Type.Boolean(),
    tags: Nullable(Type.Array(Type.String())),
    ...placed,
    ...statuses,
  },
  { description: 'A condition of an L7 policy' },
);

export const PolicySchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    listener_id: Type.String(),
    action: StringEnum(POLICY_ACTIONS),
    position: Type.Integer(),
    redirect_http_code: Nullable(Type.Integer()),
    redirect_pool_id: Nullable(Type.String()),
    redirect_prefix: Nullable(Type.String()),
    redirect_url: Nullable(Type.String()),
    rules: Type.Array(Type.Object({ id: Type.String(), ...placed })),
    tags: Type.Array(Type.String()),
    ...placed,
    ...statuses,
  },
  { description: 'What a listener does with the requests all of whose rules match' },
);

export const L7ListQuery = Type.Object(pageQuery());
export const PolicyParams = Type.Object({ project_id: Type.Integer({ minimum: 1 }), region_id: Type.Integer({ minimum: 1 }), l7policy_id: Text(36) });
export const RuleParams = Type.Object({ ...PolicyParams.properties, l7rule_id: Text(36) });
