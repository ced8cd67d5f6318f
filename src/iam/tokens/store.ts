// SQL for API tokens. Secrets never reach this table: only a hash and a short lookup prefix of it.
import type { Generated, Kysely } from 'kysely';
import type { AsClient } from '../../platform/db/client-shares.js';

export interface TokenRow {
  id: number;
  client_id: number;
  user_id: number;
  kind: 'client' | 'reseller';
  name: string;
  description: string | null;
  group_id: number;
  lookup_key: string;
  secret_hash: string;
  expires_at: number | null;
  last_used_at: number | null;
  deleted: number;
  created_at: number;
}

/** A token with what a response and the auth check need of its user and account. */
export interface TokenWithOwner extends TokenRow {
  user_email: string;
  user_name: string | null;
  user_deleted: number;
  client_deleted: number;
}

interface Tables {
  api_tokens: Omit<TokenRow, 'id'> & { id: Generated<number> };
  users: { id: number; email: string; name: string | null; deleted: number };
  clients: { id: number; deleted: number };
}

export interface TokenFilter {
  clientId: number;
  deleted?: boolean;
  issuedBy?: number;
  notIssuedBy?: number;
  groupId?: number;
}

export class TokenStore {
  private readonly db: Kysely<Tables>;

  /** `asClient`: the client's share of the pooled connections its transactions run in (Database.asClient). */
  constructor(
    db: Kysely<any>,
    private readonly asClient: AsClient,
  ) {
    this.db = db as Kysely<Tables>;
  }

  /** Inserts a token and, once its id is known, its secret hash (the secret embeds the id). */
  async insert(row: Omit<TokenRow, 'id' | 'lookup_key' | 'secret_hash'>, secretFor: (id: number) => { lookupKey: string; hash: string }): Promise<number> {
    return this.asClient(row.client_id, () =>
      this.db.transaction().execute(async (trx) => {
        const { id } = await trx
          .insertInto('api_tokens')
          .values({ ...row, lookup_key: '', secret_hash: '' })
          .returning('id')
          .executeTakeFirstOrThrow();
        const secret = secretFor(Number(id));
        await trx.updateTable('api_tokens').set({ lookup_key: secret.lookupKey, secret_hash: secret.hash }).where('id', '=', id).execute();
        return Number(id);
      }),
    );
  }

  private withOwner() {
    return this.db
      .selectFrom('api_tokens as t')
      .innerJoin('users as u', 'u.id', 't.user_id')
      .innerJoin('clients as c', 'c.id', 't.client_id')
      .selectAll('t')
      .select(['u.email as user_email', 'u.name as user_name', 'u.deleted as user_deleted', 'c.deleted as client_deleted']);
  }

  async findByLookupKey(lookupKey: string): Promise<TokenWithOwner[]> {
    return this.withOwner().where('t.lookup_key', '=', lookupKey).execute() as Promise<TokenWithOwner[]>;
  }

  async get(clientId: number, id: number): Promise<TokenWithOwner | undefined> {
    return this.withOwner().where('t.client_id', '=', clientId).where('t.id', '=', id).where('t.kind', '=', 'client').executeTakeFirst() as Promise<
      TokenWithOwner | undefined
    >;
  }

  async list(filter: TokenFilter): Promise<TokenWithOwner[]> {
    let query = this.withOwner().where('t.client_id', '=', filter.clientId).where('t.kind', '=', 'client');
    if (filter.deleted !== undefined) query = query.where('t.deleted', '=', filter.deleted ? 1 : 0);
    if (filter.issuedBy !== undefined) query = query.where('t.user_id', '=', filter.issuedBy);
    if (filter.notIssuedBy !== undefined) query = query.where('t.user_id', '!=', filter.notIssuedBy);
    if (filter.groupId !== undefined) query = query.where('t.group_id', '=', filter.groupId);
    return query.orderBy('t.id').execute() as Promise<TokenWithOwner[]>;
  }

  /** An account's tokens: those that still work (not revoked, not expired at `now`) and all it ever had. */
  async counts(clientId: number, now: number): Promise<{ live: number; all: number }> {
    const row = await this.db
      .selectFrom('api_tokens')
      .select((eb) => [
        eb.fn.countAll<number>().as('all'),
        eb.fn
          .sum<number>(
            eb
              .case()
              .when(eb.and([eb('deleted', '=', 0), eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)])]))
              .then(1)
              .else(0)
              .end(),
          )
          .as('live'),
      ])
      .where('client_id', '=', clientId)
      .executeTakeFirstOrThrow();
    return { live: Number(row.live ?? 0), all: Number(row.all) };
  }

  async markDeleted(clientId: number, id: number): Promise<boolean> {
    const result = await this.db
      .updateTable('api_tokens')
      .set({ deleted: 1 })
      .where('client_id', '=', clientId)
      .where('id', '=', id)
      .where('deleted', '=', 0)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async touch(id: number, at: number): Promise<void> {
    await this.db.updateTable('api_tokens').set({ last_used_at: at }).where('id', '=', id).execute();
  }
}
