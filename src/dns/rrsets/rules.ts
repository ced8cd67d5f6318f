// The rules an RRset must follow beyond its fields' types: content valid for its type, no duplicate
// records, CNAME alone at its name and never at the apex, DS and wildcards where DNS allows them. Pure
// functions returning the first problem (a message for a 400), or the warnings of an accepted set.
import { recordMetaProblem, rrsetMetaProblem } from '../common/meta.js';
import { PLATFORM_NAME_SERVERS } from '../common/platform.js';
import { contentProblem, recordKey, type RRsetType } from './content.js';
import type { RRsetInput } from './schemas.js';

/** Problems of the body itself: records, their content and meta, the set's meta. */
export function bodyProblem(type: RRsetType, input: RRsetInput): string | undefined {
  if (input.resource_records.length === 0) return 'resource_records needs at least one record';
  const seen = new Map<string, number>();
  for (const [index, record] of input.resource_records.entries()) {
    const where = `resource_records[${index}]`;
    const problem = contentProblem(type, record.content);
    if (problem) return `${where}.content: a ${type} record ${problem}`;
    if (record.meta !== undefined) {
      const metaProblem = recordMetaProblem(record.meta);
      if (metaProblem) return `${where}.meta: ${metaProblem}`;
    }
    const key = recordKey(type, record.content);
    const earlier = seen.get(key);
    if (earlier !== undefined) return `${where} repeats resource_records[${earlier}]: the records of a set are distinct`;
    seen.set(key, index);
  }
  if (input.meta !== undefined) {
    const problem = rrsetMetaProblem(input.meta);
    if (problem) return `meta: ${problem}`;
  }
  if (type === 'CNAME' && input.resource_records.length > 1) return 'a CNAME RRset has exactly one record';
  return undefined;
}

/** Problems of the set's place in the zone: its name, and the other types at that name. */
export function placeProblem(zone: string, name: string, type: RRsetType, otherTypes: string[]): string | undefined {
  const wildcard = name.startsWith('*.');
  if (type === 'CNAME' && name === zone) return `a CNAME cannot be at the zone apex ${zone} (the apex has SOA and NS records)`;
  if (type === 'CNAME' && otherTypes.length > 0) return `a CNAME must be alone at its name: ${name} already has ${otherTypes.join(', ')}`;
  if (type !== 'CNAME' && otherTypes.includes('CNAME')) return `${name} has a CNAME record: no other record can be at the same name`;
  if (type === 'DS' && name === zone) return `the DS record of ${zone} belongs in its parent zone`;
  if ((type === 'NS' || type === 'DS') && wildcard) return `${type} records cannot be at a wildcard name`;
  return undefined;
}

export interface Warning {
  key: string;
  message: string;
}

/** What the client should know about an accepted set. */
export function warningsFor(zone: string, name: string, type: RRsetType, input: RRsetInput, otherTypes: string[]): Warning[] {
  const warnings: Warning[] = [];
  if (type === 'NS' && name === zone) {
    const hosts = input.resource_records.map((r) => recordKey('NS', r.content));
    if (!PLATFORM_NAME_SERVERS.some((ns) => hosts.includes(ns))) {
      warnings.push({ key: 'ns', message: `the apex NS records no longer name the platform's name servers (${PLATFORM_NAME_SERVERS.join(', ')})` });
    }
  }
  if (type === 'DS' && !otherTypes.includes('NS')) warnings.push({ key: 'ds', message: `${name} has no NS records: a DS record belongs at a delegation` });
  return warnings;
}
