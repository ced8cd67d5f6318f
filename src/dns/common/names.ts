// Domain names as the DNS API takes them: zone names, RRset owner names and the host names inside record
// content. Names are compared and stored normalised: lower case, ASCII (an internationalised name in its
// punycode form), without the trailing dot. Pure functions; the services turn a problem into a 400.
import { domainToASCII } from 'node:url';

/** Longest name in text form without the trailing dot (RFC 1035: 255 octets on the wire). */
export const MAX_NAME_LENGTH = 253;
/** Longest name a request may carry in a path or body field before normalisation. */
export const MAX_NAME_INPUT = 255;

const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;
// Zone labels: letters, digits and hyphens (no underscore: registries refuse it).
const ZONE_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export type NameCheck = { name: string } | { problem: string };

/** Lower case, punycode, no trailing dot; `problem` when the text cannot be a domain name at all. */
function normalise(text: string): NameCheck {
  if (text.length === 0) return { problem: 'must not be empty' };
  if (text.length > MAX_NAME_INPUT) return { problem: `must be at most ${MAX_NAME_INPUT} characters` };
  if (/\s/.test(text)) return { problem: 'must not contain spaces' };
  const bare = text.endsWith('.') && text !== '.' ? text.slice(0, -1) : text;
  // ASCII names are only lower-cased: domainToASCII would refuse underscores and wildcards.
  // eslint-disable-next-line no-control-regex
  const ascii = /^[\x00-\x7f]*$/.test(bare) ? bare.toLowerCase() : domainToASCII(bare);
  if (ascii === '') return { problem: 'is not a valid internationalised domain name' };
  if (ascii.length > MAX_NAME_LENGTH) return { problem: `must be at most ${MAX_NAME_LENGTH} characters long` };
  return { name: ascii };
}

function badLabel(labels: string[], pattern: RegExp): string | undefined {
  return labels.find((label) => !pattern.test(label));
}

/** A zone name: at least two labels of letters, digits and inner hyphens. */
export function zoneName(text: string): NameCheck {
  const result = normalise(text);
  if ('problem' in result) return result;
  const labels = result.name.split('.');
  if (labels.length < 2) return { problem: 'must have at least two labels (example.com, not com)' };
  const bad = badLabel(labels, ZONE_LABEL);
  if (bad !== undefined) return { problem: `has an invalid label "${bad}": labels are 1 to 63 letters, digits or inner hyphens` };
  return result;
}

/** A name that can own records: `*` allowed as the whole first label. */
export function recordName(text: string): NameCheck {
  const result = normalise(text);
  if ('problem' in result) return result;
  const labels = result.name.split('.');
  const bad = badLabel(labels[0] === '*' ? labels.slice(1) : labels, LABEL);
  if (bad !== undefined) return { problem: `has an invalid label "${bad}": labels are 1 to 63 letters, digits, hyphens or underscores` };
  return result;
}

/** An owner name of a record set: a record name inside `zone`. */
export function ownerName(text: string, zone: string): NameCheck {
  const result = recordName(text);
  if ('problem' in result) return result;
  if (!isWithin(result.name, zone)) return { problem: `must be the zone name ${zone} or a name under it (a full name such as www.${zone})` };
  return result;
}

/** A host name inside record content (CNAME target, MX exchange, ...): any absolute name, `.` for the root. */
export function hostName(text: string): NameCheck {
  if (text === '.') return { name: '.' };
  const result = normalise(text);
  if ('problem' in result) return result;
  const bad = badLabel(result.name.split('.'), LABEL);
  if (bad !== undefined) return { problem: `has an invalid label "${bad}"` };
  return result;
}

/** Whether `name` is `zone` or below it. */
export function isWithin(name: string, zone: string): boolean {
  return name === zone || name.endsWith(`.${zone}`);
}

/** `name` and every name above it, nearest first: a.b.c -> [a.b.c, b.c, c]. */
export function selfAndAncestors(name: string): string[] {
  const labels = name.split('.');
  return labels.map((_, i) => labels.slice(i).join('.'));
}

/** The name without its first label ('' for a single label). */
export function parentOf(name: string): string {
  const dot = name.indexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1);
}

/** Absolute form for zone files and the wire: a trailing dot. */
export function absolute(name: string): string {
  return name === '.' || name.endsWith('.') ? name : `${name}.`;
}

/** Relative form inside a zone file whose origin is `zone`: `@` for the apex. */
export function relativeTo(name: string, zone: string): string {
  if (name === zone) return '@';
  return name.endsWith(`.${zone}`) ? name.slice(0, -(zone.length + 1)) : absolute(name);
}
