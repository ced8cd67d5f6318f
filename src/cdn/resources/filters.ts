// The list filters of CDN resources, applied to the answers (a client has at most its quota of
// resources, so they are filtered in memory, the same way on both engines).
import type { Resource, ResourceFilters } from './schemas.js';

const ids = (text: string) =>
  new Set(
    text
      .split(',')
      .map((s) => Number(s.trim()))
      .filter((n) => Number.isInteger(n)),
  );
const time = (iso: string) => Date.parse(iso);

type Check = (resource: Resource, value: never) => boolean;

/** One predicate per filter; a filter left out of the query is not applied. */
const CHECKS: { [K in keyof Required<ResourceFilters>]: Check } = {
  // Deleted resources are gone, automatic suspension is never scheduled, and every resource is changeable.
  deleted: (_r, v: boolean) => v === false,
  enabled: (r, v: boolean) => r.enabled === v,
  suspend: (_r, v: boolean) => v === false,
  suspended: (r, v: boolean) => r.suspended === v,
  vp_enabled: (r, v: boolean) => r.vp_enabled === v,
  originGroup: (r, v: number) => r.originGroup === v,
  originGroup__in: (r, v: string) => ids(v).has(r.originGroup),
  sslEnabled: (r, v: boolean) => r.sslEnabled === v,
  sslData: (r, v: number) => r.sslData === v,
  sslData_in: (r, v: string) => r.sslData !== null && ids(v).has(r.sslData),
  min_created: (r, v: string) => time(r.created) >= time(v),
  max_created: (r, v: string) => time(r.created) <= time(v),
  min_updated: (r, v: string) => time(r.updated) >= time(v),
  max_updated: (r, v: string) => time(r.updated) <= time(v),
  cname: (r, v: string) => r.cname === v.toLowerCase(),
  secondaryHostnames: (r, v: string) => r.secondaryHostnames.includes(v.toLowerCase()),
  rules: (r, v: string) => r.rules.some((rule) => rule.name === v || rule.rule === v),
  shielded: (r, v: boolean) => r.shielded === v,
  shield_dc: (r, v: string) => r.shield_dc === v,
  status: (r, v: string) => r.status === v,
  active: (r, v: boolean) => r.active === v,
  name: (r, v: string) => (r.name ?? '').toLowerCase().includes(v.toLowerCase()),
  originProtocol: (r, v: string) => r.originProtocol === v,
  // Standalone resources (is_primary null) match neither true nor false.
  is_primary: (r, v: boolean) => r.is_primary === v,
};

export function matchesFilters(resource: Resource, filters: ResourceFilters): boolean {
  return Object.entries(filters).every(([name, value]) => {
    if (value === undefined) return true;
    const check = CHECKS[name as keyof ResourceFilters] as ((r: Resource, v: unknown) => boolean) | undefined;
    return check ? check(resource, value) : true;
  });
}
