// The WAAP service overview of a client: settings (defaults until the operator changes them) and quotas
// whose `current` is counted live.
import type { ClientInfo, ClientSettings } from './schemas.js';
import type { WaapClientRow, WaapClientStore } from './store.js';

export const DEFAULT_SETTINGS = { enabled: true, features: [] as string[], domainQuota: 5 };

export interface DomainCounter {
  count(clientId: number): Promise<number>;
}

export class WaapAccountService {
  constructor(
    private readonly store: WaapClientStore,
    private readonly domains: DomainCounter,
  ) {}

  async settings(clientId: number): Promise<{ enabled: boolean; features: string[]; domainQuota: number }> {
    const row = await this.store.find(clientId);
    if (!row) return { ...DEFAULT_SETTINGS, features: [...DEFAULT_SETTINGS.features] };
    return { enabled: row.enabled === 1, features: JSON.parse(row.features) as string[], domainQuota: row.domain_quota };
  }

  async overview(clientId: number): Promise<ClientInfo> {
    const [settings, domains] = await Promise.all([this.settings(clientId), this.domains.count(clientId)]);
    return {
      id: clientId,
      service: { enabled: settings.enabled },
      features: settings.features,
      quotas: { 'number-of-domains': { allowed: settings.domainQuota, current: domains } },
    };
  }

  async configure(clientId: number, change: ClientSettings): Promise<ClientInfo> {
    const current = await this.settings(clientId);
    const row: WaapClientRow = {
      client_id: clientId,
      enabled: (change.enabled ?? current.enabled) ? 1 : 0,
      features: JSON.stringify(change.features ?? current.features),
      domain_quota: change.domain_quota ?? current.domainQuota,
    };
    await this.store.upsert(row);
    return this.overview(clientId);
  }
}
