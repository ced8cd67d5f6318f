// SQL for WAAP domains. Every read is scoped by client.
import { sql, type Kysely } from 'kysely';
import { selectRows } from '../../platform/db/templates.js';

export interface DomainRow {
  id: number;
  client_id: number;
  name: string;
  status: string;
  custom_page_set: number | null;
  /** JSON array of strings. */
  aliases: string;
  created_at: number;
}

export interface DomainFilter {
  ids?: number[];
  /** SQL LIKE pattern with `\` escapes. */
  nameLike?: string;
  status?: string;
}

export class DomainStore {
  constructor(private readonly db: Kysely<any>) {}

  async insert(row: Omit<DomainRow, 'id'>): Promise<number> {
    const inserted = await this.db.insertInto('waap_domains').values(row).returning('id').executeTakeFirstOrThrow();
    return Number(inserted.id);
  }

  async find(clientId: number, id: number): Promise<DomainRow | undefined> {
    return (await selectRows<DomainRow>(this.db, 'waap_domains', { client_id: clientId, id }))[0];
  }

  /** Looks a domain up by id alone: ingestion learns the owning client from the domain. */
  async findAnyClient(id: number): Promise<DomainRow | undefined> {
    return (await selectRows<DomainRow>(this.db, 'waap_domains', { id }))[0];
  }

  async findByName(clientId: number, name: string): Promise<DomainRow | undefined> {
    return (await selectRows<DomainRow>(this.db, 'waap_domains', { client_id: clientId, name }))[0];
  }

  async list(
    clientId: number,
    filter: DomainFilter,
    order: { column: string; descending: boolean },
    limit: number,
    offset: number,
  ): Promise<{ count: number; rows: DomainRow[] }> {
    let query = this.db.selectFrom('waap_domains').where('client_id', '=', clientId);
    if (filter.ids?.length) query = query.where('id', 'in', filter.ids);
    if (filter.status) query = query.where('status', '=', filter.status);
    if (filter.nameLike) query = query.where(sql<boolean>`lower(name) like ${filter.nameLike} escape '\\'`);
    const counted = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rows =
      limit === 0
        ? []
        : ((await query
            .selectAll()
            .orderBy(order.column as 'id', order.descending ? 'desc' : 'asc')
            .orderBy('id')
            .limit(limit)
            .offset(offset)
            .execute()) as DomainRow[]);
    return { count: Number(counted.n), rows };
  }

  async count(clientId: number): Promise<number> {
    const row = await this.db
      .selectFrom('waap_domains')
      .where('client_id', '=', clientId)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async updateStatus(clientId: number, id: number, status: string): Promise<boolean> {
    const result = await this.db.updateTable('waap_domains').set({ status }).where('client_id', '=', clientId).where('id', '=', id).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async delete(clientId: number, id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('waap_domains').where('client_id', '=', clientId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
