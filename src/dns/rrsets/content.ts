// Resource record content, type by type. The API carries a record as an array of parts (MX:
// [10, "mail.example.com."], SRV: [priority, weight, port, target], HTTPS: [1, ".", ["alpn", "h2"]]);
// each part is checked here, and the same parts give the record's zone-file text and its identity (two
// records of a set are the same when their identities match). Content is stored exactly as sent.
import { isIPv4, isIPv6 } from 'node:net';
import { absolute, hostName } from '../common/names.js';

/** Every type an RRset can have, as the reference lists them. */
export const RRSET_TYPES = ['A', 'AAAA', 'NS', 'CNAME', 'MX', 'TXT', 'SRV', 'SOA', 'PTR', 'SVCB', 'HTTPS', 'CAA', 'DS'] as const;
export type RRsetType = (typeof RRSET_TYPES)[number];
/** SOA is the zone's own record: it changes through the zone, never as an RRset. */
export const WRITABLE_TYPES: readonly RRsetType[] = RRSET_TYPES.filter((t) => t !== 'SOA');

export const TXT_MAX_BYTES = 8192;
export const CAA_VALUE_MAX = 1024;
const MAX_PARAM_VALUES = 32;
/** An ECH configuration list, base64: a few hundred bytes in practice. */
const ECH_MAX = 4096;

type Parts = readonly unknown[];
type Check = (parts: Parts) => string | undefined;

/** An integer part in range, given as a JSON number or as decimal text ("10"). */
export function integerPart(part: unknown, max: number): number | undefined {
  const value = typeof part === 'string' && /^\d{1,10}$/.test(part) ? Number(part) : part;
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= max ? value : undefined;
}

function count(parts: Parts, n: number, shape: string): string | undefined {
  return parts.length === n ? undefined : `needs exactly ${n} part${n === 1 ? '' : 's'}: ${shape}`;
}

function integer(parts: Parts, index: number, label: string, max: number): string | undefined {
  return integerPart(parts[index], max) === undefined ? `${label} (part ${index + 1}) must be an integer from 0 to ${max}` : undefined;
}

function host(parts: Parts, index: number, label: string, rootAllowed: boolean): string | undefined {
  const part = parts[index];
  if (typeof part !== 'string') return `${label} (part ${index + 1}) must be a host name`;
  if (part === '.' && !rootAllowed) return `${label} (part ${index + 1}) must not be the root "."`;
  const check = hostName(part);
  return 'problem' in check ? `${label} (part ${index + 1}) "${part}" ${check.problem}` : undefined;
}

function first(...checks: (() => string | undefined)[]): string | undefined {
  for (const check of checks) {
    const problem = check();
    if (problem) return problem;
  }
  return undefined;
}

/** An address as a record holds it: IPv6 without a zone index (fe80::1%eth0 names a local interface). */
export const isAddress = (family: 4 | 6, text: unknown): boolean =>
  typeof text === 'string' && (family === 4 ? isIPv4(text) : isIPv6(text) && !text.includes('%'));

const address =
  (family: 4 | 6): Check =>
  (parts) =>
    first(
      () => count(parts, 1, family === 4 ? '["192.0.2.1"]' : '["2001:db8::1"]'),
      () => (isAddress(family, parts[0]) ? undefined : `"${String(parts[0])}" is not an IPv${family} address`),
    );

const singleHost =
  (shape: string): Check =>
  (parts) =>
    first(
      () => count(parts, 1, shape),
      () => host(parts, 0, 'the target', false),
    );

const txt: Check = (parts) => {
  if (parts.length === 0) return 'needs at least one text part: ["v=spf1 -all"]';
  const bad = parts.findIndex((p) => typeof p !== 'string');
  if (bad >= 0) return `part ${bad + 1} must be text`;
  const bytes = parts.reduce<number>((n, p) => n + Buffer.byteLength(p as string), 0);
  return bytes > TXT_MAX_BYTES ? `the text is ${bytes} bytes long; at most ${TXT_MAX_BYTES}` : undefined;
};

const caa: Check = (parts) =>
  first(
    () => count(parts, 3, '[flags, tag, value], e.g. [0, "issue", "ca.example.net"]'),
    () => integer(parts, 0, 'flags', 255),
    () =>
      typeof parts[1] === 'string' && /^[a-zA-Z0-9]{1,15}$/.test(parts[1])
        ? undefined
        : 'the tag (part 2) must be 1 to 15 letters or digits (issue, issuewild, iodef, ...)',
    () =>
      typeof parts[2] === 'string' && parts[2].length <= CAA_VALUE_MAX ? undefined : `the value (part 3) must be text of at most ${CAA_VALUE_MAX} characters`,
  );

