// SQL of the request-event log. Bulk paths use the raw drivers (prepared statements in one SQLite
// transaction, unnest-based multi-row inserts on PostgreSQL); reads go through Kysely's `sql`.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../platform/db/index.js';
import { type Condition, type EventFilter, globForLike, globForSqlite, likeLiteral } from './filter.js';
import { createReaders, type Readers } from './readers.js';
import { accumulate, ROLLUPS, type Rollup } from './rollups.js';

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
    this.readers = createReaders(database);
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
    const insert = db.prepare(`insert or ignore into waap_events (${COLUMNS.join(',')}) values (${COLUMNS.map(() => '?').join(',')})`);
    const upserts = new Map(ROLLUPS.map((r) => [r, db.prepare(upsertSql(r, '?', () => '?'))]));
    return db.transaction((rows: readonly EventRow[]) => {
      const inserted: boolean[] = [];
      const fresh: EventRow[] = [];
      for (const row of rows) {
        const ok = insert.run(COLUMNS.map((c) => row[c])).changes === 1;
        inserted.push(ok);
        if (ok) fresh.push(row);
      }
      for (const [rollup, counters] of accumulate(fresh as unknown as Record<string, unknown>[])) {
        const statement = upserts.get(rollup)!;
        for (const { key, n } of counters.values()) statement.run([...key, n]);
      }
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
      for (const [rollup, counters] of accumulate(kept as unknown as Record<string, unknown>[])) {
        if (counters.size === 0) continue;
        const columns = ['client_id', ...rollup.dims, 'hour', 'n'];
        const values = columns.map((_, i) => [...counters.values()].map((e) => (i < columns.length - 1 ? e.key[i] : e.n)));
        const source = `select * from unnest(${columns.map((c, i) => `$${i + 1}::${c === 'hour' || c === 'n' ? 'bigint' : pgType(c)}[]`).join(',')})`;
        await client.query(upsertSql(rollup, source, null), values);
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

  /** Counts per value of one column (top `limit` by total), split by decision. */
  async countBy(filter: EventFilter, column: string, limit: number, byThreats: boolean): Promise<{ key: string; decision: string; n: number }[]> {
    const where = this.where(filter, filter.from, filter.toExcl, filter.conditions);
    const rank = byThreats ? sql`sum(case when decision in ('blocked', 'monitored') then 1 else 0 end)` : sql`count(*)`;
    const rows = await this.read(sql<{ key: string; decision: string; n: number }>`
      with top as (select ${sql.ref(column)} as k from waap_events where ${where} group by ${sql.ref(column)} order by ${rank} desc, ${sql.ref(column)} limit ${limit})
      select cast(${sql.ref(column)} as text) as key, decision, count(*) as n from waap_events where ${where} and ${sql.ref(column)} in (select k from top)
      group by ${sql.ref(column)}, decision`);
    return rows.map((r) => ({ key: String(r.key), decision: r.decision, n: Number(r.n) }));
  }

  /** Any one row per key, to describe the keys of statistics (country and organisation of an IP). */
  async sampleBy(filter: EventFilter, column: string, keys: string[]): Promise<StoredEvent[]> {
    if (keys.length === 0) return [];
    return this.read(sql<StoredEvent>`select * from waap_events where seq in (select min(seq) from waap_events
      where ${this.where(filter, filter.from, filter.toExcl, filter.conditions)} and cast(${sql.ref(column)} as text) in (${sql.join(keys)}) group by ${sql.ref(column)})`);
  }

  /** Per-bucket counts for traffic series: decision, status class and traffic types per bucket. */
  async trafficBuckets(filter: EventFilter, bucketMs: number): Promise<{ bucket: number; decision: string; status_class: number; traffic_types: string; optional_action: string; n: number }[]> {
    // A literal, not a parameter: SQLite binds JS numbers as REAL, which would make the division exact.
    const size = sql.lit(Math.trunc(bucketMs));
    const rows = await this.read(sql<any>`select (request_time / ${size}) * ${size} as bucket, decision, status_code / 100 as status_class, traffic_types, optional_action, count(*) as n
      from waap_events where ${this.where(filter, filter.from, filter.toExcl, filter.conditions)}
      group by 1, decision, status_code / 100, traffic_types, optional_action order by 1`);
    return rows.map((r: any) => ({ ...r, bucket: Number(r.bucket), status_class: Number(r.status_class), n: Number(r.n) }));
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

  async deleteExpiredCounters(clientId: number, cutoffHour: number): Promise<void> {
    for (const rollup of ROLLUPS) {
      await sql`delete from ${sql.table(rollup.table)} where client_id = ${clientId} and hour < ${cutoffHour}`.execute(this.db);
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

/** `insert ... on conflict do update set n = n + excluded.n` for one rollup, from VALUES or a SELECT. */
function upsertSql(rollup: Rollup, source: string, placeholder: (() => string) | null): string {
  const columns = ['client_id', ...rollup.dims, 'hour'];
  const values = placeholder ? `values (${[...columns, 'n'].map(placeholder).join(',')})` : source;
  return `insert into ${rollup.table} (${columns.join(',')}, n) ${values} on conflict (${columns.join(',')}) do update set n = ${rollup.table}.n + excluded.n`;
}
