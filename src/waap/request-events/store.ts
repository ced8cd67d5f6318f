// SQL of the request-event log. Bulk paths use the raw drivers (prepared statements in one SQLite
// transaction, unnest-based multi-row inserts on PostgreSQL); reads go through Kysely's `sql`.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../platform/db/index.js';
import { type Condition, type EventFilter, globForLike, globForSqlite, likeLiteral } from './filter.js';
import { cpus } from 'node:os';
import { createReaders, type Readers } from '../../platform/db/readers.js';
import { accumulate, COUNTER_TABLES, type CounterTable, floorHour, floorMinute, type Rollup, trafficTypeMask } from './rollups.js';

export interface EventRow {
  client_id: number;
  domain_id: number;
  domain: string;
  request_time: number;
  id: string;
  decision: string;
  optional_action: string;
  action: string;
  result: string;
  client_ip: string;
  country: string;
  method: string;
  path: string;
  path_prefix: string;
  status_code: number;
  rule_id: string;
  rule_name: string;
  reference_id: string;
  session_id: string;
  user_agent: string;
  user_agent_client: string;
  user_agent_device: string;
  organization: string;
  /** Comma-separated. */
  traffic_types: string;
  /** Lower-case threat tags wrapped in commas (`,sql,xss,`) so one tag is an exact LIKE match. */
  tags: string;
  scheme: string;
  http_version: string;
  ja3: string;
  ja4: string;
  /** JSON of the details-only fields. */
  extra: string;
}

export type StoredEvent = EventRow & { seq: number };

export const COLUMNS: readonly (keyof EventRow)[] = [
  'client_id', 'domain_id', 'domain', 'request_time', 'id', 'decision', 'optional_action', 'action', 'result', 'client_ip',
  'country', 'method', 'path', 'path_prefix', 'status_code', 'rule_id', 'rule_name', 'reference_id', 'session_id', 'user_agent',
  'user_agent_client', 'user_agent_device', 'organization', 'traffic_types', 'tags', 'scheme', 'http_version', 'ja3', 'ja4', 'extra',
];
const BIGINT_COLUMNS = new Set(['client_id', 'domain_id', 'request_time']);
const pgType = (c: string) => (BIGINT_COLUMNS.has(c) ? 'bigint' : c === 'status_code' ? 'integer' : 'text');

export type Ordering = { column: string; descending: boolean };

/** Events of one statistics key, decision and domain. */
export interface KeyCount {
  key: string;
  decision: string;
  domain_id: number;
  n: number;
}

/** Events of one traffic bucket by decision, status class and traffic types (TRAFFIC_TYPE_BITS). */
export interface TrafficCount {
  bucket: number;
  decision: string;
  status_class: number;
  types: number;
  n: number;
}

/** Rows per multi-row INSERT on SQLite (30 columns each, well under SQLite's 32,766 parameters). */
const SQLITE_ROWS = 64;

/**
 * Writes a row's values in COLUMNS order into `out` from `o`, without allocating. Spelled out field by
 * field: a loop over column names made every read a megamorphic lookup, a visible share of ingestion.
 */
function rowValues(r: EventRow, out: unknown[], o: number): unknown[] {
  out[o + 0] = r.client_id;
  out[o + 1] = r.domain_id;
  out[o + 2] = r.domain;
  out[o + 3] = r.request_time;
  out[o + 4] = r.id;
  out[o + 5] = r.decision;
  out[o + 6] = r.optional_action;
  out[o + 7] = r.action;
  out[o + 8] = r.result;
  out[o + 9] = r.client_ip;
  out[o + 10] = r.country;
  out[o + 11] = r.method;
  out[o + 12] = r.path;
  out[o + 13] = r.path_prefix;
  out[o + 14] = r.status_code;
  out[o + 15] = r.rule_id;
  out[o + 16] = r.rule_name;
  out[o + 17] = r.reference_id;
  out[o + 18] = r.session_id;
  out[o + 19] = r.user_agent;
  out[o + 20] = r.user_agent_client;
  out[o + 21] = r.user_agent_device;
  out[o + 22] = r.organization;
  out[o + 23] = r.traffic_types;
  out[o + 24] = r.tags;
  out[o + 25] = r.scheme;
  out[o + 26] = r.http_version;
  out[o + 27] = r.ja3;
  out[o + 28] = r.ja4;
  out[o + 29] = r.extra;
  return out;
}

