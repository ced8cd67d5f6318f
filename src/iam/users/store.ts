// SQL for the users resource: reading and changing one account's users, and what a group change must
// check (the account's administrators, the user's live tokens). Always scoped by client id.
import type { Kysely } from 'kysely';
import type { ClientRow, UserRow } from '../account/store.js';

interface Tables {
  clients: ClientRow;
  users: UserRow;
  api_tokens: { client_id: number; user_id: number; group_id: number; deleted: number; expires_at: number | null };
}

export type UserChanges = Partial<Pick<UserRow, 'email' | 'name' | 'lang' | 'phone' | 'group_id'>>;

export class UserStore {
  private readonly db: Kysely<Tables>;

  constructor(db: Kysely<any>) {
    this.db = db as Kysely<Tables>;
  }

  async client(clientId: number): Promise<ClientRow | undefined> {
    return this.db.selectFrom('clients').selectAll().where('id', '=', clientId).where('deleted', '=', 0).executeTakeFirst();
  }

  async count(clientId: number): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('client_id', '=', clientId)
      .where('deleted', '=', 0)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async list(clientId: number, limit: number | undefined, offset: number): Promise<UserRow[]> {
    const query = this.db.selectFrom('users').selectAll().where('client_id', '=', clientId).where('deleted', '=', 0).orderBy('id');
    if (limit === undefined && offset === 0) return query.execute();
    // SQLite accepts OFFSET only after a LIMIT: "all the rest" is the largest 32-bit count.
    return query
      .limit(limit ?? 2_147_483_647)
      .offset(offset)
      .execute();
  }

  async get(clientId: number, userId: number): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('client_id', '=', clientId).where('id', '=', userId).where('deleted', '=', 0).executeTakeFirst();
  }

  /** Whether another live user of the same account has this email (other accounts' users are not asked: that would tell whose email exists). */
  async emailTaken(clientId: number, email: string, exceptUserId: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('users')
      .select('id')
      .where('client_id', '=', clientId)
      .where('email', '=', email)
      .where('deleted', '=', 0)
      .where('id', '!=', exceptUserId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async countActiveAdmins(clientId: number, adminGroupId: number): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('client_id', '=', clientId)
      .where('group_id', '=', adminGroupId)
      .where('deleted', '=', 0)
      .where('activated', '=', 1)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Group ids of the user's tokens that still work (not revoked, not expired). */
  async liveTokenGroups(clientId: number, userId: number, now: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('api_tokens')
      .select('group_id')
      .distinct()
      .where('client_id', '=', clientId)
      .where('user_id', '=', userId)
      .where('deleted', '=', 0)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .execute();
    return rows.map((r) => Number(r.group_id));
  }

  async update(clientId: number, userId: number, changes: UserChanges): Promise<void> {
    if (Object.keys(changes).length === 0) return;
    await this.db.updateTable('users').set(changes).where('client_id', '=', clientId).where('id', '=', userId).execute();
  }
}
