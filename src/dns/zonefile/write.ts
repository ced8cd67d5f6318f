// A zone as a master (BIND) zone file: $ORIGIN, the SOA, the apex NS, then every RRset in DNS order
// (by name read right to left), owners relative to the origin, an explicit TTL and class on every record.
// Disabled records are written as comments, and pickers and meta, which the format cannot hold, are left
// out: importing the file back gives the same records, enabled ones answered as before.
import { absolute, relativeTo } from '../common/names.js';
import { soaData, type SoaFields, DEFAULT_NS } from '../common/zone-records.js';
import { presentation, type RRsetType } from '../rrsets/content.js';

export interface ExportRecord {
  parts: unknown[];
  enabled: boolean;
}

export interface ExportSet {
  name: string;
  type: RRsetType;
  ttl: number;
  records: ExportRecord[];
}

/** DNS order (RFC 4034 6.1, on text): compare names label by label from the right. */
export function canonicalCompare(a: string, b: string): number {
  const x = a.split('.').reverse();
  const y = b.split('.').reverse();
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return x.length - y.length;
}

function line(owner: string, ttl: number, type: string, rdata: string): string {
  return `${owner}\t${ttl}\tIN\t${type}\t${rdata}`;
}

function soaLines(zone: SoaFields): string[] {
  const soa = soaData(zone);
  return [
    `@\t${zone.nx_ttl}\tIN\tSOA\t${soa.mname} ${soa.rname} (`,
    `\t\t\t\t${soa.serial}\t; serial`,
    `\t\t\t\t${soa.refresh}\t; refresh`,
    `\t\t\t\t${soa.retry}\t; retry`,
    `\t\t\t\t${soa.expire}\t; expire`,
    `\t\t\t\t${soa.minimum} )\t; minimum (negative answers)`,
  ];
}

function setLines(zone: string, set: ExportSet): string[] {
  const owner = relativeTo(set.name, zone);
  return set.records.map((record) => {
    const text = line(owner, set.ttl, set.type, presentation(set.type, record.parts));
    return record.enabled ? text : `; disabled: ${text}`;
  });
}

export function writeZoneFile(zone: SoaFields, sets: ExportSet[]): string {
  const ordered = [...sets].sort((a, b) => canonicalCompare(a.name, b.name) || a.type.localeCompare(b.type));
  const out = [`; Zone ${zone.name}, serial ${zone.serial}`, `$ORIGIN ${absolute(zone.name)}`, ...soaLines(zone)];
  if (!sets.some((set) => set.name === zone.name && set.type === 'NS')) {
    out.push(...DEFAULT_NS.hosts.map((host) => line('@', DEFAULT_NS.ttl, 'NS', host)));
  }
  for (const set of ordered) out.push(...setLines(zone.name, set));
  return `${out.join('\n')}\n`;
}
