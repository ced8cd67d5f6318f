import { describe, expect, it } from 'vitest';
import { defaultGroupRules, firstDuplicate, normaliseRule, sameRule, TEMPLATE_RULES, type Rule } from './rules.js';

const rule = (input: Parameters<typeof normaliseRule>[0]): Rule => {
  const result = normaliseRule(input);
  if ('problems' in result) throw new Error(JSON.stringify(result.problems));
  return result.rule;
};
const problems = (input: Parameters<typeof normaliseRule>[0]) => {
  const result = normaliseRule(input);
  return 'problems' in result ? result.problems.map((p) => p.field) : [];
};

describe('normaliseRule', () => {
  it('fills defaults and writes the remote prefix in canonical form', () => {
    expect(rule({ direction: 'ingress', protocol: 'tcp', port_range_min: 22, remote_ip_prefix: '10.1.2.3/8' })).toEqual({
      direction: 'ingress',
      ethertype: 'IPv4',
      protocol: 'tcp',
      port_range_min: 22,
      port_range_max: 22,
      remote_ip_prefix: '10.0.0.0/8',
      remote_group_id: null,
      description: '',
    });
    expect(rule({ direction: 'egress', protocol: 'any' }).protocol).toBeNull();
    expect(rule({ direction: 'ingress', protocol: 'icmp', port_range_min: 8, port_range_max: 0 })).toMatchObject({ port_range_min: 8, port_range_max: 0 });
  });

  it('refuses ports a protocol cannot have and ranges upside down', () => {
    expect(problems({ direction: 'ingress', protocol: 'tcp', port_range_min: 443, port_range_max: 80 })).toEqual(['port_range_max']);
    expect(problems({ direction: 'ingress', protocol: 'udp', port_range_min: 0 })).toEqual(['port_range_min']);
    expect(problems({ direction: 'ingress', protocol: 'gre', port_range_min: 10 })).toEqual(['port_range_min']);
    expect(problems({ direction: 'ingress', port_range_min: 10 })).toEqual(['port_range_min']);
    expect(problems({ direction: 'ingress', protocol: 'tcp', port_range_max: 10 })).toEqual(['port_range_min']);
    expect(problems({ direction: 'ingress', protocol: 'icmp', port_range_min: 300, port_range_max: 256 })).toEqual(['port_range_min', 'port_range_max']);
  });

  it('refuses a remote prefix of the other family, a bad one, and a prefix with a remote group', () => {
    expect(problems({ direction: 'ingress', ethertype: 'IPv6', remote_ip_prefix: '10.0.0.0/8' })).toEqual(['remote_ip_prefix']);
    expect(problems({ direction: 'ingress', remote_ip_prefix: 'not-a-network' })).toEqual(['remote_ip_prefix']);
    expect(problems({ direction: 'ingress', protocol: 'ipv6-icmp' })).toEqual(['protocol']);
    expect(problems({ direction: 'ingress', remote_ip_prefix: '10.0.0.0/8', remote_group_id: 'a9d8f8b4-3b58-4a52-9ee8-f0d7b7a41b1f' })).toEqual([
      'remote_group_id',
    ]);
  });
});

describe('sameRule', () => {
  it('treats rules matching the same traffic as one, descriptions aside', () => {
    const a = rule({ direction: 'ingress', protocol: 'tcp', port_range_min: 80, description: 'web' });
    expect(sameRule(a, rule({ direction: 'ingress', protocol: 'tcp', port_range_min: 80, port_range_max: 80, remote_ip_prefix: '0.0.0.0/0' }))).toBe(true);
    expect(sameRule(a, rule({ direction: 'egress', protocol: 'tcp', port_range_min: 80 }))).toBe(false);
    expect(sameRule(a, rule({ direction: 'ingress', protocol: 'tcp', port_range_min: 80, ethertype: 'IPv6' }))).toBe(false);
    expect(firstDuplicate([a, rule({ direction: 'ingress', protocol: 'udp' }), { ...a, description: 'again' }])).toBe(2);
    expect(firstDuplicate(TEMPLATE_RULES)).toBe(-1);
  });

  it('gives the default group ingress from its own members only', () => {
    expect(
      defaultGroupRules('g')
        .filter((r) => r.direction === 'ingress')
        .map((r) => r.remote_group_id),
    ).toEqual(['g', 'g']);
  });
});
