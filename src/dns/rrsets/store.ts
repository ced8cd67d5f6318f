// SQL for RRsets and their resource records. Every change runs in one transaction with the zone's serial
// bump, so a reader (the API or the DNS listener) sees the whole change or none of it.
import type { Kysely, Transaction } from 'kysely';
import { countRows } from '../../platform/db/templates.js';
import {
  type DnsDb,
  type DnsTables,
  numbers,
  RECORD_NUMBERS,
  type RecordRow,
  RRSET_NUMBERS,
  type RRsetRow,
  touchZone,
  type ZoneRow,
} from '../common/tables.js';
import type { AsClient } from '../../platform/db/client-shares.js';

export type RRsetFields = Pick<RRsetRow, 'name' | 'type' | 'ttl' | 'meta' | 'pickers' | 'dynamic' | 'health_check'>;
export type RecordFields = Pick<RecordRow, 'content' | 'enabled' | 'meta'>;

export interface StoredRRset {
  row: RRsetRow;
  records: RecordRow[];
}

/** An RRset to write: its fields and its records, in order. */
export interface RRsetWrite {
  fields: RRsetFields;
  records: RecordFields[];
}

export interface RRsetOrder {
  field: 'name' | 'type' | 'ttl' | 'id' | 'updated_at';
  direction: 'asc' | 'desc';
}

export class RRsetStore {
  private readonly db: DnsDb;

  /** `asClient`: the client's share of the pooled connections its transactions run in (Database.asClient). */
  constructor(
    db: Kysely<any>,
    private readonly asClient: AsClient,
  ) {
    this.db = db as DnsDb;
  }

  async count(zoneId: number): Promise<number> {
    return countRows(this.db, 'dns_rrsets', { zone_id: zoneId });
  }

  async page(zoneId: number, order: RRsetOrder, offset: number, limit: number | undefined): Promise<StoredRRset[]> {
    let query = this.db
      .selectFrom('dns_rrsets')
      .selectAll()
      .where('zone_id', '=', zoneId)
      .orderBy(order.field, order.direction)
      .orderBy('name')
      .orderBy('type')
      .offset(offset);
    query = query.limit(limit ?? Number.MAX_SAFE_INTEGER);
    return this.withRecords((await query.execute()).map((row) => numbers(row, RRSET_NUMBERS)));
  }

  /** Every RRset of a zone, in name then type order. */
  async all(zoneId: number): Promise<StoredRRset[]> {
    const rows = await this.db.selectFrom('dns_rrsets').selectAll().where('zone_id', '=', zoneId).orderBy('name').orderBy('type').execute();
    return this.withRecords(rows.map((row) => numbers(row, RRSET_NUMBERS)));
  }

  async find(zoneId: number, name: string, type: string): Promise<StoredRRset | undefined> {
    const row = await this.db
      .selectFrom('dns_rrsets')
      .selectAll()
      .where('zone_id', '=', zoneId)
      .where('name', '=', name)
      .where('type', '=', type)
      .executeTakeFirst();
    if (!row) return undefined;
    return (await this.withRecords([numbers(row, RRSET_NUMBERS)]))[0];
  }

  /** The client's RRsets with a health check, with their zone's name. */
  async healthChecked(clientId: number): Promise<{ id: number; zone: string; name: string; type: string; meta: string }[]> {
    const rows = await this.db
      .selectFrom('dns_rrsets as s')
      .innerJoin('dns_zones as z', 'z.id', 's.zone_id')
      .select(['s.id', 'z.name as zone', 's.name', 's.type', 's.meta'])
      .where('s.client_id', '=', clientId)
      .where('s.health_check', '=', 1)
      .orderBy('z.name')
      .orderBy('s.name')
      .orderBy('s.type')
      .execute();
    return rows.map((row) => ({ ...row, id: Number(row.id) }));
  }

  /** Types present at a name of a zone. */
  async typesAt(zoneId: number, name: string): Promise<string[]> {
    const rows = await this.db.selectFrom('dns_rrsets').select('type').where('zone_id', '=', zoneId).where('name', '=', name).execute();
    return rows.map((r) => r.type);
  }

