// WAAP: counters for the statistics and the traffic series, so those read pre-aggregated counts instead
// of scanning events (maintained at ingestion and by retention, like the list's hourly rollups), filled
// here from the events already stored. On a SQLite file still small enough, the pages grow to 64 KiB
// first: the event rows are about 600 bytes and bulk ingestion wrote, per event, several times less
// with large pages (fewer page splits and WAL frames). On PostgreSQL the time index gains seq, the list's
// tie-breaker.
import { sql, type Kysely, type Migration } from 'kysely';
import type { Engine } from '../src/platform/db/index.js';

const STAT_KEYS: [string, string][] = [
  ['country', 'country'],
  ['rule', 'rule_name'],
  ['org', 'organization'],
  ['ip', 'client_ip'],
  ['useragent', 'user_agent'],
  ['target', 'domain'],
];
const PAGE_SIZE = 65536;
/** Above this, rewriting the file for the new page size would hold up start-up too long. */
const MAX_REWRITE_BYTES = 256 * 1024 * 1024;

export function waapCounters(engine: Engine): Migration {
  return {
    async up(db: Kysely<any>) {
      if (engine === 'sqlite') await growSqlitePages(db);
      else {
        // The list orders by (request_time, seq). SQLite's (client_id, request_time) index ends with the
        // rowid (seq) already; PostgreSQL's does not, and sorted every matching row of a page query
        // (seconds at millions) when its statistics were stale. Its index now carries seq.
        await sql`create index waap_events_time_seq on waap_events (client_id, request_time, seq)`.execute(db);
        await sql`drop index waap_events_time`.execute(db);
      }
      const pk = async (table: string, columns: string[]) => {
        const key = sql.join(columns.map((c) => sql.ref(c)));
        if (engine === 'sqlite') return;
        await sql`alter table ${sql.table(table)} add constraint ${sql.ref(`${table}_pk`)} primary key (${key}) include (n)`.execute(db);
      };
      const statKey = ['client_id', 'dim', 'hour', 'key', 'domain_id', 'rule_name', 'decision'];
      let stat = db.schema
        .createTable('waap_stat_counters')
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('dim', 'text', (c) => c.notNull())
        .addColumn('hour', 'bigint', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('domain_id', 'bigint', (c) => c.notNull())
        .addColumn('rule_name', 'text', (c) => c.notNull())
        .addColumn('decision', 'text', (c) => c.notNull())
        .addColumn('n', 'bigint', (c) => c.notNull());
      if (engine === 'sqlite') stat = stat.addPrimaryKeyConstraint('waap_stat_counters_pk', statKey as any).modifyEnd(sql`without rowid`);
      await stat.execute();
      await pk('waap_stat_counters', statKey);

      const trafficKey = ['client_id', 'minute', 'domain_id', 'decision', 'status_class', 'types'];
      let traffic = db.schema
        .createTable('waap_traffic_counters')
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('minute', 'bigint', (c) => c.notNull())
        .addColumn('domain_id', 'bigint', (c) => c.notNull())
        .addColumn('decision', 'text', (c) => c.notNull())
        .addColumn('status_class', 'integer', (c) => c.notNull())
        .addColumn('types', 'integer', (c) => c.notNull())
        .addColumn('n', 'bigint', (c) => c.notNull());
      if (engine === 'sqlite') traffic = traffic.addPrimaryKeyConstraint('waap_traffic_counters_pk', trafficKey as any).modifyEnd(sql`without rowid`);
      await traffic.execute();
      await pk('waap_traffic_counters', trafficKey);

      await backfillWaapCounters(db, engine);
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('waap_traffic_counters').execute();
      await db.schema.dropTable('waap_stat_counters').execute();
    },
  };
}

/** Fills the statistics and traffic counters from the stored events, with the keys ingestion uses. */
export async function backfillWaapCounters(db: Kysely<any>, engine: Engine): Promise<void> {
  for (const [dim, column] of STAT_KEYS) {
    await sql`insert into waap_stat_counters (client_id, dim, hour, key, domain_id, rule_name, decision, n)
      select client_id, ${dim}, (request_time / 3600000) * 3600000, ${sql.ref(column)}, domain_id, rule_name, decision, count(*)
      from waap_events where ${sql.ref(column)} <> '' group by 1, 3, 4, 5, 6, 7`.execute(db);
  }
  // Exact, case-sensitive membership between commas, as ingestion counts it.
  const find = engine === 'postgres' ? sql`strpos` : sql`instr`;
  const has = (t: string) => sql`(case when ${find}(',' || traffic_types || ',', ${`,${t},`}) > 0 then 1 else 0 end)`;
  const types = sql`(${has('api')} + 2 * ${has('ajax')} + 4 * ${has('static')})`;
  await sql`insert into waap_traffic_counters (client_id, minute, domain_id, decision, status_class, types, n)
    select client_id, (request_time / 60000) * 60000, domain_id, decision, status_code / 100, ${types}, count(*)
    from waap_events group by 1, 2, 3, 4, 5, 6`.execute(db);
}

/** Rewrites a SQLite file with 64 KiB pages (only possible outside WAL mode, hence the switch and back). */
async function growSqlitePages(db: Kysely<any>): Promise<void> {
  const one = async (query: string) => Object.values((await sql.raw<Record<string, unknown>>(query).execute(db)).rows[0] ?? {})[0];
  const file = (await sql<{ file: string }>`select file from pragma_database_list where name = 'main'`.execute(db)).rows[0]?.file;
  if (!file) return; // in memory
  const pageSize = Number(await one('pragma page_size'));
  const bytes = pageSize * Number(await one('pragma page_count'));
  if (pageSize >= PAGE_SIZE || bytes > MAX_REWRITE_BYTES) return;
  await sql.raw('pragma journal_mode = delete').execute(db);
  await sql.raw(`pragma page_size = ${PAGE_SIZE}`).execute(db);
  await sql.raw('vacuum').execute(db);
  await sql.raw('pragma journal_mode = wal').execute(db);
}
