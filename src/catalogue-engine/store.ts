// SQL over `catalogue_records`: every read and write is scoped by client, so another client's record is
// simply not found. No rules here.
import { type Kysely, sql } from 'kysely';
import { likeLiteral } from '../platform/db/like.js';

export type RecordState = 'ready' | 'creating' | 'deleting' | 'updating';

export interface RecordRow {
  id: number;
  client_id: number;
  collection: string;
  scope: string;
  record_key: string;
  path: string;
  body: string;
  state: RecordState;
  task_id: string | null;
  created_at: number;
  updated_at: number;
}

export interface Locator {
  clientId: number;
  collection: string;
  scope: string;
}

interface Tables {
  catalogue_records: RecordRow;
}

export class RecordStore {
  private readonly db: Kysely<Tables>;

  constructor(db: Kysely<any>) {
    this.db = db as Kysely<Tables>;
  }

  async get(at: Locator, key: string): Promise<RecordRow | undefined> {
    return this.db
      .selectFrom('catalogue_records')
      .selectAll()
      .where('client_id', '=', at.clientId)
      .where('collection', '=', at.collection)
      .where('scope', '=', at.scope)
      .where('record_key', '=', key)
      .executeTakeFirst();
  }

  async byId(id: number): Promise<RecordRow | undefined> {
    return this.db.selectFrom('catalogue_records').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Every record of a collection in one scope (or under a scope prefix), oldest first. */
  async all(at: Locator, scopePrefix = false): Promise<RecordRow[]> {
    let query = this.db.selectFrom('catalogue_records').selectAll().where('client_id', '=', at.clientId).where('collection', '=', at.collection);
    query =
      scopePrefix && at.scope !== ''
        ? query.where((eb) => eb.or([eb('scope', '=', at.scope), eb('scope', 'like', under(at.scope))]))
        : query.where('scope', '=', at.scope);
    return query.orderBy('id').execute();
  }

  /** The records stored below a path (nested records and settings), oldest first. */
  async under(clientId: number, path: string): Promise<RecordRow[]> {
    return this.db.selectFrom('catalogue_records').selectAll().where('client_id', '=', clientId).where('path', 'like', under(path)).orderBy('id').execute();
  }

  /** Inserts a record; its row id is returned (integer keys are the row id). */
  async insert(row: Omit<RecordRow, 'id'>): Promise<number> {
    const inserted = await this.db
      .insertInto('catalogue_records')
      .values(row as RecordRow)
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(inserted.id);
  }

  async update(id: number, values: Partial<Omit<RecordRow, 'id'>>): Promise<void> {
    await this.db.updateTable('catalogue_records').set(values).where('id', '=', id).execute();
  }

  /** Deletes a record and everything stored under its path (nested records, settings). */
  async deleteTree(clientId: number, path: string): Promise<number> {
    const result = await this.db
      .deleteFrom('catalogue_records')
      .where('client_id', '=', clientId)
      .where((eb) => eb.or([eb('path', '=', path), eb('path', 'like', under(path))]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** How many records a client has, in one collection and in all. */
  async counts(clientId: number, collection: string): Promise<{ collection: number; all: number }> {
    const row = await this.db
      .selectFrom('catalogue_records')
      .select((eb) => [
        eb.fn.countAll<number>().as('all'),
        eb.fn.sum<number>(eb.case().when('collection', '=', collection).then(1).else(0).end()).as('collection'),
      ])
      .where('client_id', '=', clientId)
      .executeTakeFirstOrThrow();
    return { collection: Number(row.collection ?? 0), all: Number(row.all) };
  }

  async deleteRow(id: number): Promise<void> {
    await this.db.deleteFrom('catalogue_records').where('id', '=', id).execute();
  }
}

/** A LIKE pattern for everything below `prefix/`, the prefix taken literally. */
function under(prefix: string) {
  return sql<string>`${`${likeLiteral(prefix)}/%`} escape '\\'`;
}
