// Who is calling and what they may do. The role table here is the one documented in the README.

export const GROUPS = [
  { id: 1, name: 'Administrators' },
  { id: 2, name: 'Users' },
  { id: 5, name: 'Engineers' },
  { id: 3009, name: 'Purge and Prefetch only (API+Web)' },
  { id: 3022, name: 'Purge and Prefetch only (API)' },
] as const;

export type GroupName = (typeof GROUPS)[number]['name'];
export type GroupId = (typeof GROUPS)[number]['id'];
export const GROUP_NAMES = GROUPS.map((g) => g.name) as unknown as readonly GroupName[];

export function groupById(id: number): { id: GroupId; name: GroupName } | undefined {
  return GROUPS.find((g) => g.id === id);
}

export function groupByName(name: string): { id: GroupId; name: GroupName } | undefined {
  return GROUPS.find((g) => g.name === name);
}

/**
 * What a route needs:
 * - public: nothing;
 * - account: any valid client or reseller token (e.g. "who am I");
 * - read / write: reading or changing the client's resources;
 * - purge: CDN purge and prefetch;
 * - manage: administering the account's users and everyone's tokens;
 * - reseller: a reseller's admin-portal token;
 * - operator: the operator token of the /_edgeplane control API.
 */
export type Access = 'public' | 'account' | 'read' | 'write' | 'purge' | 'manage' | 'reseller' | 'operator';

export const ROLE_ACCESS: Record<GroupName, ReadonlySet<Access>> = {
  Administrators: new Set(['account', 'read', 'write', 'purge', 'manage']),
  Engineers: new Set(['account', 'read', 'write', 'purge']),
  Users: new Set(['account', 'read']),
  'Purge and Prefetch only (API+Web)': new Set(['account', 'purge']),
  'Purge and Prefetch only (API)': new Set(['account', 'purge']),
};

/** Rank for "a token may not be given more rights than its issuer has". */
export const ROLE_RANK: Record<GroupName, number> = {
  Administrators: 4,
  Engineers: 3,
  Users: 2,
  'Purge and Prefetch only (API+Web)': 1,
  'Purge and Prefetch only (API)': 1,
};

export type PrincipalKind = 'client' | 'reseller' | 'operator';

export interface Principal {
  kind: PrincipalKind;
  /** The account the token belongs to (0 for the operator). */
  clientId: number;
  userId: number;
  role: GroupName;
  tokenId: number;
}

export const OPERATOR: Principal = Object.freeze({ kind: 'operator', clientId: 0, userId: 0, role: 'Administrators', tokenId: 0 });

/**
 * Whether a principal may use a route with this access. Reseller (admin-portal) tokens reach reseller
 * routes, "who am I", and routes that explicitly act on behalf of a sub-client (checked by the service).
 */
export function isAllowed(principal: Principal, access: Access, onBehalf: boolean): boolean {
  if (access === 'public') return true;
  if (principal.kind === 'operator') return access === 'operator';
  if (access === 'operator') return false;
  if (principal.kind === 'reseller') return access === 'reseller' || access === 'account' || onBehalf;
  if (access === 'reseller') return false;
  return ROLE_ACCESS[principal.role].has(access);
}