const DIGEST_LENGTHS: Record<number, number> = { 1: 40, 2: 64, 4: 96 };

const ds: Check = (parts) =>
  first(
    () => count(parts, 4, '[key_tag, algorithm, digest_type, digest]'),
    () => integer(parts, 0, 'key_tag', 65535),
    () => integer(parts, 1, 'algorithm', 255),
    () => integer(parts, 2, 'digest_type', 255),
    () => {
      const digest = parts[3];
      if (typeof digest !== 'string' || !/^([0-9a-fA-F]{2}){1,128}$/.test(digest)) return 'the digest (part 4) must be hexadecimal';
      const expected = DIGEST_LENGTHS[integerPart(parts[2], 255)!];
      return expected && digest.length !== expected ? `a digest of type ${String(parts[2])} has ${expected} hexadecimal digits` : undefined;
    },
  );

export const SVC_KEYS = ['mandatory', 'alpn', 'no-default-alpn', 'port', 'ipv4hint', 'ech', 'ipv6hint'] as const;

/** The number of a SvcParamKey (RFC 9460): a known name or keyNNNN; undefined when neither. */
export function svcKeyNumber(key: string): number | undefined {
  const known = (SVC_KEYS as readonly string[]).indexOf(key);
  if (known >= 0) return known;
  const generic = /^key(\d{1,5})$/.exec(key);
  return generic && Number(generic[1]) <= 65535 ? Number(generic[1]) : undefined;
}

function svcValuesProblem(key: string, values: unknown[]): string | undefined {
  const strings = values.every((v) => typeof v === 'string' && v.length > 0 && v.length <= 255);
  switch (key) {
    case 'no-default-alpn':
      return values.length === 0 ? undefined : 'takes no value';
    case 'port':
      return values.length === 1 && integerPart(values[0], 65535) !== undefined ? undefined : 'takes one port number';
    case 'ipv4hint':
    case 'ipv6hint': {
      const family = key === 'ipv4hint' ? 4 : 6;
      return values.length > 0 && values.every((v) => isAddress(family, v)) ? undefined : `takes IPv${family} addresses`;
    }
    case 'ech':
      return values.length === 1 && typeof values[0] === 'string' && values[0].length <= ECH_MAX && /^[A-Za-z0-9+/]+={0,2}$/.test(values[0])
        ? undefined
        : `takes one base64 value of at most ${ECH_MAX} characters`;
    case 'mandatory':
      return values.length > 0 && values.every((v) => typeof v === 'string' && svcKeyNumber(v) !== undefined) ? undefined : 'takes the names of other keys';
    case 'alpn':
      return values.length > 0 && strings ? undefined : 'takes protocol identifiers (h2, h3, ...)';
    default:
      return values.length === 1 && strings ? undefined : 'takes one text value';
  }
}

function svcParamProblem(param: unknown, index: number, seen: Set<string>): string | undefined {
  const where = `parameter ${index + 1}`;
  if (!Array.isArray(param) || param.length === 0 || typeof param[0] !== 'string') return `${where} must be an array [key, values...], e.g. ["alpn", "h2"]`;
  const [key, ...values] = param as [string, ...unknown[]];
  if (svcKeyNumber(key) === undefined) return `${where}: unknown key "${key}" (${SVC_KEYS.join(', ')} or keyNNNN)`;
  if (seen.has(key)) return `${where}: the key "${key}" appears twice`;
  seen.add(key);
  if (values.length > MAX_PARAM_VALUES) return `${where}: at most ${MAX_PARAM_VALUES} values`;
  const problem = svcValuesProblem(key, values);
  return problem ? `${where}: "${key}" ${problem}` : undefined;
}

const svcb: Check = (parts) => {
  if (parts.length < 2) return 'needs at least [priority, target], e.g. [1, ".", ["alpn", "h2"]]';
  const head = first(
    () => integer(parts, 0, 'the priority', 65535),
    () => host(parts, 1, 'the target', true),
  );
  if (head) return head;
  const params = parts.slice(2);
  if (integerPart(parts[0], 65535) === 0 && params.length > 0) return 'priority 0 (alias mode) takes no parameters';
  const seen = new Set<string>();
  for (const [index, param] of params.entries()) {
    const problem = svcParamProblem(param, index, seen);
    if (problem) return problem;
  }
  return undefined;
};

