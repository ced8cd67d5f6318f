// Security group rules as pure values: what a request may ask for (port bounds that fit the protocol,
// a remote prefix of the rule's ethertype, a remote prefix or a remote group but not both), their
// canonical form, and when two rules are the same rule (a duplicate is refused).
import { parseNetwork } from '../common/ip.js';

export interface RuleInput {
  direction: 'ingress' | 'egress';
  ethertype?: 'IPv4' | 'IPv6';
  protocol?: string | null;
  port_range_min?: number | null;
  port_range_max?: number | null;
  remote_ip_prefix?: string | null;
  remote_group_id?: string | null;
  description?: string;
}

export interface Rule {
  direction: 'ingress' | 'egress';
  ethertype: 'IPv4' | 'IPv6';
  /** null: every protocol (requests may also say `any`). */
  protocol: string | null;
  port_range_min: number | null;
  port_range_max: number | null;
  remote_ip_prefix: string | null;
  remote_group_id: string | null;
  description: string;
}

export interface RuleProblem {
  field: keyof RuleInput;
  message: string;
}

/** Protocols whose rules may name a port range. */
const PORT_PROTOCOLS = new Set(['tcp', 'udp', 'sctp', 'udplite', 'dccp']);
/** Protocols whose "port" bounds are the ICMP type (min) and code (max), each 0 to 255. */
const ICMP_PROTOCOLS = new Set(['icmp', 'ipv6-icmp']);

/** The rule in canonical form, or every problem with it. */
export function normaliseRule(input: RuleInput): { rule: Rule } | { problems: RuleProblem[] } {
  const problems: RuleProblem[] = [];
  const ethertype = input.ethertype ?? 'IPv4';
  const protocol = input.protocol === 'any' || input.protocol === undefined ? null : input.protocol;
  let min = input.port_range_min ?? null;
  let max = input.port_range_max ?? null;
  if (min !== null && max === null) max = min;
  if (min === null && max !== null) problems.push({ field: 'port_range_min', message: 'is required when port_range_max is given' });
  if (protocol === null || (!PORT_PROTOCOLS.has(protocol) && !ICMP_PROTOCOLS.has(protocol))) {
    if (min !== null || max !== null)
      problems.push({
        field: 'port_range_min',
        message: `ports cannot be set for protocol ${protocol ?? 'any'}; only for ${[...PORT_PROTOCOLS, ...ICMP_PROTOCOLS].join(', ')}`,
      });
  } else if (ICMP_PROTOCOLS.has(protocol)) {
    if (min !== null && min > 255) problems.push({ field: 'port_range_min', message: 'is the ICMP type for this protocol: 0 to 255' });
    if (max !== null && max > 255) problems.push({ field: 'port_range_max', message: 'is the ICMP code for this protocol: 0 to 255' });
  } else if (min !== null && max !== null) {
    if (min < 1) problems.push({ field: 'port_range_min', message: 'ports start at 1' });
    if (max < min) problems.push({ field: 'port_range_max', message: `must be at least port_range_min (${min})` });
  }
  if (protocol === 'ipv6-icmp' && ethertype === 'IPv4') problems.push({ field: 'protocol', message: 'ipv6-icmp needs ethertype IPv6' });
  let prefix: string | null = null;
  if (input.remote_ip_prefix !== undefined && input.remote_ip_prefix !== null) {
    const network = parseNetwork(input.remote_ip_prefix);
    if (!network) problems.push({ field: 'remote_ip_prefix', message: 'must be an IPv4 or IPv6 network in CIDR form' });
    else if ((network.family === 4) !== (ethertype === 'IPv4'))
      problems.push({ field: 'remote_ip_prefix', message: `is an IPv${network.family} network but the rule's ethertype is ${ethertype}` });
    else prefix = network.text;
  }
  const group = input.remote_group_id ?? null;
  if (prefix !== null && group !== null) problems.push({ field: 'remote_group_id', message: 'cannot be combined with remote_ip_prefix' });
  if (problems.length > 0) return { problems };
  return {
    rule: {
      direction: input.direction,
      ethertype,
      protocol,
      port_range_min: min,
      port_range_max: max,
      remote_ip_prefix: prefix,
      remote_group_id: group,
      description: input.description ?? '',
    },
  };
}

/** Two rules that match the same traffic (descriptions aside) are the same rule. */
export function sameRule(a: Rule, b: Rule): boolean {
  const anyPrefix = (r: Rule) => r.remote_ip_prefix ?? (r.remote_group_id === null ? (r.ethertype === 'IPv4' ? '0.0.0.0/0' : '::/0') : null);
  return (
    a.direction === b.direction &&
    a.ethertype === b.ethertype &&
    a.protocol === b.protocol &&
    a.port_range_min === b.port_range_min &&
    a.port_range_max === b.port_range_max &&
    anyPrefix(a) === anyPrefix(b) &&
    a.remote_group_id === b.remote_group_id
  );
}

/** Index of the first rule of `rules` that repeats an earlier one, or -1. */
export function firstDuplicate(rules: Rule[]): number {
  return rules.findIndex((rule, i) => rules.slice(0, i).some((earlier) => sameRule(earlier, rule)));
}

const allow = (direction: Rule['direction'], ethertype: Rule['ethertype'], remoteGroup: string | null = null): Rule => ({
  direction,
  ethertype,
  protocol: null,
  port_range_min: null,
  port_range_max: null,
  remote_ip_prefix: null,
  remote_group_id: remoteGroup,
  description: '',
});

/** What a group created without a `rules` list gets: all traffic allowed in and out, IPv4 and IPv6. */
export const TEMPLATE_RULES: Rule[] = [allow('egress', 'IPv4'), allow('egress', 'IPv6'), allow('ingress', 'IPv4'), allow('ingress', 'IPv6')];

/** The rules of a project's default group: all traffic out, and in from members of the group only. */
export function defaultGroupRules(groupId: string): Rule[] {
  return [allow('egress', 'IPv4'), allow('egress', 'IPv6'), allow('ingress', 'IPv4', groupId), allow('ingress', 'IPv6', groupId)];
}
