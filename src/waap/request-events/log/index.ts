// The WAAP request-event log: events stored as column blocks per client and hour, answered by named
// queries (in reader threads where the database allows), expired and compacted in place. This file is
// the package's one door: nothing outside log/ imports another of its files, so how events are stored,
// read and rewritten can change behind it.
import type { Database } from '../../../platform/db/index.js';
import { RerunningPass } from '../../../platform/rerun.js';
import type { EventBatch } from './batch.js';
import type { QueryArgs, QueryName, QueryResult } from './queries.js';
import { compactionPass } from './compaction.js';
import { QueryRunner, type QueryOptions } from './runner.js';
import { retentionPass } from './retention.js';
import { BlockStore } from './store.js';

export { type EventRow, type FieldName, TEXT_FIELDS } from './format.js';
export { EventBatch } from './batch.js';
export type { Condition, EventFilter } from './filter.js';
export type { Cursor, ListSpec, Ordering, QueryArgs, QueryName, QueryResult, StoredEvent } from './queries.js';
export { TRAFFIC_FIELDS, trafficSeriesJson, type KeyTotals, type TopKeys, type TrafficCounts } from './stats.js';
export { csvField } from './csv.js';

export type EventLogOptions = QueryOptions;

export class EventLog {
  private readonly store: BlockStore;
  private readonly queries: QueryRunner;
  private cutoff = -Infinity;
  // Each kind of pass never overlaps itself; one asked for during a pass runs again after it (the
  // cutoff may have moved meanwhile, or new small blocks been written).
  private readonly retention = new RerunningPass(() => retentionPass(this.store, this.cutoff));
  private readonly compaction = new RerunningPass(() => compactionPass(this.store));

  constructor(database: Database, options: EventLogOptions) {
    this.store = new BlockStore(database);
    this.queries = new QueryRunner(database, options);
  }

  /** Whether queries run in reader threads (a SQLite file or PostgreSQL, and threads configured). */
  get offMainThread(): boolean {
    return this.queries.offMainThread;
  }

  /** Stores a batch atomically, ids first; per event, whether it was stored (false: its id was already there). */
  insert(batch: EventBatch): Promise<boolean[]> {
    return this.store.insertBatch(batch);
  }

  /**
   * Runs a named query within its time budget; past it, the query is stopped and fails with an AppError
   * that says so.
   */
  run<K extends QueryName>(name: K, ...args: QueryArgs<K>): Promise<QueryResult<K>> {
    return this.queries.run(name, ...args);
  }

  /** Removes every stored event older than `cutoff` (epoch ms), of every client; returns how many went. */
  expire(cutoff: number): Promise<number> {
    this.cutoff = cutoff;
    return this.retention.run();
  }

  /** Merges hours left with many small blocks; returns how many blocks were merged away. Answers do not change. */
  compact(): Promise<number> {
    return this.compaction.run();
  }

  /** Waits for running passes, then stops the reader threads. */
  async close(): Promise<void> {
    await this.retention.settled();
    await this.compaction.settled();
    await this.queries.close();
  }
}
