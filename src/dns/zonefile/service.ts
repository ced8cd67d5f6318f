// Zone files: export a zone as a BIND master file; import one into a zone (all of it or nothing). No SQL
// (the RRset store writes the import in one transaction) and no HTTP.
import type { Principal } from '../../platform/auth/principal.js';
import type { Clock } from '../../platform/clock.js';
import { badRequest } from '../common/http.js';
import { parseJson } from '../common/meta.js';
import type { ZoneRow } from '../common/tables.js';
import type { RRsetType } from '../rrsets/content.js';
import type { RRsetStore, RRsetWrite, StoredRRset } from '../rrsets/store.js';
import type { ZoneFinder } from '../zones/finder.js';
import { type ImportPlan, type PlannedSet, planImport } from './import.js';
import type { ZoneFileReading } from './reading.js';
import { writeZoneFile } from './write.js';

export interface ImportResult {
  success: boolean;
  imported: { rrsets: number; resource_records: number; skipped_resource_records: number; qtype: number };
  warnings: Record<string, Record<string, string>>;
}

/**
 * The zone file in an import request. Sent as the raw body (any content type), as a JSON string (how
 * the official Python client sends a `str`), or as `{"raw_zone": "..."}` (what export answers).
 */
export function zoneFileText(body: string | undefined, contentType: string | undefined): string {
  const text = body ?? '';
  if ((contentType ?? '').toLowerCase().includes('json')) {
    try {
      const value = JSON.parse(text) as unknown;
      if (typeof value === 'string') return value;
      const raw = (value as { raw_zone?: unknown } | null)?.raw_zone;
      if (typeof raw === 'string') return raw;
      throw badRequest('Send the zone file as the request body (text), as a JSON string, or as {"raw_zone": "..."}');
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
    }
  }
  if (text.trim() === '') throw badRequest('The request body must hold a zone file in BIND format');
  return text;
}

function plannedWrite(set: PlannedSet, existing: StoredRRset | undefined): RRsetWrite {
  // The file cannot carry pickers or meta: a replaced set keeps its own.
  const meta = existing?.row.meta ?? '{}';
  const pickers = existing?.row.pickers ?? '[]';
  return {
    fields: { name: set.name, type: set.type, ttl: set.ttl, meta, pickers, dynamic: existing?.row.dynamic ?? 0, health_check: existing?.row.health_check ?? 0 },
    records: set.records.map((parts) => ({ content: JSON.stringify(parts), enabled: 1, meta: '{}' })),
  };
}

export class ZoneFileService {
  constructor(
    private readonly finder: ZoneFinder,
    private readonly rrsets: RRsetStore,
    private readonly clock: Clock,
    private readonly reading: ZoneFileReading,
  ) {}

  close(): Promise<void> {
    return this.reading.close();
  }

  async export(principal: Principal, zoneName: string): Promise<{ raw_zone: string }> {
    const zone = await this.finder.owned(principal, zoneName);
    const sets = await this.rrsets.all(zone.id);
    const exported = sets.map(({ row, records }) => ({
      name: row.name,
      type: row.type as RRsetType,
      ttl: row.ttl,
      records: records.map((r) => ({ parts: parseJson<unknown[]>(r.content, []), enabled: r.enabled === 1 })),
    }));
    return { raw_zone: writeZoneFile(zone, exported) };
  }

  async import(principal: Principal, zoneName: string, body: string | undefined, contentType: string | undefined): Promise<ImportResult> {
    const zone = await this.finder.owned(principal, zoneName);
    const text = zoneFileText(body, contentType);
    const current = await this.rrsets.all(zone.id);
    const plan = await this.plan(zone, text, current);
    const byKey = new Map(current.map((set) => [`${set.row.name} ${set.row.type}`, set]));
    const writes = plan.sets.map((set) => plannedWrite(set, byKey.get(`${set.name} ${set.type}`)));
    const { serial, ...soa } = plan.soa ?? { serial: 0 };
    await this.rrsets.writeMany(zone.id, zone.client_id, writes, soa, serial, this.clock.now());
    return {
      success: true,
      imported: {
        rrsets: plan.sets.length,
        resource_records: plan.sets.reduce((n, set) => n + set.records.length, 0),
        skipped_resource_records: plan.skipped,
        qtype: new Set(plan.sets.map((set) => set.type)).size,
      },
      warnings: plan.warnings,
    };
  }

  private async plan(zone: ZoneRow, text: string, current: StoredRRset[]): Promise<ImportPlan> {
    const types = new Map<string, Set<string>>();
    for (const { row } of current) types.set(row.name, (types.get(row.name) ?? new Set()).add(row.type));
    const read = await this.reading.read({ text, origin: zone.name, types: [...types].map(([name, set]) => [name, [...set]]), count: current.length });
    if ('syntaxError' in read) throw badRequest(`Zone file ${read.syntaxError}`);
    const plan = 'refused' in read ? { problem: read.refused } : await planImport(zone.name, read.parsed, { types, count: current.length });
    if ('problem' in plan) throw badRequest(`Zone file refused: ${plan.problem}`);
    return plan;
  }
}
