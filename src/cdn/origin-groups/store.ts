// SQL for origin groups, always by client. Sources and credentials are JSON text. No rules here.
import type { Generated, Kysely } from 'kysely';
import { countRows, selectRows } from '../../platform/db/templates.js';

export interface OriginGroupRow {
  id: number;
  client_id: number;
  name: string;
  use_next: number;
  /** JSON array of strings. */
  proxy_next_upstream: string;
  auth_type: string;
  /** JSON object of the deprecated group-wide S3 credentials, or null. */
  auth: string | null;
  /** JSON array of stored sources (secrets unmasked). */
  sources: string;
  path: string;
  created_at: number;
  updated_at: number;
}

export type OriginGroupFields = Omit<OriginGroupRow, 'id' | 'client_id' | 'created_at' | 'updated_at'>;

interface Tables {
  cdn_origin_groups: Omit<OriginGroupRow, 'id'> & { id: Generated<number> };
}

const normalise = (row: OriginGroupRow): OriginGroupRow => ({ ...row, id: Number(row.id), client_id: Number(row.client_id), use_next: Number(row.use_next) });

export class OriginGroupStore {
  private readonly db: Kysely<Tables>;

  constructor(db: Kysely<any>) {
    this.db = db as Kysely<Tables>;
  }

  /** Every group of the client, oldest first (a client has at most its quota of them). */
  async all(clientId: number): Promise<OriginGroupRow[]> {
    const rows = await selectRows<OriginGroupRow>(this.db, 'cdn_origin_groups', { client_id: clientId }, 'id');
    return rows.map(normalise);
  }

  async count(clientId: number): Promise<number> {
    return countRows(this.db, 'cdn_origin_groups', { client_id: clientId });
  }

  async find(clientId: number, id: number): Promise<OriginGroupRow | undefined> {
    const [row] = await selectRows<OriginGroupRow>(this.db, 'cdn_origin_groups', { client_id: clientId, id });
    return row && normalise(row);
  }

  async findByName(clientId: number, name: string): Promise<OriginGroupRow | undefined> {
    const row = await this.db.selectFrom('cdn_origin_groups').selectAll().where('client_id', '=', clientId).where('name', '=', name).executeTakeFirst();
    return row && normalise(row);
  }

  async insert(clientId: number, fields: OriginGroupFields, now: number): Promise<number> {
    const row = await this.db
      .insertInto('cdn_origin_groups')
      .values({ ...fields, client_id: clientId, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  async update(clientId: number, id: number, fields: OriginGroupFields, now: number): Promise<void> {
    await this.db
      .updateTable('cdn_origin_groups')
      .set({ ...fields, updated_at: now })
      .where('client_id', '=', clientId)
      .where('id', '=', id)
      .execute();
  }

  async delete(clientId: number, id: number): Promise<void> {
    await this.db.deleteFrom('cdn_origin_groups').where('client_id', '=', clientId).where('id', '=', id).execute();
  }
}
