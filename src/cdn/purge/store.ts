// SQL for purge and prefetch requests: the purge history, and the requests of the last minute that the
// per-resource limits count. No rules here.
import { type Generated, type Kysely, sql } from 'kysely';
import type { AsClient } from '../../platform/db/client-shares.js';

export type RequestType = 'purge_by_url' | 'purge_by_pattern' | 'purge_all' | 'prefetch';

export interface PurgeRow {
  id: number;
  client_id: number;
  resource_id: number;
  cname: string;
  purge_type: RequestType;
  /** JSON: {urls} or {paths}. */
  payload: string;
  created_at: number;
}

interface Tables {
  cdn_purges: Omit<PurgeRow, 'id'> & { id: Generated<number> };
}

export interface HistoryQuery {
  cname?: string;
  purgeType?: string;
  from?: number;
  to?: number;
  /** Purges made after this instant only (still in progress), or at or before it only (finished). */
  createdAfter?: number;
  createdAtOrBefore?: number;
}

const normalise = (r: PurgeRow): PurgeRow => ({
  ...r,
  id: Number(r.id),
  client_id: Number(r.client_id),
  resource_id: Number(r.resource_id),
  created_at: Number(r.created_at),
});

export class PurgeStore {
  private readonly db: Kysely<Tables>;

  /** `asClient`: the client's share of the pooled connections its transactions run in (Database.asClient). */
  constructor(
    db: Kysely<any>,
    private readonly asClient: AsClient,
  ) {
    this.db = db as Kysely<Tables>;
  }

  /**
   * Records the request unless the resource already had `allowed` requests of its type after `since`;
   * answers those requests either way (oldest first). One transaction that first writes the resource's
   * row, so concurrent requests for one resource are counted one after the other on both engines (a
   * row lock on PostgreSQL, the database lock on SQLite).
   */
  async admit(row: Omit<PurgeRow, 'id'>, since: number, allowed: number): Promise<{ accepted: boolean; recent: PurgeRow[] }> {
    return this.asClient(row.client_id, () =>
      this.db.transaction().execute(async (trx) => {
        await sql`update cdn_resources set updated_at = updated_at where id = ${row.resource_id}`.execute(trx);
        const recent = (
          await trx
            .selectFrom('cdn_purges')
            .selectAll()
            .where('resource_id', '=', row.resource_id)
            .where('purge_type', '=', row.purge_type)
            .where('created_at', '>', since)
            .orderBy('id')
            .execute()
        ).map(normalise);
        if (recent.length >= allowed) return { accepted: false, recent };
        await trx.insertInto('cdn_purges').values(row).execute();
        return { accepted: true, recent };
      }),
    );
  }

  /** Keeps the client's newest `keep` records. */
  async trim(clientId: number, keep: number): Promise<void> {
    const edge = await this.db
      .selectFrom('cdn_purges')
      .select('id')
      .where('client_id', '=', clientId)
      .orderBy('id', 'desc')
      .offset(keep)
      .limit(1)
      .executeTakeFirst();
    if (edge) await this.db.deleteFrom('cdn_purges').where('client_id', '=', clientId).where('id', '<=', Number(edge.id)).execute();
  }

  private history(clientId: number, q: HistoryQuery) {
    let query = this.db.selectFrom('cdn_purges').where('client_id', '=', clientId).where('purge_type', '!=', 'prefetch');
    if (q.cname !== undefined) query = query.where('cname', '=', q.cname);
    if (q.purgeType !== undefined) query = query.where('purge_type', '=', q.purgeType as RequestType);
    if (q.from !== undefined) query = query.where('created_at', '>=', q.from);
    if (q.to !== undefined) query = query.where('created_at', '<=', q.to);
    if (q.createdAfter !== undefined) query = query.where('created_at', '>', q.createdAfter);
    if (q.createdAtOrBefore !== undefined) query = query.where('created_at', '<=', q.createdAtOrBefore);
    return query;
  }

  async countHistory(clientId: number, q: HistoryQuery): Promise<number> {
    const row = await this.history(clientId, q)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The history, newest first. */
  async pageHistory(clientId: number, q: HistoryQuery, limit: number, offset: number): Promise<PurgeRow[]> {
    const rows = await this.history(clientId, q).selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute();
    return rows.map(normalise);
  }
}
