// Zone statistics: the queries the DNS listener answered for a zone (or for all the client's zones, with
// the name `all`), summed per time slot. Counters are kept per minute, so a slot is a whole number of
// minutes. Only slots with queries are listed.
import type { Principal } from '../../platform/auth/principal.js';
import type { Clock } from '../../platform/clock.js';
import { badRequest } from '../common/http.js';
import type { ZoneFinder } from '../zones/finder.js';
import type { CountStore } from './store.js';

export interface StatisticsQuery {
  from?: number;
  to?: number;
  granularity?: string;
  record_type?: string;
}

const MINUTE = 60_000;
const DAY = 86_400_000;
const MAX_RANGE = 366 * DAY;
const UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: MINUTE, h: 3_600_000 };

/** A Go duration as the reference takes it ("5m", "1.5h", "2h45m") in milliseconds; undefined when malformed. */
export function durationMs(text: string): number | undefined {
  if (!/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(text)) return undefined;
  let total = 0;
  for (const [, amount, , unit] of text.matchAll(/(\d+(\.\d+)?)(ms|s|m|h)/g)) total += Number(amount) * UNITS_MS[unit];
  return total;
}

function slotOf(granularity: string | undefined): number {
  if (granularity === undefined) return 3_600_000;
  const ms = durationMs(granularity);
  if (ms === undefined) throw badRequest('granularity must be a duration such as 5m, 1h or 1h30m (units s, m, h)');
  if (ms < MINUTE || ms % MINUTE !== 0) throw badRequest('granularity must be a whole number of minutes (counters are kept per minute)');
  if (ms > MAX_RANGE) throw badRequest('granularity must be at most 366 days');
  return ms;
}

export class StatisticsService {
  constructor(
    private readonly finder: ZoneFinder,
    private readonly counts: CountStore,
    private readonly clock: Clock,
  ) {}

  async zone(principal: Principal, name: string, query: StatisticsQuery): Promise<{ requests: Record<string, number>; total: number }> {
    const zoneIds = name === 'all' ? undefined : [(await this.finder.owned(principal, name)).id];
    const toMs = query.to === undefined ? this.clock.now() : query.to * 1000;
    const fromMs = query.from === undefined ? toMs - DAY : query.from * 1000;
    if (fromMs > toMs) throw badRequest('from must not be after to');
    if (toMs - fromMs > MAX_RANGE) throw badRequest('the period from..to must be at most 366 days');
    const slotMs = slotOf(query.granularity);
    const qtype = query.record_type?.toUpperCase();
    const series = await this.counts.series({ clientId: principal.clientId, zoneIds, fromMs, toMs, slotMs, qtype });
    const requests: Record<string, number> = {};
    let total = 0;
    for (const { slot, count } of series) {
      requests[String(slot)] = count;
      total += count;
    }
    return { requests, total };
  }
}
