// SQL for query counters: per zone, minute and query type, added to by the DNS listener and summed into
// time slots for the statistics operation.
import { type Kysely, sql } from 'kysely';
import type { CountRow, DnsDb } from '../common/tables.js';

export interface SeriesQuery {
  clientId: number;
  /** Zones to count; undefined for all the client's zones. */
  zoneIds?: number[];
  fromMs: number;
  toMs: number;
  slotMs: number;
  qtype?: string;
}

export class CountStore {
  private readonly db: DnsDb;

  constructor(db: Kysely<any>) {
    this.db = db as DnsDb;
  }

  /** Adds counts; a row of an existing (zone, minute, type) is increased. Rows of zones deleted meanwhile are dropped. */
  async add(rows: CountRow[]): Promise<void> {
    if (rows.length === 0) return;
    const zoneIds = [...new Set(rows.map((r) => r.zone_id))];
    const live = new Set((await this.db.selectFrom('dns_zones').select('id').where('id', 'in', zoneIds).execute()).map((r) => Number(r.id)));
    const kept = rows.filter((r) => live.has(r.zone_id));
    if (kept.length === 0) return;
    await this.db
      .insertInto('dns_query_counts')
      .values(kept)
      .onConflict((oc) => oc.columns(['zone_id', 'minute', 'qtype']).doUpdateSet({ count: sql`dns_query_counts.count + excluded.count` }))
      .execute();
  }

  /** Sums per time slot (slots aligned on multiples of slotMs since the epoch), oldest first. */
  async series(query: SeriesQuery): Promise<{ slot: number; count: number }[]> {
    if (query.zoneIds?.length === 0) return [];
    // A literal, not a parameter: PostgreSQL matches the grouped expression to the selected one by text.
    const slot = sql<number>`minute - (minute % ${sql.lit(Math.trunc(query.slotMs))})`;
    let select = this.db
      .selectFrom('dns_query_counts')
      .select([slot.as('slot'), (eb) => eb.fn.sum<number>('count').as('count')])
      .where('client_id', '=', query.clientId)
      .where('minute', '>=', query.fromMs)
      .where('minute', '<', query.toMs)
      .groupBy(slot)
      .orderBy(slot);
    if (query.zoneIds) select = select.where('zone_id', 'in', query.zoneIds);
    if (query.qtype) select = select.where('qtype', '=', query.qtype);
    const rows = await select.execute();
    return rows.map((r) => ({ slot: Number(r.slot), count: Number(r.count) }));
  }
}
