// SQL for accounts (clients) and their users. No rules here: the service decides, the store reads and writes.
import type { Generated, Kysely } from 'kysely';

export interface ClientRow {
  id: number;
  email: string;
  name: string | null;
  company_name: string;
  status: string;
  phone: string | null;
  website: string | null;
  country_code: string | null;
  custom_id: string | null;
  bill_type: string;
  /** JSON array of service names. */
  capabilities: string;
  is_test: number;
  is_reseller: number;
  reseller_id: number | null;
  deleted: number;
  created_at: number;
}

export interface UserRow {
  id: number;
  client_id: number;
  email: string;
  name: string | null;
  phone: string | null;
  company: string | null;
  lang: string;
  group_id: number;
  activated: number;
  deleted: number;
  created_at: number;
}

type WithGeneratedId<T extends { id: number }> = Omit<T, 'id'> & { id: Generated<number> };

interface Tables {
  clients: WithGeneratedId<ClientRow>;
  users: WithGeneratedId<UserRow>;
}

export type NewClient = Omit<ClientRow, 'id'>;
export type NewUser = Omit<UserRow, 'id'>;

export class AccountStore {
  private readonly db: Kysely<Tables>;

  constructor(db: Kysely<any>) {
    this.db = db as Kysely<Tables>;
  }

  async insertClient(client: NewClient): Promise<number> {
    const row = await this.db.insertInto('clients').values(client).returning('id').executeTakeFirstOrThrow();
    return Number(row.id);
  }

  async insertUser(user: NewUser): Promise<number> {
    const row = await this.db.insertInto('users').values(user).returning('id').executeTakeFirstOrThrow();
    return Number(row.id);
  }

  async findClient(id: number): Promise<ClientRow | undefined> {
    return this.db.selectFrom('clients').selectAll().where('id', '=', id).where('deleted', '=', 0).executeTakeFirst();
  }

  /** The oldest live account with this email (the demo account is found this way). */
  async findClientIdByEmail(email: string): Promise<number | undefined> {
    const row = await this.db.selectFrom('clients').select('id').where('email', '=', email).where('deleted', '=', 0).orderBy('id').limit(1).executeTakeFirst();
    return row === undefined ? undefined : Number(row.id);
  }

  async countClients(): Promise<number> {
    const row = await this.db
      .selectFrom('clients')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async isSubClient(resellerId: number, clientId: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('clients')
      .select('id')
      .where('id', '=', clientId)
      .where('reseller_id', '=', resellerId)
      .where('deleted', '=', 0)
      .executeTakeFirst();
    return row !== undefined;
  }

  async findUser(clientId: number, userId: number): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('client_id', '=', clientId).where('id', '=', userId).executeTakeFirst();
  }

  async listUsers(clientId: number): Promise<UserRow[]> {
    return this.db.selectFrom('users').selectAll().where('client_id', '=', clientId).where('deleted', '=', 0).orderBy('id').execute();
  }
}
