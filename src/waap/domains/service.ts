// Rules for WAAP domains: created by the operator within the client's quota, listed, read, switched
// between active and monitor, and deleted only once bypassed (as the provider documents).
import { AppError, notFound } from '../../platform/errors.js';
import type { Clock } from '../../platform/clock.js';
import { likeLiteral } from '../../platform/db/like.js';
import type { DomainCreate, DomainDetail, DomainListQuery, DomainSummary } from './schemas.js';
import type { DomainRow, DomainStore } from './store.js';

export interface QuotaSource {
  settings(clientId: number): Promise<{ domainQuota: number }>;
}

export class DomainService {
  constructor(
    private readonly store: DomainStore,
    private readonly clock: Clock,
    private quotas?: QuotaSource,
  ) {}

  useQuotas(quotas: QuotaSource): void {
    this.quotas = quotas;
  }

  count(clientId: number): Promise<number> {
    return this.store.count(clientId);
  }

  async list(clientId: number, query: DomainListQuery): Promise<{ count: number; limit: number; offset: number; results: DomainSummary[] }> {
    const ordering = query.ordering ?? 'id';
    const descending = ordering.startsWith('-');
    const nameLike = query.name ? likeLiteral(query.name.toLowerCase()).replace(/\*/g, '%') : undefined;
    const { count, rows } = await this.store.list(
      clientId,
      { ids: query.ids, status: query.status, nameLike },
      { column: ordering.replace(/^-/, ''), descending },
      query.limit,
      query.offset,
    );
    return { count, limit: query.limit, offset: query.offset, results: rows.map(summary) };
  }

  async get(clientId: number, id: number): Promise<DomainDetail> {
    const row = await this.store.find(clientId, id);
    if (!row) throw notFound('Domain');
    return { ...summary(row), quotas: null };
  }

  /** The domain of an id, for any client (ingestion), or undefined. */
  async owner(id: number): Promise<DomainRow | undefined> {
    return this.store.findAnyClient(id);
  }

  async create(input: DomainCreate): Promise<DomainDetail> {
    const quota = (await this.quotas?.settings(input.client_id))?.domainQuota ?? Infinity;
    if ((await this.store.count(input.client_id)) >= quota) {
      throw new AppError('conflict', `The client's quota of ${quota} WAAP domains is used up`);
    }
    const name = input.name.toLowerCase();
    if (await this.store.findByName(input.client_id, name)) throw new AppError('conflict', `Domain ${name} already exists`);
    const id = await this.store.insert({
      client_id: input.client_id,
      name,
      status: input.status ?? 'active',
      custom_page_set: input.custom_page_set ?? null,
      aliases: JSON.stringify(input.aliases ?? []),
      created_at: this.clock.now(),
    });
    return this.get(input.client_id, id);
  }

  /**
   * A CDN resource's `waap` option turned on or off (or the resource went): the WAAP domain named after its
   * host is made (or switched back to active) when on, and put in bypass when off, so its events and
   * statistics stay and the user may delete it, as with any bypassed domain.
   */
  async protectCdnHost(clientId: number, host: string, enabled: boolean): Promise<void> {
    const existing = await this.store.findByName(clientId, host.toLowerCase());
    if (!existing) {
      if (enabled) await this.create({ client_id: clientId, name: host });
      return;
    }
    const status = enabled ? 'active' : 'bypass';
    if (existing.status !== status && existing.status !== 'locked') await this.store.updateStatus(clientId, existing.id, status);
  }

  async updateStatus(clientId: number, id: number, status: string): Promise<void> {
    const row = await this.store.find(clientId, id);
    if (!row) throw notFound('Domain');
    if (row.status === 'locked') throw new AppError('bad_request', 'A locked domain cannot change status');
    await this.store.updateStatus(clientId, id, status);
  }

  async delete(clientId: number, id: number): Promise<void> {
    const row = await this.store.find(clientId, id);
    if (!row) throw notFound('Domain');
    if (row.status !== 'bypass') throw new AppError('bad_request', 'Only domains with status bypass can be deleted');
    await this.store.delete(clientId, id);
  }
}

function summary(row: DomainRow): DomainSummary {
  return {
    id: Number(row.id),
    name: row.name,
    status: row.status as DomainSummary['status'],
    custom_page_set: row.custom_page_set === null ? null : Number(row.custom_page_set),
    created_at: new Date(Number(row.created_at)).toISOString(),
    aliases: JSON.parse(row.aliases) as string[],
  };
}
