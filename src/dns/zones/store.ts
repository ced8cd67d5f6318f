// SQL for zones, always scoped by client. No rules here: the service decides.
import type { Kysely } from 'kysely';
import { countRows, listed, selectRows, templateOf } from '../../platform/db/templates.js';
import { type DnsDb, isUniqueViolation, numbers, touchZone, ZONE_NUMBERS, type ZoneRow } from '../common/tables.js';
import type { AsClient } from '../../platform/db/client-shares.js';

export type ZoneFields = Omit<ZoneRow, 'id' | 'client_id' | 'created_at' | 'updated_at' | 'dnssec_enabled' | 'dnssec_status' | 'dnssec_status_modified_at'>;

/** RRset counts of one zone. */
export interface ZoneCounts {
  total: number;
  dynamic: number;
  healthcheck: number;
}

export class ZoneStore {
  private readonly db: DnsDb;

  /** `asClient`: the client's share of the pooled connections its transactions run in (Database.asClient). */
  constructor(
    db: Kysely<any>,
    private readonly asClient: AsClient,
  ) {
    this.db = db as DnsDb;
  }

  async find(clientId: number, name: string): Promise<ZoneRow | undefined> {
    const [row] = await selectRows<ZoneRow>(this.db, 'dns_zones', { client_id: clientId, name });
    return row && numbers(row, ZONE_NUMBERS);
  }

  /** Every zone of a client (a client has at most its quota of them). */
  async all(clientId: number): Promise<ZoneRow[]> {
    const rows = await selectRows<ZoneRow>(this.db, 'dns_zones', { client_id: clientId }, 'name');
    return rows.map((row) => numbers(row, ZONE_NUMBERS));
  }

  async count(clientId: number): Promise<number> {
    return countRows(this.db, 'dns_zones', { client_id: clientId });
  }

  /** RRset counts per zone of a client. */
  async counts(clientId: number, zoneIds?: number[]): Promise<Map<number, ZoneCounts>> {
    if (zoneIds?.length === 0) return new Map();
    // One template per length of the zone list (none: all of the client's zones).
    const zones = listed('zone', zoneIds ?? []);
    const template = templateOf(`dns_rrsets.counts\u0000${zoneIds ? zones.names.length : 'all'}`, ['clientId', ...zones.names], (db, v) => {
      let query = (db as DnsDb)
        .selectFrom('dns_rrsets')
        .select((eb) => [
          'zone_id',
          eb.fn.countAll<number>().as('total'),
          eb.fn.sum<number>('dynamic').as('dynamic'),
          eb.fn.sum<number>('health_check').as('healthcheck'),
        ])
        .where('client_id', '=', v.clientId as unknown as number)
        .groupBy('zone_id');
      if (zoneIds) query = query.where('zone_id', 'in', zones.names.map((name) => v[name]) as unknown as number[]);
      return query;
    });
    const { rows } = await template.execute<{ zone_id: number; total: number; dynamic: number | null; healthcheck: number | null }>(this.db, {
      clientId,
      ...zones.values,
    });
    return new Map(rows.map((r) => [Number(r.zone_id), { total: Number(r.total), dynamic: Number(r.dynamic ?? 0), healthcheck: Number(r.healthcheck ?? 0) }]));
  }

  /** Inserts a zone; undefined when the client already has one of that name. */
  async insert(clientId: number, fields: ZoneFields, now: number): Promise<number | undefined> {
    try {
      const row = await this.db
        .insertInto('dns_zones')
        .values({ ...fields, client_id: clientId, dnssec_enabled: 0, dnssec_status: '', dnssec_status_modified_at: null, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    } catch (error) {
      if (isUniqueViolation(error)) return undefined;
      throw error;
    }
  }

  /** Changes SOA fields, meta or the enabled flag; the serial is bumped (or raised to the one sent). */
  async update(zone: ZoneRow, fields: Partial<Omit<ZoneFields, 'name' | 'serial'>>, serialFloor: number, now: number): Promise<void> {
    await this.asClient(zone.client_id, () =>
      this.db.transaction().execute(async (trx) => {
        if (Object.keys(fields).length > 0) await trx.updateTable('dns_zones').set(fields).where('id', '=', zone.id).execute();
        await touchZone(trx, zone.id, now);
        await trx.updateTable('dns_zones').set({ serial: serialFloor }).where('id', '=', zone.id).where('serial', '<', serialFloor).execute();
      }),
    );
  }

  /** Removes the zone; its RRsets, records, key and counters go with it (foreign keys cascade). */
  async delete(zone: ZoneRow): Promise<void> {
    await this.db.deleteFrom('dns_zones').where('id', '=', zone.id).where('client_id', '=', zone.client_id).execute();
  }
}