export class EventStore {
  private readonly db: Kysely<any>;
  private readonly sqlite;
  private sqliteInsert?: (rows: readonly EventRow[]) => boolean[];
  private readonly readers: Readers;

  constructor(private readonly database: Database) {
    this.db = database.kysely;
    this.sqlite = database.raw.sqlite;
    // The event indexes are large and written at random positions; a bigger page cache than SQLite's
    // 2 MB default keeps bulk ingestion from thrashing (measured: several times faster at millions of rows).
    this.sqlite?.pragma('cache_size = -262144');
    // The log's counts and pages are short and many: at least two threads so one long scan does not
    // queue the others; a larger page cache and memory-mapped reads for scans of millions of events.
    this.readers = createReaders(database, {
      threads: Math.max(2, Math.min(4, cpus().length)),
      pragmas: ['cache_size = -131072', 'mmap_size = 1073741824'],
    });
  }

  close(): Promise<void> {
    return this.readers.close();
  }

  /** Runs a read off the main thread where the engine allows it. */
  private async read<R>(query: RawBuilder<R>): Promise<R[]> {
    return this.readers.all<R>(query.compile(this.db));
  }

  /** Inserts a batch and adds it to the counters, atomically. Returns, per row, whether it was new. */
  async insertBatch(rows: readonly EventRow[]): Promise<boolean[]> {
    if (rows.length === 0) return [];
    if (this.sqlite) return (this.sqliteInsert ??= this.prepareSqliteInsert())(rows);
    return this.insertPg(rows);
  }

  private prepareSqliteInsert(): (rows: readonly EventRow[]) => boolean[] {
    const db = this.sqlite!;
    const one = `(${COLUMNS.map(() => '?').join(',')})`;
    const into = `insert or ignore into waap_events (${COLUMNS.join(',')}) values`;
    // One statement for SQLITE_ROWS rows at a time: per-statement overhead (binding, VDBE start-up) was
    // a large share of the per-row cost. OR IGNORE needs no statement journal, unlike a failing insert.
    const many = db.prepare(`${into} ${Array(SQLITE_ROWS).fill(one).join(',')}`);
    const single = db.prepare(`${into} ${one}`);
    const newSince = db.prepare('select client_id, id from waap_events where seq > ?').raw();
    const lastSeq = db.prepare('select coalesce(max(seq), 0) from waap_events').pluck();
    // Counters are summed by SQLite itself over the rows the batch added (those above the batch's first
    // seq: this connection is the only writer), in C rather than row by row in JavaScript.
    const counts = COUNTER_TABLES.flatMap((table) =>
      table.sources.map((source) => {
        const where = source.where ? ` and ${source.where}` : '';
        const select = `select ${source.select.join(', ')}, count(*) from waap_events where seq > ?${where} group by ${source.select.map((_, i) => i + 1).join(', ')}`;
        return db.prepare(upsertSql(table, select));
      }),
    );
    const params: unknown[] = new Array(COLUMNS.length * SQLITE_ROWS);
    return db.transaction((rows: readonly EventRow[]) => {
      const first = lastSeq.get() as number;
      const inserted: boolean[] = new Array(rows.length).fill(true);
      let i = 0;
      for (; i + SQLITE_ROWS <= rows.length; i += SQLITE_ROWS) {
        for (let j = 0; j < SQLITE_ROWS; j += 1) rowValues(rows[i + j], params, j * COLUMNS.length);
        const before = lastSeq.get() as number;
        if (many.run(params).changes === SQLITE_ROWS) continue;
        // Some rows were duplicates. The rows this statement added are exactly those above `before`
        // (ids only grow); the first of equal ids in the chunk is the one kept, as SQLite inserts in order.
        const fresh = new Set((newSince.all(before) as [number, string][]).map(([c, id]) => `${c}|${id}`));
        for (let j = i; j < i + SQLITE_ROWS; j += 1) inserted[j] = fresh.delete(`${rows[j].client_id}|${rows[j].id}`);
      }
      for (; i < rows.length; i += 1) inserted[i] = single.run(rowValues(rows[i], [], 0)).changes === 1;
      for (const count of counts) count.run(first);
      return inserted;
    });
  }

