import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { IpNetwork, LIMITS, pageQuery, ResourceName, TagSchema, TagsInput, TagsPatch, Text, Uuid } from '../common/schemas.js';

/** Rules one group may hold (the reference bounds a request to 250). */
export const MAX_RULES = 250;

const PROTOCOLS_V2 = [
  'ah',
  'dccp',
  'egp',
  'esp',
  'gre',
  'icmp',
  'igmp',
  'ipencap',
  'ipip',
  'ipv6-encap',
  'ipv6-frag',
  'ipv6-icmp',
  'ipv6-nonxt',
  'ipv6-opts',
  'ipv6-route',
  'ospf',
  'pgm',
  'rsvp',
  'sctp',
  'tcp',
  'udp',
  'udplite',
  'vrrp',
] as const;
/** v1 also says `any` (all protocols), as null does. */
const PROTOCOLS_V1 = ['any', ...PROTOCOLS_V2] as const;

export const RuleSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    security_group_id: Type.String({ format: 'uuid' }),
    direction: StringEnum(['egress', 'ingress']),
    ethertype: Nullable(StringEnum(['IPv4', 'IPv6'])),
    protocol: Nullable(StringEnum(PROTOCOLS_V1)),
    port_range_min: Nullable(Type.Integer({ minimum: 0, maximum: 65535 })),
    port_range_max: Nullable(Type.Integer({ minimum: 0, maximum: 65535 })),
    remote_ip_prefix: Nullable(Type.String()),
    remote_group_id: Nullable(Type.String({ format: 'uuid' })),
    description: Nullable(Type.String()),
    revision_number: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { description: 'A rule of a security group' },
);

export const GroupSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    description: Type.String(),
    revision_number: Type.Integer(),
    security_group_rules: Type.Array(RuleSchema),
    tags_v2: Type.Array(TagSchema),
    project_id: Type.Integer(),
    region_id: Type.Integer(),
    region: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { description: 'A security group: the traffic its members accept and send' },
);

const ruleFields = (protocols: readonly string[]) => ({
  direction: StringEnum(['egress', 'ingress']),
  ethertype: Type.Optional(StringEnum(['IPv4', 'IPv6'], { default: 'IPv4' })),
  protocol: Type.Optional(Nullable(StringEnum(protocols))),
  port_range_min: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 65535 }))),
  port_range_max: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 65535 }))),
  remote_ip_prefix: Type.Optional(Nullable(IpNetwork())),
  remote_group_id: Type.Optional(Uuid()),
  description: Type.Optional(Text(255, { default: '' })),
});

export const RuleBodyV2 = Type.Object(ruleFields(PROTOCOLS_V2));
export const RuleBodyV1 = Type.Object(ruleFields(PROTOCOLS_V1));

export const GroupCreateBodyV2 = Type.Object({
  name: ResourceName(),
  description: Type.Optional(Text(LIMITS.text, { default: '' })),
  rules: Type.Optional(Type.Array(RuleBodyV2, { maxItems: MAX_RULES, description: 'Omit for the default template (all traffic in and out); [] for none' })),
  tags: Type.Optional(TagsInput),
});

export const GroupUpdateBodyV2 = Type.Object({
  name: Type.Optional(ResourceName()),
  description: Type.Optional(Text()),
  rules: Type.Optional(Type.Array(RuleBodyV2, { maxItems: MAX_RULES, description: 'The complete set of rules the group is to have' })),
  tags: Type.Optional(TagsPatch),
});

export const GroupCreateBodyV1 = Type.Object({
  security_group: Type.Object({
    name: ResourceName(),
    description: Type.Optional(Text(LIMITS.text, { default: '' })),
    security_group_rules: Type.Optional(Type.Array(RuleBodyV1, { maxItems: MAX_RULES })),
    tags: Type.Optional(TagsInput),
  }),
  instances: Type.Optional(Type.Array(Uuid(), { maxItems: LIMITS.items, description: 'Instances whose ports join the group' })),
});

const ChangedRule = Type.Union([
  Type.Object({ action: StringEnum(['create']), ...ruleFields(PROTOCOLS_V1) }),
  Type.Object({ action: StringEnum(['delete']), security_group_rule_id: Uuid() }),
]);

export const GroupUpdateBodyV1 = Type.Object({
  name: Type.Optional(ResourceName()),
  changed_rules: Type.Optional(Type.Array(ChangedRule, { maxItems: 500 })),
  tags: Type.Optional(TagsPatch),
});

export const CopyBody = Type.Object({ name: ResourceName() });

export const GroupListQuery = Type.Object({
  ...pageQuery(10),
  name: Type.Optional(Text()),
  tag_key: Type.Optional(Type.Array(Text(255, { minLength: 1 }), { maxItems: LIMITS.tags })),
  tag_key_value: Type.Optional(Text(4096)),
});
