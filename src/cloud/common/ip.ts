// IPv4 and IPv6 networks in CIDR form (pure functions): parsed, checked and written in their
// canonical form (host bits cleared), as security group rules and routes hold them.
import { isIP } from 'node:net';

export interface Network {
  family: 4 | 6;
  /** Canonical text, e.g. `10.0.0.0/8`, `2001:db8::/32`. */
  text: string;
}

/** The network `text` names (`/prefix` optional: a single address), or null when it is not one. */
export function parseNetwork(text: string): Network | null {
  const [address, prefixText, extra] = text.split('/');
  if (extra !== undefined) return null;
  const family = isIP(address);
  if (family !== 4 && family !== 6) return null;
  const bits = family === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) return null;
  const value = family === 4 ? v4ToBigInt(address) : v6ToBigInt(address);
  const mask = prefix === 0 ? 0n : ((1n << BigInt(prefix)) - 1n) << BigInt(bits - prefix);
  const base = value & mask;
  return { family, text: `${family === 4 ? bigIntToV4(base) : bigIntToV6(base)}/${prefix}` };
}

/** Whether `text` is an IPv4 or IPv6 address. */
export function isAddress(text: string): boolean {
  return isIP(text) !== 0;
}

function v4ToBigInt(address: string): bigint {
  return address.split('.').reduce((acc, octet) => (acc << 8n) + BigInt(Number(octet)), 0n);
}

function bigIntToV4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join('.');
}

function v6ToBigInt(address: string): bigint {
  let text = address;
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = v4ToBigInt(v4[1]);
    text = `${text.slice(0, v4.index)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.reduce((acc, g) => (acc << 16n) + BigInt(parseInt(g, 16)), 0n);
}

/** RFC 5952 text: lower case, the longest run of zero groups (two or more) as `::`. */
function bigIntToV6(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - i * 16)) & 0xffffn));
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j += 1;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.length < 2) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}
