// The account's users: list, read, and change details. Anyone may change their own name, language,
// phone and email; administrators may change any user of the account, and only they may change a
// user's group. A group change may not leave the account without an active administrator, nor put a
// user below the role of a token the user issued and that still works (the provider's 403).
import { groupById, groupByName, type GroupId, type Principal, ROLE_RANK } from '../../platform/auth/principal.js';
import type { Clock } from '../../platform/clock.js';
import { AppError, bodyField, type FieldError, invalid, notFound } from '../../platform/errors.js';
import { toUser } from '../account/service.js';
import type { ClientRow, UserRow } from '../account/store.js';
import type { FullUser, UserListQuery, UserPage, UserPatch } from './schemas.js';
import type { UserChanges, UserStore } from './store.js';

const ADMINISTRATORS: GroupId = 1;

/** Told after a change so cached account views (GET /iam/clients/me) refresh. */
export interface AccountChanges {
  changed(clientId: number): void;
}

export class UserService {
  constructor(
    private readonly store: UserStore,
    private readonly accounts: AccountChanges,
    private readonly clock: Clock,
  ) {}

  async list(principal: Principal, query: UserListQuery): Promise<UserPage> {
    const client = await this.client(principal);
    const [count, rows] = await Promise.all([this.store.count(client.id), query.limit === 0 ? [] : this.store.list(client.id, query.limit, query.offset)]);
    const page: UserPage = { count, results: rows.map((row) => toFullUser(row, client)) };
    // Links only make sense for paginated requests (the provider answers everything without a limit).
    if (query.limit !== undefined) {
      if (query.offset + query.limit < count && query.limit > 0) page.next = `/iam/users?offset=${query.offset + query.limit}&limit=${query.limit}`;
      if (query.offset > 0) page.previous = `/iam/users?offset=${Math.max(0, query.offset - query.limit)}&limit=${query.limit}`;
    }
    return page;
  }

  async get(principal: Principal, userId: number): Promise<FullUser> {
    const client = await this.client(principal);
    return toFullUser(await this.user(client.id, userId), client);
  }

  async update(principal: Principal, userId: number, patch: UserPatch): Promise<FullUser> {
    const client = await this.client(principal);
    const user = await this.user(client.id, userId);
    const isAdmin = principal.role === 'Administrators';
    if (!isAdmin && principal.userId !== userId) throw new AppError('forbidden', "Only administrators can change other users' details.");
    const changes: UserChanges = {};
    const problems: FieldError[] = [];
    if (patch.email !== undefined && patch.email !== user.email) {
      if (await this.store.emailTaken(client.id, patch.email, userId)) problems.push(bodyField(['email'], 'User with this email already exists.'));
      changes.email = patch.email;
    }
    if (patch.name !== undefined) changes.name = patch.name;
    if (patch.phone !== undefined) changes.phone = patch.phone;
    if (patch.lang !== undefined) changes.lang = patch.lang;
    if (patch.groups !== undefined) {
      const group = resolveGroup(patch.groups[0], problems);
      if (group !== undefined && group !== user.group_id) {
        if (!isAdmin) throw new AppError('forbidden', "Only administrators can change a user's group.");
        problems.push(...(await this.groupChangeProblems(client.id, user, group)));
        changes.group_id = group;
      }
    }
    if (problems.length > 0) throw invalid(problems);
    await this.store.update(client.id, userId, changes);
    this.accounts.changed(client.id);
    return toFullUser({ ...user, ...changes }, client);
  }

  private async groupChangeProblems(clientId: number, user: UserRow, group: GroupId): Promise<FieldError[]> {
    if (user.group_id === ADMINISTRATORS && user.activated === 1 && (await this.store.countActiveAdmins(clientId, ADMINISTRATORS)) <= 1) {
      return [bodyField(['groups'], 'The account must keep at least one active administrator.')];
    }
    const newRank = ROLE_RANK[groupById(group)!.name];
    const tokenGroups = await this.store.liveTokenGroups(clientId, user.id, this.clock.now());
    if (tokenGroups.some((g) => ROLE_RANK[groupById(g)?.name ?? 'Users'] > newRank)) {
      throw new AppError('forbidden', 'The specified user has issued a token with a higher role. Try using another role.');
    }
    return [];
  }

  private async client(principal: Principal): Promise<ClientRow> {
    const client = await this.store.client(principal.clientId);
    if (!client) throw notFound('Account');
    return client;
  }

  private async user(clientId: number, userId: number): Promise<UserRow> {
    const user = await this.store.get(clientId, userId);
    if (!user) throw notFound('User');
    return user;
  }
}

function resolveGroup(ref: { id?: number; name?: string }, problems: FieldError[]): GroupId | undefined {
  const byId = ref.id === undefined ? undefined : groupById(ref.id);
  const byName = ref.name === undefined ? undefined : groupByName(ref.name);
  if ((ref.id !== undefined && !byId) || (!byId && !byName) || (byId && byName && byId.id !== byName.id)) {
    problems.push(bodyField(['groups'], 'Group matching query does not exist.'));
    return undefined;
  }
  return (byId ?? byName)!.id;
}

function toFullUser(row: UserRow, client: ClientRow): FullUser {
  const user = toUser(row, client);
  return {
    ...user,
    user_type: client.is_reseller === 1 ? 'reseller' : 'common',
    is_active: row.activated === 1 && row.deleted === 0,
    client_and_roles: [{ client_id: client.id, client_company_name: client.company_name, user_id: row.id, user_roles: [String(row.group_id)] }],
  };
}
