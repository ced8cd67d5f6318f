// Record content type by type: what is accepted, what is refused and why, identities, zone-file text.
import { describe, expect, it } from 'vitest';
import { contentProblem, presentation, recordKey, type RRsetType } from './content.js';
import { placeProblem } from './rules.js';

const valid: [RRsetType, unknown[]][] = [
  ['A', ['192.0.2.1']],
  ['AAAA', ['2001:db8::1']],
  ['NS', ['ns1.example.net.']],
  ['CNAME', ['target.example.net']],
  ['PTR', ['host.example.net.']],
  ['MX', [10, 'mail.example.com.']],
  ['MX', ['10', 'mail.example.com']],
  ['MX', [0, '.']],
  ['TXT', ['v=spf1 -all']],
  ['TXT', ['part one', 'part two']],
  ['TXT', ['']],
  ['SRV', [10, 5, 5060, 'sip.example.com.']],
  ['CAA', [0, 'issue', 'ca.example.net']],
  ['CAA', [128, 'iodef', 'mailto:security@example.com']],
  ['DS', [12345, 13, 2, 'a'.repeat(64)]],
  ['HTTPS', [1, '.', ['alpn', 'h3', 'h2'], ['port', 1443], ['ipv4hint', '10.0.0.1'], ['ech', 'AEn+DQBFKw==']]],
  ['HTTPS', [0, 'pool.example.com.']],
  ['SVCB', [2, 'svc.example.com.', ['mandatory', 'alpn'], ['alpn', 'h2'], ['no-default-alpn'], ['ipv6hint', '2001:db8::2'], ['key65000', 'opaque']]],
];

const invalid: [RRsetType, unknown[], RegExp][] = [
  ['A', ['2001:db8::1'], /not an IPv4 address/],
  ['A', ['192.0.2.300'], /not an IPv4 address/],
  ['A', ['192.0.2.1', '192.0.2.2'], /exactly 1 part/],
  ['A', [], /exactly 1 part/],
  ['AAAA', ['192.0.2.1'], /not an IPv6 address/],
  ['AAAA', ['fe80::1%eth0'], /not an IPv6 address/],
  ['CNAME', ['.'], /root/],
  ['CNAME', ['bad name'], /target/],
  ['NS', [42], /host name/],
  ['MX', ['mail.example.com'], /exactly 2 parts/],
  ['MX', [70000, 'mail.example.com'], /preference/],
  ['MX', [-1, 'mail.example.com'], /preference/],
  ['MX', [1.5, 'mail.example.com'], /preference/],
  ['TXT', [], /at least one/],
  ['TXT', [42], /text/],
  ['TXT', ['x'.repeat(8193)], /at most 8192/],
  ['SRV', [10, 5, 'sip', 'sip.example.com'], /port/],
  ['SRV', [10, 5, 5060], /exactly 4 parts/],
  ['CAA', [0, 'issue'], /exactly 3 parts/],
  ['CAA', [256, 'issue', 'ca.example'], /flags/],
  ['CAA', [0, 'is sue', 'ca.example'], /tag/],
  ['DS', [1, 13, 2, 'xyz'], /hexadecimal/],
  ['DS', [1, 13, 2, 'ab'], /64 hexadecimal digits/],
  ['HTTPS', [1], /at least/],
  ['HTTPS', [0, '.', ['alpn', 'h2']], /alias mode/],
  ['HTTPS', [1, '.', ['colour', 'blue']], /unknown key/],
  ['HTTPS', [1, '.', ['port', 'x']], /port number/],
  ['HTTPS', [1, '.', ['alpn', 'h2'], ['alpn', 'h3']], /twice/],
  ['HTTPS', [1, '.', 'alpn=h2'], /array/],
  ['HTTPS', [1, '.', ['ipv4hint', '2001:db8::1']], /IPv4/],
  ['SOA', ['ns.example.', 'h.example.', 1, 2, 3, 4, 5], /belong to the zone/],
];

describe('content', () => {
  it.each(valid)('accepts %s %j', (type, parts) => {
    expect(contentProblem(type, parts)).toBeUndefined();
  });

  it.each(invalid)('refuses %s %j', (type, parts, message) => {
    expect(contentProblem(type, parts)).toMatch(message);
  });

  it('identifies records regardless of case, trailing dots, number spelling and IPv6 form', () => {
    expect(recordKey('MX', ['10', 'Mail.Example.com.'])).toBe(recordKey('MX', [10, 'mail.example.com']));
    expect(recordKey('AAAA', ['2001:DB8:0::1'])).toBe(recordKey('AAAA', ['2001:db8::1']));
    expect(recordKey('TXT', ['a'])).not.toBe(recordKey('TXT', ['A']));
  });

  it.each([
    ['A', ['192.0.2.1'], '192.0.2.1'],
    ['CNAME', ['target.example.net'], 'target.example.net.'],
    ['MX', ['10', 'mail.example.com'], '10 mail.example.com.'],
    ['TXT', ['say "hi"', 'back\\slash'], '"say \\"hi\\"" "back\\\\slash"'],
    ['TXT', ['é'], '"\\195\\169"'],
    ['CAA', [0, 'issue', 'ca.example.net'], '0 issue "ca.example.net"'],
    ['DS', [1, 13, 2, 'ab'.repeat(32)], `1 13 2 ${'AB'.repeat(32)}`],
    ['HTTPS', [1, '.', ['alpn', 'h3', 'h2'], ['port', 443], ['no-default-alpn']], '1 . alpn="h3,h2" port=443 no-default-alpn'],
  ] as [RRsetType, unknown[], string][])('writes %s %j as %s', (type, parts, text) => {
    expect(presentation(type, parts)).toBe(text);
  });

  it('splits long text into strings of at most 255 bytes', () => {
    const text = presentation('TXT', ['x'.repeat(300)]);
    expect(text).toBe(`"${'x'.repeat(255)}" "${'x'.repeat(45)}"`);
  });
});

describe('place in the zone', () => {
  it.each([
    ['example.com', 'example.com', 'CNAME', [], /apex/],
    ['example.com', 'www.example.com', 'CNAME', ['A'], /alone/],
    ['example.com', 'www.example.com', 'A', ['CNAME'], /has a CNAME/],
    ['example.com', 'example.com', 'DS', [], /parent zone/],
    ['example.com', '*.example.com', 'NS', [], /wildcard/],
  ] as [string, string, RRsetType, string[], RegExp][])('%s: %s %s next to %j is refused', (zone, name, type, others, message) => {
    expect(placeProblem(zone, name, type, others)).toMatch(message);
  });

  it('allows a CNAME under the apex alone, and NS records at a delegation', () => {
    expect(placeProblem('example.com', 'www.example.com', 'CNAME', [])).toBeUndefined();
    expect(placeProblem('example.com', 'sub.example.com', 'NS', ['DS'])).toBeUndefined();
    expect(placeProblem('example.com', '*.example.com', 'A', [])).toBeUndefined();
  });
});
