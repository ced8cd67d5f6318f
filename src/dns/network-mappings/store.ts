// SQL for network mappings, always scoped by client. No rules here.
import type { Kysely } from 'kysely';
import { type DnsDb, isUniqueViolation, type MappingRow, numbers } from '../common/tables.js';
import type { AsClient } from '../../platform/db/client-shares.js';

const NUMBERS: (keyof MappingRow)[] = ['id', 'client_id', 'created_at', 'updated_at'];

export class MappingStore {
  private readonly db: DnsDb;

  /** `asClient`: the client's share of the pooled connections its transactions run in (Database.asClient). */
  constructor(
    db: Kysely<any>,
    private readonly asClient: AsClient,
  ) {
    this.db = db as DnsDb;
  }

  async all(clientId: number): Promise<MappingRow[]> {
    const rows = await this.db.selectFrom('dns_network_mappings').selectAll().where('client_id', '=', clientId).orderBy('id').execute();
    return rows.map((row) => numbers(row, NUMBERS));
  }

  async find(clientId: number, id: number): Promise<MappingRow | undefined> {
    const row = await this.db.selectFrom('dns_network_mappings').selectAll().where('client_id', '=', clientId).where('id', '=', id).executeTakeFirst();
    return row && numbers(row, NUMBERS);
  }

  async findByName(clientId: number, name: string): Promise<MappingRow | undefined> {
    const row = await this.db.selectFrom('dns_network_mappings').selectAll().where('client_id', '=', clientId).where('name', '=', name).executeTakeFirst();
    return row && numbers(row, NUMBERS);
  }

  async count(clientId: number): Promise<number> {
    const row = await this.db
      .selectFrom('dns_network_mappings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('client_id', '=', clientId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Inserts a mapping; undefined when the client already has one of that name. */
  async insert(clientId: number, name: string, mapping: string, now: number): Promise<number | undefined> {
    try {
      const row = await this.db
        .insertInto('dns_network_mappings')
        .values({ client_id: clientId, name, mapping, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    } catch (error) {
      if (isUniqueViolation(error)) return undefined;
      throw error;
    }
  }

  /** Changes a mapping; false when its new name is another mapping's. */
  async update(clientId: number, id: number, name: string, mapping: string, now: number): Promise<boolean> {
    try {
      await this.db
        .updateTable('dns_network_mappings')
        .set({ name, mapping, updated_at: now })
        .where('client_id', '=', clientId)
        .where('id', '=', id)
        .execute();
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async delete(clientId: number, id: number): Promise<void> {
    await this.db.deleteFrom('dns_network_mappings').where('client_id', '=', clientId).where('id', '=', id).execute();
  }

  /** Creates or replaces mappings by name, all in one transaction. */
  async upsertMany(clientId: number, mappings: { name: string; mapping: string }[], now: number): Promise<void> {
    await this.asClient(clientId, () =>
      this.db.transaction().execute(async (trx) => {
        for (const { name, mapping } of mappings) {
          const updated = await trx
            .updateTable('dns_network_mappings')
            .set({ mapping, updated_at: now })
            .where('client_id', '=', clientId)
            .where('name', '=', name)
            .executeTakeFirst();
          if (Number(updated.numUpdatedRows) === 0)
            await trx.insertInto('dns_network_mappings').values({ client_id: clientId, name, mapping, created_at: now, updated_at: now }).execute();
        }
      }),
    );
  }
}