  private async insertPg(rows: readonly EventRow[]): Promise<boolean[]> {
    const client = await this.database.raw.pg!.connect();
    try {
      await client.query('begin');
      const params = COLUMNS.map((c) => rows.map((r) => r[c]));
      const casts = COLUMNS.map((c, i) => `$${i + 1}::${pgType(c)}[]`).join(',');
      const result = await client.query(
        `insert into waap_events (${COLUMNS.join(',')}) select * from unnest(${casts}) on conflict (client_id, id) do nothing returning client_id, id`,
        params,
      );
      const fresh = new Set(result.rows.map((r: { client_id: number; id: string }) => `${r.client_id}|${r.id}`));
      const inserted = rows.map((r) => fresh.delete(`${r.client_id}|${r.id}`));
      const kept = rows.filter((_, i) => inserted[i]);
      for (const [table, counters] of accumulate(kept)) {
        if (counters.size === 0) continue;
        const entries = [...counters.values()];
        const values = [...table.columns.map((_, i) => entries.map((e) => e.key[i])), entries.map((e) => e.n)];
        const casts = [...table.columns.map((c) => c.type), 'bigint'].map((type, i) => `$${i + 1}::${type}[]`);
        await client.query(upsertSql(table, `select * from unnest(${casts.join(',')})`), values);
      }
      await client.query('commit');
      return inserted;
    } catch (error) {
      await client.query('rollback');
      throw error;
    } finally {
      client.release();
    }
  }

  async countRaw(filter: EventFilter, from: number, toExcl: number): Promise<number> {
    if (from >= toExcl) return 0;
    const rows = await this.read(sql<{ n: number }>`select count(*) as n from waap_events where ${this.where(filter, from, toExcl, filter.conditions)}`);
    return Number(rows[0]?.n ?? 0);
  }

  /** Per-hour counts of a rollup over whole hours [fromHour, toHour), newest first. */
  async countHours(rollup: Rollup, filter: EventFilter, conditions: Condition[], fromHour: number, toHour: number): Promise<{ hour: number; n: number }[]> {
    if (fromHour >= toHour) return [];
    const parts = [sql`client_id = ${filter.clientId}`, sql`hour >= ${fromHour}`, sql`hour < ${toHour}`, ...conditions.map((c) => this.condition(c))];
    const rows = await this.read(sql<{ hour: number; n: number }>`select hour, sum(n) as n from ${sql.table(rollup.table)} where ${sql.join(parts, sql` and `)} group by hour order by hour desc`);
    return rows.map((r) => ({ hour: Number(r.hour), n: Number(r.n) }));
  }

  async page(filter: EventFilter, from: number, toExcl: number, ordering: Ordering, limit: number, offset: number): Promise<StoredEvent[]> {
    const direction = ordering.descending ? sql`desc` : sql`asc`;
    return this.read(sql<StoredEvent>`select * from waap_events where ${this.where(filter, from, toExcl, filter.conditions)}
      order by ${sql.ref(ordering.column)} ${direction}, seq ${direction} limit ${limit} offset ${offset}`);
  }

