// Where instances run: each region's compute hosts, and the choice of one for an instance under its
// placement group's policy (pure functions). A host holds HOST_VCPUS vCPUs of a client's instances; the
// hosts of one client are its own, so one client's placements never depend on another's.
import type { RegionDefinition } from '../regions/catalogue.js';

export const POLICIES = ['affinity', 'anti-affinity', 'soft-anti-affinity'] as const;
export type Policy = (typeof POLICIES)[number];

/** vCPUs of a client's instances one host takes: two hosts (an edge region) hold the default cpu_count quota. */
export const HOST_VCPUS = 128;

/** The compute hosts of a region: four in core regions, two at the edge. */
export function hostsOf(region: RegionDefinition): string[] {
  const count = region.access_level === 'core' ? 4 : 2;
  return Array.from({ length: count }, (_, i) => `${region.slug}-compute-${String(i + 1).padStart(2, '0')}`);
}

export interface Placement {
  hosts: string[];
  /** vCPUs placed on each host (the instance being placed left out). */
  load: Map<string, number>;
  /** vCPUs the instance needs. */
  need: number;
  /** Its group's policy and the hosts of the group's other members, when it is in one. */
  group: { policy: Policy; memberHosts: Set<string> } | null;
}

/**
 * The host for an instance, or null when none fits: `affinity` puts it with its group's members,
 * `anti-affinity` on a host none of them uses, `soft-anti-affinity` there if it can and anywhere if it
 * cannot; among the hosts that qualify, the least loaded one with room wins.
 */
export function chooseHost({ hosts, load, need, group }: Placement): string | null {
  const room = (h: string) => (load.get(h) ?? 0) + need <= HOST_VCPUS;
  const least = (candidates: string[]) => candidates.filter(room).sort((a, b) => (load.get(a) ?? 0) - (load.get(b) ?? 0) || a.localeCompare(b))[0] ?? null;
  if (!group) return least(hosts);
  const apart = hosts.filter((h) => !group.memberHosts.has(h));
  switch (group.policy) {
    case 'affinity':
      return group.memberHosts.size === 0 ? least(hosts) : least([...group.memberHosts]);
    case 'anti-affinity':
      return least(apart);
    case 'soft-anti-affinity':
      return least(apart) ?? least(hosts);
  }
}
