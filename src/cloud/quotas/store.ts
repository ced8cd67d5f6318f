// SQL for per-client quota limits.
import type { Kysely } from 'kysely';
import type { Engine } from '../../platform/db/index.js';

interface Tables {
  cloud_quotas: { client_id: number; limits: string; updated_at: number };
}

export class QuotaStore {
  private readonly db: Kysely<Tables>;

  constructor(
    db: Kysely<any>,
    private readonly engine: Engine,
  ) {
    this.db = db as Kysely<Tables>;
  }

  withDb(db: Kysely<any>): QuotaStore {
    return new QuotaStore(db, this.engine);
  }

  async get(clientId: number): Promise<Record<string, number> | undefined> {
    const row = await this.db.selectFrom('cloud_quotas').select('limits').where('client_id', '=', clientId).executeTakeFirst();
    return row ? (JSON.parse(row.limits) as Record<string, number>) : undefined;
  }

  async put(clientId: number, limits: Record<string, number>, now: number): Promise<void> {
    await this.db
      .insertInto('cloud_quotas')
      .values({ client_id: clientId, limits: JSON.stringify(limits), updated_at: now })
      .onConflict((oc) => oc.column('client_id').doUpdateSet({ limits: JSON.stringify(limits), updated_at: now }))
      .execute();
  }

  /**
   * Locks the client's quota row until the transaction ends (PostgreSQL), so two processes finishing
   * tasks of one client check their quota one after the other. SQLite transactions are serial already.
   */
  async lock(clientId: number, defaults: Record<string, number>, now: number): Promise<Record<string, number>> {
    let q = this.db.selectFrom('cloud_quotas').select('limits').where('client_id', '=', clientId);
    if (this.engine === 'postgres') q = q.forUpdate();
    let row = await q.executeTakeFirst();
    if (!row) {
      // First check for this client: create its row (a racing process may do the same), then lock it.
      await this.db
        .insertInto('cloud_quotas')
        .values({ client_id: clientId, limits: JSON.stringify(defaults), updated_at: now })
        .onConflict((oc) => oc.column('client_id').doNothing())
        .execute();
      row = await q.executeTakeFirstOrThrow();
    }
    return JSON.parse(row.limits) as Record<string, number>;
  }
}
