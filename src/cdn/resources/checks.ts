// Rules on a CDN resource's own fields that need no other object: its host names, and which fields go
// together. Pure functions, field errors out.
import { bodyField, type FieldError } from '../../platform/errors.js';
import { isHostname } from '../hosts.js';

/** The resource as it would be stored, in API terms. */
export interface Candidate {
  cname: string;
  secondaryHostnames: string[];
  originGroup: number;
  originProtocol: string;
  active: boolean;
  sslEnabled: boolean;
  sslData: number | null;
  proxySslEnabled: boolean;
  proxySslCa: number | null;
  proxySslData: number | null;
  primaryResource: number | null;
  name: string | null;
  description: string;
}

export function cnameErrors(cname: string): FieldError[] {
  return isHostname(cname) ? [] : [bodyField(['cname'], 'Must be a domain name such as cdn.example.com')];
}

/** Secondary host names: domains (a `*.` first label allowed), each once, none equal to the cname. */
export function secondaryErrors(cname: string, secondary: string[]): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  secondary.forEach((name, i) => {
    const at = ['secondaryHostnames', i];
    if (!isHostname(name, true)) errors.push(bodyField(at, 'Must be a domain name, optionally starting with *.'));
    else if (name === cname) errors.push(bodyField(at, "Is the resource's cname already", 'conflict'));
    else if (seen.has(name)) errors.push(bodyField(at, 'Is listed twice', 'conflict'));
    seen.add(name);
  });
  return errors;
}

/** Certificates go with the switch that uses them. */
export function switchErrors(c: Candidate): FieldError[] {
  const errors: FieldError[] = [];
  if (c.sslData !== null && !c.sslEnabled) errors.push(bodyField(['sslData'], 'A certificate for delivery needs sslEnabled: true', 'conflict'));
  if (c.proxySslCa !== null && !c.proxySslEnabled)
    errors.push(bodyField(['proxy_ssl_ca'], 'A CA certificate for the origin needs proxy_ssl_enabled: true', 'conflict'));
  if (c.proxySslData !== null && !c.proxySslEnabled)
    errors.push(bodyField(['proxy_ssl_data'], 'A certificate for the origin needs proxy_ssl_enabled: true', 'conflict'));
  return errors;
}

/** Host names another resource (of any account) already answers for. */
export function takenErrors(
  c: Pick<Candidate, 'cname' | 'secondaryHostnames'>,
  owners: { hostname: string; resource_id: number }[],
  selfId: number | undefined,
): FieldError[] {
  const taken = new Set(owners.filter((o) => o.resource_id !== selfId).map((o) => o.hostname));
  const errors: FieldError[] = [];
  if (taken.has(c.cname)) errors.push(bodyField(['cname'], 'Another CDN resource already uses this host name', 'conflict'));
  c.secondaryHostnames.forEach((name, i) => {
    if (taken.has(name)) errors.push(bodyField(['secondaryHostnames', i], 'Another CDN resource already uses this host name', 'conflict'));
  });
  return errors;
}