  /** Newest-first chunk after a (request_time, seq) cursor: constant-memory walks for exports. */
  async chunkAfter(filter: EventFilter, cursor: { time: number; seq: number } | null, size: number): Promise<StoredEvent[]> {
    const after = cursor ? sql`and (request_time < ${cursor.time} or (request_time = ${cursor.time} and seq < ${cursor.seq}))` : sql``;
    return this.read(sql<StoredEvent>`select * from waap_events where ${this.where(filter, filter.from, filter.toExcl, filter.conditions)} ${after}
      order by request_time desc, seq desc limit ${size}`);
  }

  async find(clientId: number, domainId: number, id: string, notBefore: number): Promise<StoredEvent | undefined> {
    const result = await sql<StoredEvent>`select * from waap_events where client_id = ${clientId} and id = ${id} and domain_id = ${domainId} and request_time >= ${notBefore}`.execute(this.db);
    return result.rows[0];
  }

  /** Counts per value of one column over [from, toExcl), split by decision and domain (events read row by row). */
  async countBy(filter: EventFilter, column: string, from: number, toExcl: number): Promise<KeyCount[]> {
    if (from >= toExcl) return [];
    const rows = await this.read(sql<KeyCount>`select cast(${sql.ref(column)} as text) as key, decision, domain_id, count(*) as n
      from waap_events where ${this.where(filter, from, toExcl, filter.conditions)} group by ${sql.ref(column)}, decision, domain_id`);
    return rows.map((r) => ({ key: String(r.key), decision: r.decision, domain_id: Number(r.domain_id), n: Number(r.n) }));
  }

  /** The same counts from the hourly statistics counters, over whole hours [fromHour, toHour). */
  async countByFromCounters(filter: EventFilter, dimension: string, conditions: Condition[], fromHour: number, toHour: number): Promise<KeyCount[]> {
    if (fromHour >= toHour) return [];
    const parts = [sql`client_id = ${filter.clientId}`, sql`dim = ${dimension}`, sql`hour >= ${fromHour}`, sql`hour < ${toHour}`, ...conditions.map((c) => this.condition(c))];
    const rows = await this.read(sql<KeyCount>`select key, decision, domain_id, sum(n) as n from waap_stat_counters
      where ${sql.join(parts, sql` and `)} group by key, decision, domain_id`);
    return rows.map((r) => ({ key: String(r.key), decision: r.decision, domain_id: Number(r.domain_id), n: Number(r.n) }));
  }

  /** Any one row per key, to describe the keys of statistics (country and organisation of an IP). */
  async sampleBy(filter: EventFilter, column: string, keys: string[]): Promise<StoredEvent[]> {
    if (keys.length === 0) return [];
    return this.read(sql<StoredEvent>`select * from waap_events where seq in (select min(seq) from waap_events
      where ${this.where(filter, filter.from, filter.toExcl, filter.conditions)} and ${sql.ref(column)} in (${sql.join(keys)}) group by ${sql.ref(column)})`);
  }

  /** Per-bucket counts of the traffic series over [from, toExcl), events read row by row. */
  async trafficBuckets(filter: EventFilter, bucketMs: number, from: number, toExcl: number): Promise<TrafficCount[]> {
    if (from >= toExcl) return [];
    // A literal, not a parameter: SQLite binds JS numbers as REAL, which would make the division exact.
    const size = sql.lit(Math.trunc(bucketMs));
    const rows = await this.read(sql<any>`select (request_time / ${size}) * ${size} as bucket, decision, status_code / 100 as status_class, traffic_types, count(*) as n
      from waap_events where ${this.where(filter, from, toExcl, filter.conditions)}
      group by 1, decision, status_code / 100, traffic_types`);
    return rows.map((r: any) => ({ bucket: Number(r.bucket), decision: r.decision, status_class: Number(r.status_class), types: trafficTypeMask(r.traffic_types), n: Number(r.n) }));
  }

