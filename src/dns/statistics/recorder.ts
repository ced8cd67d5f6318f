// Counts the queries the DNS listener answers. Counting in memory and writing once a second keeps the
// database out of the query path; statistics therefore trail the queries by at most a second (and by a
// flush on close: a stopping listener writes what it counted).
import type { Clock } from '../../platform/clock.js';
import type { CountRow } from '../common/tables.js';
import type { CountStore } from './store.js';

const FLUSH_MS = 1000;
const MINUTE = 60_000;

export class QueryRecorder {
  private pending = new Map<string, CountRow>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: CountStore,
    private readonly clock: Clock,
    private readonly onError: (error: unknown) => void,
  ) {}

  record(zoneId: number, clientId: number, qtype: string): void {
    const now = this.clock.now();
    const minute = now - (now % MINUTE);
    const key = `${zoneId} ${minute} ${qtype}`;
    const row = this.pending.get(key);
    if (row) row.count += 1;
    else this.pending.set(key, { zone_id: zoneId, client_id: clientId, minute, qtype, count: 1 });
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Writes what was counted; a failed write is reported and its counts dropped (statistics, not data). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const rows = [...this.pending.values()];
    this.pending = new Map();
    this.flushing = this.flushing.then(() => this.store.add(rows)).catch(this.onError);
    return this.flushing;
  }
}
