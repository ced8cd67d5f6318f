// Accounts: creating them (first start, seeding, control API) and describing them to their users.
import { AppError, notFound } from '../../platform/errors.js';
import type { Clock } from '../../platform/clock.js';
import { deepFreeze } from '../../platform/immutable.js';
import { TtlCache } from '../../platform/ttl-cache.js';
import { groupById, type GroupId, type Principal } from '../../platform/auth/principal.js';
import type { Account, User } from './schemas.js';
import { SERVICES } from './schemas.js';
import type { AccountStore, ClientRow, UserRow } from './store.js';

export interface NewAccount {
  email: string;
  companyName: string;
  name?: string | null;
  status?: Account['status'];
  capabilities?: (typeof SERVICES)[number][];
  isReseller?: boolean;
  resellerId?: number | null;
  isTest?: boolean;
  /** The first user, an administrator. */
  adminName?: string;
}

// GET /iam/clients/me is the call every client makes to check its token; reading the account and its
// users once a second per account (and at once after a change through this node) keeps it cheap.
const ACCOUNT_CACHE_MS = 1_000;

/** One account as read from the database, and the record as each of its users has been shown it. */
interface Snapshot {
  account: Account;
  /** Deep-frozen, so the response serialiser may keep its JSON text (see createSerializerCompiler). */
  views: Map<number, Account>;
}

export class AccountService {
  private readonly snapshots = new TtlCache<number, Snapshot>(ACCOUNT_CACHE_MS);

  constructor(
    private readonly store: AccountStore,
    private readonly clock: Clock,
  ) {}

  /** Call after any change to an account or its users. */
  changed(clientId: number): void {
    this.snapshots.delete(clientId);
  }

  async createAccount(input: NewAccount): Promise<{ clientId: number; adminUserId: number }> {
    if (input.resellerId != null) {
      const reseller = await this.store.findClient(input.resellerId);
      if (!reseller || !reseller.is_reseller) throw new AppError('validation_failed', `reseller ${input.resellerId} does not exist`);
    }
    const now = this.clock.now();
    const clientId = await this.store.insertClient({
      email: input.email,
      name: input.name ?? null,
      company_name: input.companyName,
      status: input.status ?? 'active',
      phone: null,
      website: null,
      country_code: null,
      custom_id: null,
      bill_type: 'postpay',
      capabilities: JSON.stringify(input.capabilities ?? [...SERVICES]),
      is_test: input.isTest ? 1 : 0,
      is_reseller: input.isReseller ? 1 : 0,
      reseller_id: input.resellerId ?? null,
      deleted: 0,
      created_at: now,
    });
    const adminUserId = await this.addUser(clientId, { email: input.email, name: input.adminName ?? input.name ?? null, groupId: 1 });
    return { clientId, adminUserId };
  }

  async addUser(clientId: number, user: { email: string; name: string | null; groupId: GroupId }): Promise<number> {
    this.changed(clientId);
    return this.store.insertUser({
      client_id: clientId,
      email: user.email,
      name: user.name,
      phone: null,
      company: null,
      lang: 'en',
      group_id: user.groupId,
      activated: 1,
      deleted: 0,
      created_at: this.clock.now(),
    });
  }

  async isEmpty(): Promise<boolean> {
    return (await this.store.countClients()) === 0;
  }

  /** Whether an account exists (and is not deleted); other products' control APIs check this before seeding. */
  async exists(clientId: number): Promise<boolean> {
    return (await this.store.findClient(clientId)) !== undefined;
  }

  /** The oldest live account with this email and its first administrator, if both exist. */
  async findAdministered(email: string): Promise<{ clientId: number; adminUserId: number } | undefined> {
    const clientId = await this.store.findClientIdByEmail(email);
    if (clientId === undefined) return undefined;
    const admin = (await this.store.listUsers(clientId)).find((u) => u.group_id === 1);
    return admin && { clientId, adminUserId: admin.id };
  }

  async user(clientId: number, userId: number): Promise<UserRow | undefined> {
    return this.store.findUser(clientId, userId);
  }

  async overview(principal: Principal): Promise<Account> {
    let snapshot = this.snapshots.get(principal.clientId);
    if (!snapshot) {
      const client = await this.store.findClient(principal.clientId);
      if (!client) throw notFound('Account');
      snapshot = { account: toAccount(client, await this.store.listUsers(client.id), 0), views: new Map() };
      this.snapshots.set(client.id, snapshot);
    }
    // The records differ only in who is asking; each is made once per snapshot and never changed.
    let view = snapshot.views.get(principal.userId);
    if (!view) {
      view = deepFreeze({ ...structuredClone(snapshot.account), currentUser: principal.userId });
      snapshot.views.set(principal.userId, view);
    }
    return view;
  }

  /**
   * The account a request may act on: its own, or for a reseller token one of the reseller's
   * sub-clients. Anything else is "not found", so other accounts' existence does not leak.
   */
  async actingOn(principal: Principal, clientId: number): Promise<number> {
    if (principal.kind === 'client' && principal.clientId === clientId) return clientId;
    if (principal.kind === 'reseller' && (principal.clientId === clientId || (await this.store.isSubClient(principal.clientId, clientId)))) {
      return clientId;
    }
    throw notFound('Account');
  }
}

/** A user as the IAM API shows it (shared with the users resource). */
export function toUser(row: UserRow, client: ClientRow): User {
  const group = groupById(row.group_id);
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    lang: row.lang as User['lang'],
    phone: row.phone,
    company: row.company ?? client.company_name,
    reseller: client.reseller_id ?? 0,
    client: client.id,
    deleted: row.deleted === 1,
    groups: group ? [{ id: group.id, name: group.name }] : [],
    activated: row.activated === 1,
    sso_auth: false,
    two_fa: false,
    auth_types: ['password'],
  };
}

function toAccount(client: ClientRow, users: UserRow[], currentUser: number): Account {
  const capabilities = JSON.parse(client.capabilities) as Account['capabilities'];
  const statusOf = (service: (typeof SERVICES)[number]) =>
    capabilities.includes(service) ? { status: 'active' as const, enabled: true } : { status: 'new' as const, enabled: false };
  const emptyFeatures = () => ({ CDN: [], STORAGE: [], STREAMING: [], DNS: [], DDOS: [], CLOUD: [] });
  return {
    id: client.id,
    users: users.map((u) => toUser(u, client)),
    email: client.email,
    phone: client.phone,
    name: client.name,
    status: client.status as Account['status'],
    companyName: client.company_name,
    website: client.website ?? '',
    currentUser,
    capabilities,
    serviceStatuses: {
      CDN: statusOf('CDN'),
      STORAGE: statusOf('STORAGE'),
      STREAMING: statusOf('STREAMING'),
      DNS: statusOf('DNS'),
      DDOS: statusOf('DDOS'),
      CLOUD: statusOf('CLOUD'),
    },
    paidFeatures: emptyFeatures(),
    freeFeatures: emptyFeatures(),
    entryBaseDomain: null,
    signup_process: null,
    deleted: client.deleted === 1,
    bill_type: client.bill_type,
    custom_id: client.custom_id,
    country_code: client.country_code ?? '',
    is_test: client.is_test === 1,
    has_active_admin: users.some((u) => u.group_id === 1 && u.activated === 1 && u.deleted === 0),
  };
}
