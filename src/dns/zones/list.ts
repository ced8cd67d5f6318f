// The zone list's filters, order and page, over a client's zones (a client has at most its quota of
// them, so they are filtered here rather than in SQL). Pure: tested with the service.
import { badRequest } from '../common/http.js';
import { zoneStatus } from '../common/platform.js';
import type { ZoneRow } from '../common/tables.js';
import { ZONE_ORDER_FIELDS, type ZoneListFilter } from './schemas.js';
import type { ZoneCounts } from './store.js';

export interface ListedZone {
  zone: ZoneRow;
  counts: ZoneCounts;
}

type Test = (item: ListedZone) => boolean;

function nameTest(filter: ZoneListFilter): Test | undefined {
  if (!filter.name?.length) return undefined;
  const fold = (text: string) => (filter.case_sensitive ? text : text.toLowerCase());
  const wanted = filter.name.map((n) => fold(n.endsWith('.') ? n.slice(0, -1) : n));
  return ({ zone }) => wanted.some((n) => (filter.exact_match ? fold(zone.name) === n : fold(zone.name).includes(n)));
}

function timeBound(text: string | undefined, field: string): number | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw badRequest(`${field} must be an RFC 3339 date-time`);
  return ms;
}

function tests(filter: ZoneListFilter, clientId: number): Test[] {
  const from = timeBound(filter.updated_at_from, 'updated_at_from');
  const to = timeBound(filter.updated_at_to, 'updated_at_to');
  const candidates: (Test | undefined)[] = [
    filter.id?.length ? ({ zone }) => filter.id!.includes(zone.id) : undefined,
    filter.client_id?.length ? () => filter.client_id!.includes(clientId) : undefined,
    nameTest(filter),
    filter.enabled === undefined ? undefined : ({ zone }) => (zone.enabled === 1) === filter.enabled,
    filter.status === undefined ? undefined : ({ zone }) => zoneStatus(zone.enabled === 1) === filter.status,
    filter.dynamic === undefined ? undefined : ({ counts }) => counts.dynamic > 0 === filter.dynamic,
    filter.healthcheck === undefined ? undefined : ({ counts }) => counts.healthcheck > 0 === filter.healthcheck,
    from === undefined ? undefined : ({ zone }) => zone.updated_at >= from,
    to === undefined ? undefined : ({ zone }) => zone.updated_at <= to,
  ];
  return candidates.filter((t): t is Test => t !== undefined);
}

function sortKey(item: ListedZone, field: (typeof ZONE_ORDER_FIELDS)[number]): string | number {
  if (field === 'status') return zoneStatus(item.zone.enabled === 1);
  return item.zone[field];
}

export function filterZones(zones: ListedZone[], filter: ZoneListFilter, clientId: number): { items: ListedZone[]; total: number } {
  const field = filter.order_by ?? 'name';
  const checks = tests(filter, clientId);
  const kept = zones.filter((item) => checks.every((test) => test(item)));
  const sign = filter.order_direction === 'desc' ? -1 : 1;
  kept.sort((a, b) => {
    const x = sortKey(a, field);
    const y = sortKey(b, field);
    return sign * (x < y ? -1 : x > y ? 1 : a.zone.id - b.zone.id);
  });
  const offset = filter.offset ?? 0;
  const end = filter.limit ? offset + filter.limit : undefined;
  return { items: kept.slice(offset, end), total: kept.length };
}
