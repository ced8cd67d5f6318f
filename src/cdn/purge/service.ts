// Purge (by URL, by pattern, everything) and prefetch of a CDN resource's cache, with the reference's
// limits per request and per resource per minute (429 past them, on the server clock), and the purge
// history: a purge is "In progress" for DURATIONS_MS.purge, then "Successful".
import type { Principal } from '../../platform/auth/principal.js';
import type { Clock } from '../../platform/clock.js';
import { bodyField, type FieldError } from '../../platform/errors.js';
import type { Page } from '../../platform/pagination.js';
import { rateLimited, refused } from '../errors.js';
import type { ListRequest } from '../http.js';
import { DURATIONS_MS, PURGE_LIMITS, QUOTAS } from '../limits.js';
import type { ResourceService } from '../resources/service.js';
import type { HistoryQuery, PurgeRow, PurgeStore, RequestType } from './store.js';

const MINUTE = 60_000;

export interface PurgeStatus {
  purge_id: number;
  status: 'In progress' | 'Successful' | 'Failed';
  resource: { id: number; cname: string };
  payload: { urls?: string[]; paths?: string[] };
  created: string;
  purge_type: Exclude<RequestType, 'prefetch'>;
}

export interface HistoryFilters {
  cname?: string;
  status?: string;
  purge_type?: string;
  from_created?: string;
  to_created?: string;
}

const WHAT: Record<RequestType, string> = {
  purge_by_url: 'purge-by-URL',
  purge_by_pattern: 'purge-by-pattern',
  purge_all: 'purge-everything',
  prefetch: 'prefetch',
};

/** A path of the resource: it names no scheme or host, and starts with "/" (prefetch paths may leave it out). */
function pathErrors(field: string, values: string[], kind: 'url' | 'pattern' | 'prefetch'): FieldError[] {
  const errors: FieldError[] = [];
  const pattern = kind === 'pattern';
  values.forEach((value, i) => {
    const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value);
    if (scheme || (kind !== 'prefetch' && !value.startsWith('/')))
      errors.push(bodyField([field, i], 'Give a path starting with "/", without scheme or domain'));
    else if (pattern && value.slice(0, -1).includes('*')) errors.push(bodyField([field, i], 'A pattern may use * only at its end'));
  });
  return errors;
}

export class PurgeService {
  constructor(
    private readonly store: PurgeStore,
    private readonly resources: ResourceService,
    private readonly clock: Clock,
  ) {}

  async purge(principal: Principal, resourceId: number, body: { urls?: string[]; paths?: string[] }): Promise<void> {
    const resource = await this.resources.owned(principal.clientId, resourceId);
    if (body.urls !== undefined && body.paths !== undefined)
      throw refused([bodyField(['paths'], 'Send urls (purge by URL) or paths (purge by pattern, or [] for everything), not both', 'conflict')]);
    if (body.urls === undefined && body.paths === undefined)
      throw refused([bodyField(['paths'], 'Send urls (purge by URL) or paths (purge by pattern, or [] for everything)', 'missing')]);
    let type: RequestType;
    let payload: { urls?: string[]; paths?: string[] };
    if (body.urls !== undefined) {
      if (body.urls.length === 0) throw refused([bodyField(['urls'], 'Give at least one URL; to purge everything send paths: []', 'missing')]);
      const errors = pathErrors('urls', body.urls, 'url');
      if (errors.length > 0) throw refused(errors);
      [type, payload] = ['purge_by_url', { urls: body.urls }];
    } else {
      const errors = pathErrors('paths', body.paths!, 'pattern');
      if (errors.length > 0) throw refused(errors);
      [type, payload] = [body.paths!.length === 0 ? 'purge_all' : 'purge_by_pattern', { paths: body.paths! }];
    }
    await this.record(principal.clientId, resource.id, resource.cname, type, payload);
  }

  async prefetch(principal: Principal, resourceId: number, body: { paths: string[] }): Promise<void> {
    const resource = await this.resources.owned(principal.clientId, resourceId);
    const errors = pathErrors('paths', body.paths, 'prefetch');
    if (errors.length > 0) throw refused(errors);
    await this.record(principal.clientId, resource.id, resource.cname, 'prefetch', { paths: body.paths });
  }

  async history(principal: Principal, filters: HistoryFilters, list: ListRequest): Promise<Page<PurgeStatus>> {
    const query = this.historyQuery(filters);
    if (query === null) return { count: 0, results: [] };
    // The official client asks for 1000 at a time; the reference's page holds at most 100.
    const limit = Math.min(list.limit ?? PURGE_LIMITS.historyPage, PURGE_LIMITS.historyPage);
    const [count, rows] = await Promise.all([
      this.store.countHistory(principal.clientId, query),
      this.store.pageHistory(principal.clientId, query, limit, list.offset),
    ]);
    return { count, results: rows.map((row) => this.present(row)) };
  }

  /** Stores the request, unless the resource had its limit of such requests in the last minute. */
  private async record(clientId: number, resourceId: number, cname: string, type: RequestType, payload: object): Promise<void> {
    const now = this.clock.now();
    const allowed = PURGE_LIMITS.perMinute[type];
    const row = { client_id: clientId, resource_id: resourceId, cname, purge_type: type, payload: JSON.stringify(payload), created_at: now };
    const { accepted, recent } = await this.store.admit(row, now - MINUTE, allowed);
    if (!accepted) {
      const freeAt = recent[recent.length - allowed].created_at + MINUTE;
      throw rateLimited(
        `The resource already had ${allowed} ${WHAT[type]} request${allowed > 1 ? 's' : ''} in the last minute: retry in ${Math.ceil((freeAt - now) / 1000)} s`,
        (freeAt - now) / 1000,
      );
    }
    await this.store.trim(clientId, QUOTAS.purgeHistory);
  }

  /** Filters as store conditions; null when they can match nothing. */
  private historyQuery(filters: HistoryFilters): HistoryQuery | null {
    const finishedBy = this.clock.now() - DURATIONS_MS.purge;
    const query: HistoryQuery = {
      cname: filters.cname?.toLowerCase(),
      purgeType: filters.purge_type,
      from: filters.from_created === undefined ? undefined : Date.parse(filters.from_created),
      to: filters.to_created === undefined ? undefined : Date.parse(filters.to_created),
    };
    if (filters.status === 'In progress') query.createdAfter = finishedBy;
    else if (filters.status === 'Successful') query.createdAtOrBefore = finishedBy;
    else if (filters.status !== undefined) return null;
    return query;
  }

  private present(row: PurgeRow): PurgeStatus {
    const finished = row.created_at <= this.clock.now() - DURATIONS_MS.purge;
    return {
      purge_id: row.id,
      status: finished ? 'Successful' : 'In progress',
      resource: { id: row.resource_id, cname: row.cname },
      payload: JSON.parse(row.payload) as PurgeStatus['payload'],
      created: new Date(row.created_at).toISOString(),
      purge_type: row.purge_type as PurgeStatus['purge_type'],
    };
  }
}
