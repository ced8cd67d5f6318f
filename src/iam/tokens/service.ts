// API tokens: issuing, listing, revoking, and verifying the token of every request.
import type { Clock } from '../../platform/clock.js';
import { TtlCache } from '../../platform/ttl-cache.js';
import { AppError, bodyField, invalid, notFound, queryField } from '../../platform/errors.js';
import { hashSecret, lookupKey, randomSecret, sameHash } from '../../platform/auth/credentials.js';
import type { CredentialVerifier, Verification } from '../../platform/auth/plugin.js';
import { groupById, groupByName, type GroupName, type Principal, ROLE_RANK } from '../../platform/auth/principal.js';
import type { AccountService } from '../account/service.js';
import type { Token, TokenCreate, TokenCreated, TokenListQuery } from './schemas.js';
import type { TokenStore, TokenWithOwner } from './store.js';

/** v2 tokens read `<id>_<secret>`; the legacy v1 endpoints issue `<id>$<secret>`. */
export type TokenFormat = 'v1' | 'v2';

export interface IssueToken {
  clientId: number;
  userId: number;
  role: GroupName;
  name: string;
  description?: string | null;
  expiresAt?: number | null;
  kind?: 'client' | 'reseller';
  format?: TokenFormat;
  /** Use this exact secret (EDGEPLANE_API_KEY, seeding) instead of a random one. */
  fixedToken?: string;
}

/** Token quotas per account (docs/iam.md). */
export const LIVE_TOKENS = 1_000;
export const TOKEN_ROWS = 20_000;

/** The problem of a token no account has ever had (as opposed to a revoked or expired one). */
export const UNKNOWN_TOKEN = 'Invalid API token.';

// Recording every use would be a write per request; once a minute per token is plenty for `last_usage`.
const LAST_USAGE_RESOLUTION_MS = 60_000;
// How long a verified token is trusted without asking the database again. Revocation through this node
// takes effect at once; through another node (PostgreSQL, several servers) within this span.
export const TOKEN_CACHE_MS = 2_000;

interface VerifiedToken {
  principal: Principal;
  expiresAt: number | null;
}

export class TokenService implements CredentialVerifier {
  private readonly lastTouched = new Map<number, number>();
  private readonly verified = new TtlCache<string, VerifiedToken>(TOKEN_CACHE_MS);

  constructor(
    private readonly store: TokenStore,
    private readonly accounts: AccountService,
    private readonly clock: Clock,
  ) {}

  async issue(input: IssueToken): Promise<{ id: number; token: string }> {
    const group = groupByName(input.role)!;
    let token = '';
    const id = await this.store.insert(
      {
        client_id: input.clientId,
        user_id: input.userId,
        kind: input.kind ?? 'client',
        name: input.name,
        description: input.description ?? null,
        group_id: group.id,
        expires_at: input.expiresAt ?? null,
        last_used_at: null,
        deleted: 0,
        created_at: this.clock.now(),
      },
      (newId) => {
        token = input.fixedToken ?? `${newId}${input.format === 'v1' ? '$' : '_'}${randomSecret()}`;
        return { lookupKey: lookupKey(token), hash: hashSecret(token) };
      },
    );
    return { id, token };
  }

  /** A verification this node made in the last TOKEN_CACHE_MS, if any (no hashing, no database). */
  cached(token: string): Verification | undefined {
    const hit = this.verified.get(token);
    if (!hit) return undefined;
    const now = this.clock.now();
    if (hit.expiresAt !== null && hit.expiresAt <= now) return { problem: 'The API token has expired.' };
    this.recordUse(hit.principal.tokenId, now);
    return { principal: hit.principal };
  }

  async verify(token: string): Promise<Verification> {
    const hit = this.cached(token);
    if (hit) return hit;
    const hash = hashSecret(token);
    const candidates = await this.store.findByLookupKey(hash.slice(0, 16));
    const row = candidates.find((c) => sameHash(c.secret_hash, hash));
    if (!row) return { problem: UNKNOWN_TOKEN };
    if (row.deleted || row.user_deleted || row.client_deleted) return { problem: 'The API token has been revoked.' };
    const now = this.clock.now();
    if (row.expires_at !== null && row.expires_at <= now) return { problem: 'The API token has expired.' };
    const role = groupById(row.group_id)?.name ?? 'Users';
    const principal: Principal = { kind: row.kind, clientId: row.client_id, userId: row.user_id, role, tokenId: row.id };
    // Keyed by the token itself, which every request carries anyway: a hit then costs no hashing.
    this.verified.set(token, { principal, expiresAt: row.expires_at });
    this.recordUse(row.id, now);
    return { principal };
  }

  async create(principal: Principal, clientId: number, body: TokenCreate, format: TokenFormat): Promise<TokenCreated> {
    const target = await this.accounts.actingOn(principal, clientId);
    const role = resolveRole(body.client_user.role);
    if (principal.kind === 'client' && ROLE_RANK[role] > ROLE_RANK[principal.role]) {
      throw invalid([bodyField(['client_user', 'role'], `Can't create token with role ${role}`, 'permission')]);
    }
    const expiresAt = body.exp_date === null ? null : Date.parse(body.exp_date);
    if (expiresAt !== null && expiresAt <= this.clock.now()) {
      throw invalid([bodyField(['exp_date'], 'The expiry date must be in the future')]);
    }
    await this.checkQuota(target);
    // A reseller acts as the sub-client's first administrator.
    const userId = principal.kind === 'client' ? principal.userId : await this.firstAdmin(target);
    const { id, token } = await this.issue({ clientId: target, userId, role, name: body.name, description: body.description, expiresAt, format });
    return { ...(await this.get(principal, target, id)), token };
  }

