import { describe, expect, it } from 'vitest';
import { isAddress, parseNetwork } from './ip.js';

describe('parseNetwork', () => {
  it('writes IPv4 and IPv6 networks in canonical form, host bits cleared', () => {
    expect(parseNetwork('10.1.2.3/8')).toEqual({ family: 4, text: '10.0.0.0/8' });
    expect(parseNetwork('0.0.0.0/0')).toEqual({ family: 4, text: '0.0.0.0/0' });
    expect(parseNetwork('192.168.1.7')).toEqual({ family: 4, text: '192.168.1.7/32' });
    expect(parseNetwork('2001:DB8:0:0:1::1/64')).toEqual({ family: 6, text: '2001:db8::/64' });
    expect(parseNetwork('::/0')).toEqual({ family: 6, text: '::/0' });
    expect(parseNetwork('fe80::1:0:0:1/128')).toEqual({ family: 6, text: 'fe80::1:0:0:1/128' });
    expect(parseNetwork('::ffff:10.0.0.1/128')).toEqual({ family: 6, text: '::ffff:a00:1/128' });
  });

  it('refuses what is not a network', () => {
    for (const text of ['10.0.0.0/33', '2001:db8::/129', '10.0.0/8', 'example.com/8', '10.0.0.0/8/1', '10.0.0.0/x', ''])
      expect(parseNetwork(text), text).toBeNull();
  });

  it('tells addresses', () => {
    expect(isAddress('10.0.0.1')).toBe(true);
    expect(isAddress('2001:db8::1')).toBe(true);
    expect(isAddress('10.0.0.1/32')).toBe(false);
  });
});