const CHECKS: Record<Exclude<RRsetType, 'SOA'>, Check> = {
  A: address(4),
  AAAA: address(6),
  NS: singleHost('["ns1.example.net."]'),
  CNAME: singleHost('["target.example.net."]'),
  PTR: singleHost('["host.example.net."]'),
  MX: (parts) =>
    first(
      () => count(parts, 2, '[preference, exchange], e.g. [10, "mail.example.com."]'),
      () => integer(parts, 0, 'the preference', 65535),
      () => host(parts, 1, 'the exchange', true),
    ),
  SRV: (parts) =>
    first(
      () => count(parts, 4, '[priority, weight, port, target], e.g. [10, 5, 5060, "sip.example.com."]'),
      () => integer(parts, 0, 'the priority', 65535),
      () => integer(parts, 1, 'the weight', 65535),
      () => integer(parts, 2, 'the port', 65535),
      () => host(parts, 3, 'the target', true),
    ),
  TXT: txt,
  CAA: caa,
  DS: ds,
  SVCB: svcb,
  HTTPS: svcb,
};

/** What is wrong with a record's content for its type; undefined when it is valid. */
export function contentProblem(type: RRsetType, parts: Parts): string | undefined {
  if (type === 'SOA') return 'SOA records belong to the zone';
  return CHECKS[type](parts);
}

const nameKey = (part: unknown) => {
  const text = String(part).toLowerCase();
  return text.length > 1 && text.endsWith('.') ? text.slice(0, -1) : text;
};
const ipv6Key = (part: unknown) => new URL(`http://[${String(part)}]`).hostname;

/** Identity of a (valid) record: names without case or trailing dot, numbers as numbers, IPv6 canonical. */
export function recordKey(type: RRsetType, parts: Parts): string {
  const num = (p: unknown) => integerPart(p, Number.MAX_SAFE_INTEGER);
  switch (type) {
    case 'AAAA':
      return ipv6Key(parts[0]);
    case 'NS':
    case 'CNAME':
    case 'PTR':
      return nameKey(parts[0]);
    case 'MX':
      return `${num(parts[0])} ${nameKey(parts[1])}`;
    case 'SRV':
      return `${num(parts[0])} ${num(parts[1])} ${num(parts[2])} ${nameKey(parts[3])}`;
    case 'DS':
      return `${num(parts[0])} ${num(parts[1])} ${num(parts[2])} ${String(parts[3]).toLowerCase()}`;
    case 'CAA':
      return `${num(parts[0])} ${String(parts[1]).toLowerCase()} ${String(parts[2])}`;
    case 'SVCB':
    case 'HTTPS':
      return JSON.stringify([num(parts[0]), nameKey(parts[1]), ...parts.slice(2)]);
    default:
      return JSON.stringify(parts);
  }
}

/** A character-string of a zone file: quoted, `"` and `\` escaped, bytes outside printable ASCII as \DDD. */
export function quoted(text: string | Buffer): string {
  let out = '';
  for (const byte of Buffer.isBuffer(text) ? text : Buffer.from(text)) {
    if (byte === 0x22 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    else if (byte < 0x20 || byte > 0x7e) out += `\\${String(byte).padStart(3, '0')}`;
    else out += String.fromCharCode(byte);
  }
  return `"${out}"`;
}

/** Splits text into pieces of at most 255 bytes (one character-string each on the wire). */
export function chunks(text: string): Buffer[] {
  const bytes = Buffer.from(text);
  if (bytes.length === 0) return [bytes];
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 255) out.push(bytes.subarray(i, i + 255));
  return out;
}

function svcParamText(param: unknown[]): string {
  const [key, ...values] = param.map(String);
  if (values.length === 0) return key;
  return key === 'alpn' ? `${key}="${values.join(',')}"` : `${key}=${values.join(',')}`;
}

/** The record's RDATA as a zone file writes it (absolute names, quoted text). */
export function presentation(type: RRsetType, parts: Parts): string {
  const p = parts.map((part) => (typeof part === 'string' || typeof part === 'number' ? String(part) : ''));
  switch (type) {
    case 'NS':
    case 'CNAME':
    case 'PTR':
      return absolute(p[0]);
    case 'MX':
      return `${integerPart(parts[0], 65535)} ${absolute(p[1])}`;
    case 'SRV':
      return `${integerPart(parts[0], 65535)} ${integerPart(parts[1], 65535)} ${integerPart(parts[2], 65535)} ${absolute(p[3])}`;
    case 'TXT':
      return parts.flatMap((part) => chunks(String(part)).map((chunk) => quoted(chunk))).join(' ');
    case 'CAA':
      return `${integerPart(parts[0], 255)} ${p[1]} ${quoted(p[2])}`;
    case 'DS':
      return `${integerPart(parts[0], 65535)} ${integerPart(parts[1], 255)} ${integerPart(parts[2], 255)} ${p[3].toUpperCase()}`;
    case 'SVCB':
    case 'HTTPS':
      return [String(integerPart(parts[0], 65535)), absolute(p[1]), ...parts.slice(2).map((param) => svcParamText(param as unknown[]))].join(' ');
    default:
      return p[0];
  }
}
