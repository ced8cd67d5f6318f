// A zone file's RDATA, type by type, into the API's content parts (the inverse of content.ts's
// presentation). Names in RDATA are made absolute against the current origin; the parts are then
// checked by the same rules as content sent to the API.
import { hostName } from '../common/names.js';
import type { Token } from './tokens.js';
import { parseTtl } from './tokens.js';

export type Rdata = { parts: unknown[] } | { problem: string };

/** SOA numbers are 32-bit; the minimum is a TTL (31-bit, RFC 2181). */
const SOA_MAX = 4_294_967_295;
const TTL_MAX = 2_147_483_647;

/** A name of RDATA, absolute with a trailing dot (`@` is the origin). */
export function rdataName(token: Token | undefined, origin: string): string | undefined {
  if (!token || token.escaped || token.quoted) return undefined;
  const text = token.text;
  if (text === '@') return `${origin}.`;
  if (text === '.') return '.';
  const full = text.endsWith('.') ? text : `${text}.${origin}.`;
  const check = hostName(full);
  return 'problem' in check ? undefined : full;
}

function integer(token: Token | undefined): number | undefined {
  return token && /^\d{1,10}$/.test(token.text) ? Number(token.text) : undefined;
}

function fixed(tokens: Token[], shape: ('int' | 'name' | 'text')[], origin: string, usage: string): Rdata {
  if (tokens.length !== shape.length) return { problem: `expects ${usage}` };
  const parts: unknown[] = [];
  for (const [i, kind] of shape.entries()) {
    const value = kind === 'int' ? integer(tokens[i]) : kind === 'name' ? rdataName(tokens[i], origin) : tokens[i].text;
    if (value === undefined) return { problem: `expects ${usage}; "${tokens[i].text}" is not ${kind === 'int' ? 'a number' : 'a name'}` };
    parts.push(value);
  }
  return { parts };
}

function svcParam(token: Token): unknown[] {
  const eq = token.text.indexOf('=');
  if (eq < 0) return [token.text];
  const key = token.text.slice(0, eq);
  const values = token.text.slice(eq + 1).split(',');
  return [key, ...values.map((v) => (key === 'port' && /^\d+$/.test(v) ? Number(v) : v))];
}

function svcb(tokens: Token[], origin: string): Rdata {
  const head = fixed(tokens.slice(0, 2), ['int', 'name'], origin, 'priority target [key=value ...]');
  if ('problem' in head) return head;
  return { parts: [...head.parts, ...tokens.slice(2).map(svcParam)] };
}

function soa(tokens: Token[], origin: string): Rdata {
  if (tokens.length !== 7) return { problem: 'expects mname rname serial refresh retry expire minimum' };
  // The mailbox keeps its escapes: `john\.doe.example.com.` is john.doe@example.com.
  const [mname, rname] = [rdataName(tokens[0], origin), tokens[1].quoted ? undefined : tokens[1].raw];
  const numbers = tokens.slice(2).map((t, i) => (i === 0 ? integer(t) : parseTtl(t.text)));
  if (!mname || !rname || numbers.some((n) => n === undefined))
    return { problem: 'expects mname rname serial refresh retry expire minimum (names, then numbers)' };
  if (numbers.some((n) => n! > SOA_MAX) || numbers[4]! > TTL_MAX) return { problem: `numbers must be at most ${SOA_MAX} (the minimum at most ${TTL_MAX})` };
  return { parts: [mname, rname.endsWith('.') ? rname : `${rname}.${origin}.`, ...numbers] };
}

const PARSERS: Record<string, (tokens: Token[], origin: string) => Rdata> = {
  A: (t, o) => fixed(t, ['text'], o, 'one IPv4 address'),
  AAAA: (t, o) => fixed(t, ['text'], o, 'one IPv6 address'),
  NS: (t, o) => fixed(t, ['name'], o, 'one name server name'),
  CNAME: (t, o) => fixed(t, ['name'], o, 'one target name'),
  PTR: (t, o) => fixed(t, ['name'], o, 'one host name'),
  MX: (t, o) => fixed(t, ['int', 'name'], o, 'preference exchange'),
  SRV: (t, o) => fixed(t, ['int', 'int', 'int', 'name'], o, 'priority weight port target'),
  CAA: (t, o) => fixed(t, ['int', 'text', 'text'], o, 'flags tag "value"'),
  TXT: (t) => (t.length > 0 ? { parts: t.map((token) => token.text) } : { problem: 'expects at least one string' }),
  // The digest may be written in several space-separated pieces.
  DS: (t, o) =>
    t.length >= 4
      ? fixed(
          [
            ...t.slice(0, 3),
            {
              ...t[3],
              text: t
                .slice(3)
                .map((x) => x.text)
                .join(''),
            },
          ],
          ['int', 'int', 'int', 'text'],
          o,
          'key_tag algorithm digest_type digest',
        )
      : { problem: 'expects key_tag algorithm digest_type digest' },
  SVCB: svcb,
  HTTPS: svcb,
  SOA: soa,
};

/** Types a zone file may hold that this API keeps. */
export const IMPORTABLE_TYPES = Object.keys(PARSERS);

export function parseRdata(type: string, tokens: Token[], origin: string): Rdata {
  return PARSERS[type](tokens, origin);
}
