// What importing a parsed zone file into a zone means: its records grouped into RRsets, each replacing
// the zone's set of the same name and type (other sets stay); its SOA setting the zone's SOA fields; the
// platform's own NS at the apex left implicit. Records outside the zone, of types the API does not keep,
// or repeated, are skipped and reported. No I/O: the service applies the plan.
import { contactOf, PLATFORM_NAME_SERVERS, QUOTAS } from '../common/platform.js';
import { isWithin } from '../common/names.js';
import { recordKey, type RRsetType } from '../rrsets/content.js';
import { placeProblem } from '../rrsets/rules.js';
import type { ParsedRecord, ParsedZoneFile } from './parse.js';
import { TimeSlicer } from '../../platform/cooperative.js';

export interface PlannedSet {
  name: string;
  type: RRsetType;
  ttl: number;
  records: unknown[][];
}

export interface SoaUpdate {
  primary_server: string;
  contact: string;
  refresh: number;
  retry: number;
  expiry: number;
  nx_ttl: number;
  serial: number;
}

export interface ImportPlan {
  sets: PlannedSet[];
  soa?: SoaUpdate;
  skipped: number;
  warnings: Record<string, Record<string, string>>;
}

function warn(plan: ImportPlan, name: string, type: string, message: string): void {
  (plan.warnings[name] ??= {})[type] = message;
}

function soaUpdate(record: ParsedRecord): SoaUpdate {
  const [mname, rname, serial, refresh, retry, expiry, minimum] = record.parts as [string, string, number, number, number, number, number];
  return { primary_server: mname.replace(/\.$/, ''), contact: contactOf(rname), serial, refresh, retry, expiry, nx_ttl: minimum };
}

/** The zone's RRsets before the import: which types each name has, and how many sets in all. */
export interface ExistingSets {
  types: Map<string, Set<string>>;
  count: number;
}

/**
 * Counts the RRsets an import adds to a zone as the quota counts them: a set of a record inside the zone
 * (not its SOA) that the zone does not have yet. The apex NS set is not counted here: it is dropped when
 * it names the platform's servers (as every exported file does), and checkPlan counts it exactly once the
 * sets are known.
 */
export class NewSetCount {
  private added = 0;
  private readonly seen = new Set<string>();

  constructor(
    private readonly zone: string,
    private readonly existing: ExistingSets,
  ) {}

  /** Counts a record's set; the problem that refuses the import once the sets pass the quota. */
  add(name: string, type: string): string | undefined {
    if (type === 'SOA' || !isWithin(name, this.zone)) return undefined;
    const id = `${name} ${type}`;
    if (this.seen.has(id)) return undefined;
    this.seen.add(id);
    if (name === this.zone && type === 'NS') return undefined;
    if (this.existing.types.get(name)?.has(type) || this.existing.count + ++this.added <= QUOTAS.rrsets) return undefined;
    return `the import would make more than ${QUOTAS.rrsets} RRsets, the quota per zone (the zone has ${this.existing.count})`;
  }
}

/**
 * Groups records into sets; duplicates dropped, the smallest TTL of a set kept (RFC 2181 5.2). Stops at
 * the first set past the zone's quota (NewSetCount), so a file far over it is refused without grouping
 * the rest.
 */
async function group(
  zone: string,
  records: ParsedRecord[],
  plan: ImportPlan,
  existing: ExistingSets,
  slicer: TimeSlicer,
): Promise<Map<string, PlannedSet> | { problem: string }> {
  const sets = new Map<string, PlannedSet>();
  const keys = new Map<string, Set<string>>();
  const count = new NewSetCount(zone, existing);
  for (const record of records) {
    if (slicer.spent()) await slicer.nextSlice();
    const id = `${record.name} ${record.type}`;
    let set = sets.get(id);
    if (!set) {
      const problem = count.add(record.name, record.type);
      if (problem) return { problem };
      sets.set(id, (set = { name: record.name, type: record.type, ttl: record.ttl, records: [] }));
      keys.set(id, new Set());
    }
    const key = recordKey(record.type, record.parts);
    if (keys.get(id)!.has(key)) {
      plan.skipped += 1;
      continue;
    }
    keys.get(id)!.add(key);
    if (record.ttl !== set.ttl) warn(plan, record.name, record.type, `records of one set had different TTLs; the set keeps the smallest`);
    set.ttl = Math.min(set.ttl, record.ttl);
    set.records.push(record.parts);
  }
  for (const set of sets.values()) if (set.name === zone && set.type === 'NS' && isPlatformNs(set)) sets.delete(`${zone} NS`);
  return sets;
}

function isPlatformNs(set: PlannedSet): boolean {
  const hosts = new Set(set.records.map((parts) => recordKey('NS', parts)));
  return hosts.size === PLATFORM_NAME_SERVERS.length && PLATFORM_NAME_SERVERS.every((ns) => hosts.has(ns));
}

/**
 * The plan, or the first problem that refuses the whole import. It gives other requests a turn between
 * slices of work: a file may hold tens of thousands of records.
 */
export async function planImport(zone: string, parsed: ParsedZoneFile, existing: ExistingSets): Promise<ImportPlan | { problem: string }> {
  const slicer = new TimeSlicer();
  const plan: ImportPlan = { sets: [], skipped: 0, warnings: {} };
  for (const skip of parsed.skipped) {
    plan.skipped += 1;
    warn(plan, skip.name, skip.type, `line ${skip.line}: ${skip.reason}`);
  }
  const inside: ParsedRecord[] = [];
  for (const record of parsed.records) {
    if (slicer.spent()) await slicer.nextSlice();
    if (!isWithin(record.name, zone)) {
      plan.skipped += 1;
      warn(plan, record.name, record.type, `line ${record.line}: outside zone ${zone}`);
    } else if (record.type === 'SOA') {
      if (record.name === zone) plan.soa = soaUpdate(record);
      else warn(plan, record.name, 'SOA', `line ${record.line}: an SOA record belongs at the apex only`);
      if (record.name !== zone) plan.skipped += 1;
    } else inside.push(record);
  }
  const sets = await group(zone, inside, plan, existing, slicer);
  if ('problem' in sets) return sets;
  plan.sets = [...sets.values()];
  return checkPlan(zone, plan, existing, slicer);
}

async function checkPlan(zone: string, plan: ImportPlan, existing: ExistingSets, slicer: TimeSlicer): Promise<ImportPlan | { problem: string }> {
  const typesAt = new Map<string, Set<string>>();
  for (const [name, types] of existing.types) typesAt.set(name, new Set(types));
  let added = 0;
  for (const set of plan.sets) {
    const types = typesAt.get(set.name) ?? new Set<string>();
    if (!types.has(set.type)) added += 1;
    types.add(set.type);
    typesAt.set(set.name, types);
  }
  if (existing.count + added > QUOTAS.rrsets)
    return { problem: `the import would make ${existing.count + added} RRsets; the quota is ${QUOTAS.rrsets} per zone` };
  for (const set of plan.sets) {
    if (slicer.spent()) await slicer.nextSlice();
    if (set.records.length > QUOTAS.records)
      return { problem: `${set.name} ${set.type} has ${set.records.length} records; at most ${QUOTAS.records} per RRset` };
    if (set.type === 'CNAME' && set.records.length > 1)
      return { problem: `${set.name} has ${set.records.length} CNAME records; a CNAME RRset has exactly one` };
    const others = [...typesAt.get(set.name)!].filter((t) => t !== set.type);
    const problem = placeProblem(zone, set.name, set.type, others);
    if (problem) return { problem };
  }
  return plan;
}
