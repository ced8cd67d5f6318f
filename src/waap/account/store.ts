// SQL for the per-client WAAP service settings (absent row = defaults).
import type { Kysely } from 'kysely';

export interface WaapClientRow {
  client_id: number;
  enabled: number;
  /** JSON array of feature names. */
  features: string;
  domain_quota: number;
}

export class WaapClientStore {
  constructor(private readonly db: Kysely<any>) {}

  async find(clientId: number): Promise<WaapClientRow | undefined> {
    return this.db.selectFrom('waap_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst() as Promise<WaapClientRow | undefined>;
  }

  async upsert(row: WaapClientRow): Promise<void> {
    await this.db
      .insertInto('waap_clients')
      .values(row)
      .onConflict((oc) => oc.column('client_id').doUpdateSet({ enabled: row.enabled, features: row.features, domain_quota: row.domain_quota }))
      .execute();
  }
}