  /** The same counts from the per-minute traffic counters, over whole minutes [fromMinute, toMinute). */
  async trafficFromCounters(filter: EventFilter, bucketMs: number, conditions: Condition[], fromMinute: number, toMinute: number): Promise<TrafficCount[]> {
    if (fromMinute >= toMinute) return [];
    const size = sql.lit(Math.trunc(bucketMs));
    const parts = [sql`client_id = ${filter.clientId}`, sql`minute >= ${fromMinute}`, sql`minute < ${toMinute}`, ...conditions.map((c) => this.condition(c))];
    const rows = await this.read(sql<any>`select (minute / ${size}) * ${size} as bucket, decision, status_class, types, sum(n) as n
      from waap_traffic_counters where ${sql.join(parts, sql` and `)} group by 1, decision, status_class, types`);
    return rows.map((r: any) => ({ bucket: Number(r.bucket), decision: r.decision, status_class: Number(r.status_class), types: Number(r.types), n: Number(r.n) }));
  }

  async clientsWithEvents(): Promise<number[]> {
    const result = await sql<{ client_id: number }>`select distinct client_id from waap_domains`.execute(this.db);
    return result.rows.map((r) => Number(r.client_id));
  }

  /** Deletes up to `limit` expired events of one client; returns how many went. */
  async deleteExpired(clientId: number, cutoff: number, limit: number): Promise<number> {
    const result = await sql`delete from waap_events where seq in (select seq from waap_events where client_id = ${clientId} and request_time < ${cutoff} limit ${limit})`.execute(this.db);
    return Number(result.numAffectedRows ?? 0);
  }

  /**
   * Deletes the counters of periods wholly before `cutoff`. The period holding the cutoff stays: reads
   * never use its counter (they count the rows of a partial period), and its later events are live.
   */
  async deleteExpiredCounters(clientId: number, cutoff: number): Promise<void> {
    for (const table of COUNTER_TABLES) {
      const period = table.columns.some((c) => c.name === 'minute') ? 'minute' : 'hour';
      const bound = period === 'minute' ? floorMinute(cutoff) : floorHour(cutoff);
      await sql`delete from ${sql.table(table.table)} where client_id = ${clientId} and ${sql.ref(period)} < ${bound}`.execute(this.db);
    }
  }

  private where(filter: EventFilter, from: number, toExcl: number, conditions: Condition[]): RawBuilder<unknown> {
    const parts = [sql`client_id = ${filter.clientId}`, sql`request_time >= ${from}`, sql`request_time < ${toExcl}`, ...conditions.map((c) => this.condition(c))];
    return sql.join(parts, sql` and `);
  }

  private condition(c: Condition): RawBuilder<unknown> {
    let clause: RawBuilder<unknown>;
    if (c.kind === 'in') {
      clause = sql`${sql.ref(c.column)} in (${sql.join(c.values)})`;
    } else if (c.kind === 'glob') {
      const sqlite = this.database.engine === 'sqlite';
      clause = sql`(${sql.join(c.patterns.map((p) => (sqlite ? sql`path glob ${globForSqlite(p)}` : sql`path like ${globForLike(p)} escape '\\'`)), sql` or `)})`;
    } else if (c.kind === 'substring') {
      clause = sql`(${sql.join(c.values.map((v) => sql`lower(user_agent) like ${`%${likeLiteral(v.toLowerCase())}%`} escape '\\'`), sql` or `)})`;
    } else {
      clause = sql`(${sql.join(c.values.map((v) => sql`tags like ${`%,${likeLiteral(v.toLowerCase())},%`} escape '\\'`), sql` or `)})`;
    }
    return c.negate ? sql`not ${clause}` : clause;
  }
}

/** `insert ... on conflict do update set n = n + excluded.n` for one counter table, from VALUES or a SELECT. */
function upsertSql(table: CounterTable, source: string): string {
  const columns = table.columns.map((c) => c.name);
  // `where true` keeps SQLite from reading ON CONFLICT as part of a SELECT's join.
  const from = source.startsWith('select') && !source.includes(' where ') ? `${source} where true` : source;
  return `insert into ${table.table} (${columns.join(',')}, n) ${from} on conflict (${columns.join(',')}) do update set n = ${table.table}.n + excluded.n`;
}
