// SQL for edge-function networks, always by client id. A client's set is small and changed as a whole.
import type { Generated, Kysely } from 'kysely';
import type { AsClient } from '../../platform/db/client-shares.js';

export interface NetworkRow {
  id: number;
  client_id: number;
  name: string;
  is_default: number;
  created_at: number;
}

interface Tables {
  edge_networks: Omit<NetworkRow, 'id'> & { id: Generated<number> };
}

export class NetworkStore {
  private readonly db: Kysely<Tables>;

  /** `asClient`: the client's share of the pooled connections its transactions run in (Database.asClient). */
  constructor(
    db: Kysely<any>,
    private readonly asClient: AsClient,
  ) {
    this.db = db as Kysely<Tables>;
  }

  async list(clientId: number): Promise<NetworkRow[]> {
    return this.db.selectFrom('edge_networks').selectAll().where('client_id', '=', clientId).orderBy('id').execute();
  }

  /** Replaces the client's whole set in one transaction, keeping the given order. */
  async replace(clientId: number, networks: { name: string; is_default: boolean }[], now: number): Promise<void> {
    await this.asClient(clientId, () =>
      this.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('edge_networks').where('client_id', '=', clientId).execute();
        if (networks.length === 0) return;
        await trx
          .insertInto('edge_networks')
          .values(networks.map((n) => ({ client_id: clientId, name: n.name, is_default: n.is_default ? 1 : 0, created_at: now })))
          .execute();
      }),
    );
  }
}
