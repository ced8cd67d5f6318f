// Host names and origin addresses: what a CDN resource's cname and secondary host names may be, and what
// an origin source ("host" or "host:port", an IP address or a domain) may be. Private, loopback and
// reserved addresses cannot be origins: the CDN fetches from the public internet.
import { BlockList, isIP } from 'node:net';

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
/** A domain name of at least two labels, the last one not numeric (so an IP address is not a domain). */
const DOMAIN = new RegExp(`^(?=.{1,253}$)(?:${LABEL}\\.)+(?!\\d+$)${LABEL}$`, 'i');
/** The same with an optional `*.` first label (wildcard secondary host names). */
const WILDCARD_DOMAIN = new RegExp(`^(?:\\*\\.)?(?=.{1,253}$)(?:${LABEL}\\.)+(?!\\d+$)${LABEL}$`, 'i');

export function isDomain(text: string): boolean {
  return DOMAIN.test(text);
}

export function isHostname(text: string, allowWildcard = false): boolean {
  return (allowWildcard ? WILDCARD_DOMAIN : DOMAIN).test(text);
}

const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['0.0.0.0', 8],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['::', 128],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv6');

const RESERVED = new BlockList();
for (const [net, bits] of [
  ['100.64.0.0', 10],
  ['192.0.0.0', 24],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  RESERVED.addSubnet(net, bits, 'ipv4');
}

export type SourceProblem = 'scheme' | 'path' | 'port' | 'invalid' | 'private' | 'reserved';

export interface ParsedSource {
  host: string;
  port: number | null;
}

/** Splits "host", "host:port", "[v6]" or "[v6]:port"; a bare IPv6 address has no port. */
function split(source: string): { host: string; portText: string | null } {
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(source);
  if (bracketed) return { host: bracketed[1], portText: bracketed[2] ?? null };
  if (isIP(source) === 6) return { host: source, portText: null };
  const colon = source.lastIndexOf(':');
  return colon < 0 ? { host: source, portText: null } : { host: source.slice(0, colon), portText: source.slice(colon + 1) };
}

/** An origin source, or what is wrong with it. */
export function parseSource(source: string): ParsedSource | { problem: SourceProblem } {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) return { problem: 'scheme' };
  if (source.includes('/')) return { problem: 'path' };
  if (source === '' || /\s/.test(source)) return { problem: 'invalid' };
  const { host, portText } = split(source);
  let port: number | null = null;
  if (portText !== null) {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) return { problem: 'port' };
    port = Number(portText);
  }
  const version = isIP(host);
  if (version !== 0) {
    const family = version === 4 ? 'ipv4' : 'ipv6';
    if (PRIVATE.check(host, family)) return { problem: 'private' };
    if (version === 4 && RESERVED.check(host, 'ipv4')) return { problem: 'reserved' };
    return { host, port };
  }
  if (host.toLowerCase() === 'localhost' || host.toLowerCase().endsWith('.localhost')) return { problem: 'private' };
  return isDomain(host) ? { host: host.toLowerCase(), port } : { problem: 'invalid' };
}

export const SOURCE_MESSAGES: Record<SourceProblem, string> = {
  scheme: 'Give the origin without a scheme (no http:// or https://)',
  path: 'Give the origin without a path: a host name or IP address, and a port if needed',
  port: 'The port after ":" must be a number from 1 to 65535',
  invalid: 'Must be a public IP address or a domain name, optionally with ":port"',
  private: 'The origin is in a private or loopback network; the CDN reaches only public addresses',
  reserved: 'The origin is a reserved IP address; the CDN reaches only public addresses',
};