  async insert(zoneId: number, clientId: number, set: RRsetWrite, now: number): Promise<void> {
    await this.asClient(clientId, () =>
      this.db.transaction().execute(async (trx) => {
        await insertSet(trx, zoneId, clientId, set, now);
        await touchZone(trx, zoneId, now);
      }),
    );
  }

  /** Replaces an RRset's fields and all its records. */
  async replace(zoneId: number, existing: RRsetRow, set: RRsetWrite, now: number): Promise<void> {
    await this.asClient(existing.client_id, () =>
      this.db.transaction().execute(async (trx) => {
        await replaceSet(trx, existing, set, now);
        await touchZone(trx, zoneId, now);
      }),
    );
  }

  async delete(zoneId: number, clientId: number, rrsetId: number, now: number): Promise<void> {
    await this.asClient(clientId, () =>
      this.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('dns_rrsets').where('id', '=', rrsetId).where('zone_id', '=', zoneId).execute();
        await touchZone(trx, zoneId, now);
      }),
    );
  }

  /**
   * Writes many RRsets at once (a zone file import): each replaces the zone's RRset of the same name and
   * type or is added; `zone` changes the zone's own fields and the serial becomes at least `serialFloor`.
   * One transaction, one serial bump.
   */
  async writeMany(zoneId: number, clientId: number, sets: RRsetWrite[], zone: Partial<ZoneRow>, serialFloor: number, now: number): Promise<void> {
    await this.asClient(clientId, () =>
      this.db.transaction().execute(async (trx) => {
        for (const set of sets) {
          const existing = await trx
            .selectFrom('dns_rrsets')
            .selectAll()
            .where('zone_id', '=', zoneId)
            .where('name', '=', set.fields.name)
            .where('type', '=', set.fields.type)
            .executeTakeFirst();
          if (existing) await replaceSet(trx, numbers(existing, RRSET_NUMBERS), set, now);
          else await insertSet(trx, zoneId, clientId, set, now);
        }
        if (Object.keys(zone).length > 0) await trx.updateTable('dns_zones').set(zone).where('id', '=', zoneId).execute();
        await touchZone(trx, zoneId, now);
        await trx.updateTable('dns_zones').set({ serial: serialFloor }).where('id', '=', zoneId).where('serial', '<', serialFloor).execute();
      }),
    );
  }

  private async withRecords(rows: RRsetRow[]): Promise<StoredRRset[]> {
    if (rows.length === 0) return [];
    const records = new Map<number, RecordRow[]>(rows.map((row) => [row.id, []]));
    // Chunks keep the IN list within every engine's parameter limit.
    for (let i = 0; i < rows.length; i += 500) {
      const ids = rows.slice(i, i + 500).map((row) => row.id);
      const found = await this.db.selectFrom('dns_records').selectAll().where('rrset_id', 'in', ids).orderBy('rrset_id').orderBy('position').execute();
      for (const record of found) records.get(Number(record.rrset_id))?.push(numbers(record, RECORD_NUMBERS));
    }
    return rows.map((row) => ({ row, records: records.get(row.id) ?? [] }));
  }
}

async function insertRecords(trx: Transaction<DnsTables>, rrsetId: number, clientId: number, records: RecordFields[]): Promise<void> {
  if (records.length === 0) return;
  await trx
    .insertInto('dns_records')
    .values(records.map((record, position) => ({ ...record, rrset_id: rrsetId, client_id: clientId, position })))
    .execute();
}

async function insertSet(trx: Transaction<DnsTables>, zoneId: number, clientId: number, set: RRsetWrite, now: number): Promise<void> {
  const row = await trx
    .insertInto('dns_rrsets')
    .values({ ...set.fields, zone_id: zoneId, client_id: clientId, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  await insertRecords(trx, Number(row.id), clientId, set.records);
}

async function replaceSet(trx: Transaction<DnsTables>, existing: RRsetRow, set: RRsetWrite, now: number): Promise<void> {
  await trx
    .updateTable('dns_rrsets')
    .set({ ...set.fields, updated_at: now })
    .where('id', '=', existing.id)
    .execute();
  await trx.deleteFrom('dns_records').where('rrset_id', '=', existing.id).execute();
  await insertRecords(trx, existing.id, existing.client_id, set.records);
}