  async list(principal: Principal, clientId: number, query: TokenListQuery): Promise<Token[]> {
    const target = await this.accounts.actingOn(principal, clientId);
    const groupId = query.role === undefined ? undefined : roleFilter(query.role);
    const rows = await this.store.list({
      clientId: target,
      deleted: query.deleted,
      issuedBy: this.seesAll(principal) ? query.issued_by : principal.userId,
      notIssuedBy: query.not_issued_by,
      groupId,
    });
    return rows.map((row) => this.toToken(row));
  }

  async get(principal: Principal, clientId: number, tokenId: number): Promise<Token> {
    const target = await this.accounts.actingOn(principal, clientId);
    const row = await this.store.get(target, tokenId);
    if (!row || (!this.seesAll(principal) && row.user_id !== principal.userId)) throw notFound('API token');
    return this.toToken(row);
  }

  async revoke(principal: Principal, clientId: number, tokenId: number): Promise<void> {
    const token = await this.get(principal, clientId, tokenId);
    // As with issuing: a token cannot undo what a token of a higher role may do.
    if (principal.kind === 'client' && ROLE_RANK[token.client_user.role.name as GroupName] > ROLE_RANK[principal.role]) {
      throw new AppError('forbidden', "You can't revoke an API token with a role higher than yours.");
    }
    if (!(await this.store.markDeleted(clientId, tokenId))) throw notFound('API token');
    this.forget((p) => p.tokenId === tokenId);
  }

  /** Drops cached verifications, e.g. after a revocation or a change of users or accounts. */
  forget(predicate: (principal: Principal) => boolean = () => true): void {
    this.verified.deleteWhere((entry) => predicate(entry.principal));
  }

  /**
   * An account may hold LIVE_TOKENS working tokens and TOKEN_ROWS tokens ever (revoked ones are kept, as
   * the reference lists them with deleted=true), so no client can grow the table without end.
   */
  private async checkQuota(clientId: number): Promise<void> {
    const { live, all } = await this.store.counts(clientId, this.clock.now());
    if (live >= LIVE_TOKENS)
      throw invalid([bodyField([], `The account has ${LIVE_TOKENS} working API tokens, the most Edgeplane keeps; revoke some first.`, 'quota')]);
    if (all >= TOKEN_ROWS) throw invalid([bodyField([], `The account has had ${TOKEN_ROWS} API tokens, the most Edgeplane keeps.`, 'quota')]);
  }

  /** Administrators and resellers see every token of the account; other users only their own. */
  private seesAll(principal: Principal): boolean {
    return principal.kind === 'reseller' || principal.role === 'Administrators';
  }

  private async firstAdmin(clientId: number): Promise<number> {
    const overview = await this.accounts.overview({ kind: 'client', clientId, userId: 0, role: 'Administrators', tokenId: 0 });
    const admin = overview.users.find((u) => u.groups.some((g) => g.id === 1));
    if (!admin) throw notFound('Administrator of the account');
    return admin.id;
  }

  private recordUse(tokenId: number, now: number): void {
    const last = this.lastTouched.get(tokenId) ?? 0;
    if (now - last < LAST_USAGE_RESOLUTION_MS) return;
    this.lastTouched.set(tokenId, now);
    // Best effort: a failed usage stamp must not fail the request it belongs to.
    this.store.touch(tokenId, now).catch(() => this.lastTouched.delete(tokenId));
  }

  private toToken(row: TokenWithOwner): Token {
    const group = groupById(row.group_id)!;
    const iso = (ms: number) => new Date(ms).toISOString();
    return {
      id: row.id,
      name: row.name,
      description: row.description ?? undefined,
      exp_date: row.expires_at === null ? null : iso(row.expires_at),
      expired: row.expires_at !== null && row.expires_at <= this.clock.now(),
      deleted: row.deleted === 1,
      created: iso(row.created_at),
      last_usage: iso(row.last_used_at ?? row.created_at),
      client_user: {
        client_id: row.client_id,
        user_id: row.user_id,
        user_name: row.user_name ?? '',
        user_email: row.user_email,
        deleted: row.user_deleted === 1,
        role: { id: group.id, name: group.name },
      },
    };
  }
}

function resolveRole(role: { id?: number; name?: GroupName }): GroupName {
  const byId = role.id === undefined ? undefined : groupById(role.id);
  if (role.id !== undefined && !byId) throw invalid([bodyField(['client_user', 'role', 'id'], `Invalid role: ${role.id}`)]);
  if (byId && role.name !== undefined && byId.name !== role.name) {
    throw invalid([bodyField(['client_user', 'role'], `Role id ${role.id} is ${byId.name}, not ${role.name}`, 'conflict')]);
  }
  const name = byId?.name ?? role.name;
  if (!name) throw invalid([bodyField(['client_user', 'role'], 'Give the role id or name', 'missing')]);
  return name;
}

function roleFilter(role: string): number {
  const group = /^\d+$/.test(role) ? groupById(Number(role)) : groupByName(role);
  if (!group) throw invalid([queryField('role', `Unknown role: ${role}`, 'enum')]);
  return group.id;
}
