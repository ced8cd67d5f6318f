// Edge-function networks. A client always has exactly one default network: until the operator sets
// networks for it, that is the network named "default". Resellers see their sub-clients' networks;
// clients see their own in the FastEdge overview.
import type { Principal } from '../../platform/auth/principal.js';
import type { Clock } from '../../platform/clock.js';
import { AppError, bodyField, invalid, notFound } from '../../platform/errors.js';
import type { FastedgeClient, Network, NetworkAdd, NetworkList } from './schemas.js';
import type { NetworkStore } from './store.js';

/** What the service needs from IAM (implemented by AccountService). */
export interface AccountDirectory {
  actingOn(principal: Principal, clientId: number): Promise<number>;
  exists(clientId: number): Promise<boolean>;
  overview(principal: Principal): Promise<{ status: string }>;
}

export const IMPLICIT_NETWORKS: readonly Network[] = Object.freeze([{ name: 'default', is_default: true }]);

// FastEdge status codes of the provider: 1 enabled, 2 disabled, 5 suspended.
const FASTEDGE_STATUS: Record<string, number> = { paused: 2 };
// Edgeplane runs no FastEdge apps, so there is no usage to report; the plan is the one every account has.
const PLAN = { plan_id: 1, plan: 'basic' };

export class NetworkService {
  constructor(
    private readonly store: NetworkStore,
    private readonly accounts: AccountDirectory,
    private readonly clock: Clock,
  ) {}

  /** A reseller's view of one of its sub-clients (anything else is not found). */
  async adminList(principal: Principal, clientId: number): Promise<NetworkList> {
    const target = await this.accounts.actingOn(principal, clientId);
    return { networks: await this.networks(target) };
  }

  async overview(principal: Principal): Promise<FastedgeClient> {
    const account = await this.accounts.overview(principal);
    return {
      status: FASTEDGE_STATUS[account.status] ?? 1,
      hourly_consumption: 0,
      daily_consumption: 0,
      monthly_consumption: 0,
      app_count: 0,
      networks: await this.networks(principal.clientId),
      ...PLAN,
    };
  }

  async list(clientId: number): Promise<NetworkList> {
    await this.requireClient(clientId);
    return { networks: await this.networks(clientId) };
  }

  async replace(clientId: number, networks: Network[]): Promise<NetworkList> {
    await this.requireClient(clientId);
    const names = networks.map((n) => n.name);
    const problems = names.flatMap((name, i) => (names.indexOf(name) !== i ? [bodyField(['networks', i, 'name'], `Network ${name} is listed twice`)] : []));
    const defaults = networks.filter((n) => n.is_default).length;
    if (defaults !== 1) problems.push(bodyField(['networks'], `Exactly one network must be the default (got ${defaults})`));
    if (problems.length > 0) throw invalid(problems);
    await this.store.replace(clientId, networks, this.clock.now());
    return { networks: await this.networks(clientId) };
  }

  async add(clientId: number, network: NetworkAdd): Promise<NetworkList> {
    await this.requireClient(clientId);
    const current = await this.networks(clientId);
    if (current.some((n) => n.name === network.name)) throw new AppError('conflict', `Network ${network.name} already exists`);
    const next = current.map((n) => ({ ...n, is_default: n.is_default && !network.is_default }));
    await this.store.replace(clientId, [...next, { name: network.name, is_default: network.is_default }], this.clock.now());
    return { networks: await this.networks(clientId) };
  }

  async remove(clientId: number, name: string): Promise<void> {
    await this.requireClient(clientId);
    const current = await this.networks(clientId);
    const network = current.find((n) => n.name === name);
    if (!network) throw notFound('Network');
    if (network.is_default) throw new AppError('conflict', 'The default network cannot be removed; make another network the default first');
    await this.store.replace(
      clientId,
      current.filter((n) => n.name !== name),
      this.clock.now(),
    );
  }

  private async networks(clientId: number): Promise<Network[]> {
    const rows = await this.store.list(clientId);
    if (rows.length === 0) return IMPLICIT_NETWORKS.map((n) => ({ ...n }));
    return rows.map((r) => ({ name: r.name, is_default: r.is_default === 1 }));
  }

  private async requireClient(clientId: number): Promise<void> {
    if (!(await this.accounts.exists(clientId))) throw notFound('Client');
  }
}
