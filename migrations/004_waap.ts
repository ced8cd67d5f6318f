// WAAP: per-client service settings, domains, the 30-day request-event log and its hourly counters.
// Counters ("rollups") exist because counting millions of events per list call is too slow: each rollup
// table keeps, per client and hour, the number of events for one combination of filter dimensions.
import { sql, type Kysely, type Migration } from 'kysely';
import { EPOCH_MS, withSerialId } from '../src/platform/db/columns.js';
import type { Engine } from '../src/platform/db/index.js';

/**
 * The hourly counter tables this migration made (dropped again by 008_waap_blocks). Spelled out here:
 * a migration must keep doing what it did when it shipped, whatever the code does later.
 */
const ROLLUPS = [
  { table: 'waap_rollup_total', dims: [] },
  { table: 'waap_rollup_decision', dims: ['decision', 'optional_action'] },
  { table: 'waap_rollup_geo', dims: ['country', 'method'] },
  { table: 'waap_rollup_domain', dims: ['domain_id', 'decision'] },
  { table: 'waap_rollup_status', dims: ['status_code', 'decision'] },
  { table: 'waap_rollup_prefix', dims: ['path_prefix', 'decision'] },
] as const;

export function waap(engine: Engine): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('waap_clients')
        .addColumn('client_id', 'bigint', (c) => c.primaryKey())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('features', 'text', (c) => c.notNull())
        .addColumn('domain_quota', 'integer', (c) => c.notNull())
        .execute();

      await withSerialId(db.schema.createTable('waap_domains'), engine)
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('custom_page_set', 'bigint')
        .addColumn('aliases', 'text', (c) => c.notNull())
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('waap_domains_client').on('waap_domains').columns(['client_id', 'id']).execute();
      await db.schema.createIndex('waap_domains_name').on('waap_domains').columns(['client_id', 'name']).unique().execute();

      const seq = engine === 'postgres' ? 'bigserial' : 'integer';
      await db.schema
        .createTable('waap_events')
        .addColumn('seq', seq, (c) => (engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('domain_id', 'bigint', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('request_time', EPOCH_MS, (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('decision', 'text', (c) => c.notNull())
        .addColumn('optional_action', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('result', 'text', (c) => c.notNull())
        .addColumn('client_ip', 'text', (c) => c.notNull())
        .addColumn('country', 'text', (c) => c.notNull())
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('path_prefix', 'text', (c) => c.notNull())
        .addColumn('status_code', 'integer', (c) => c.notNull())
        .addColumn('rule_id', 'text', (c) => c.notNull())
        .addColumn('rule_name', 'text', (c) => c.notNull())
        .addColumn('reference_id', 'text', (c) => c.notNull())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('user_agent', 'text', (c) => c.notNull())
        .addColumn('user_agent_client', 'text', (c) => c.notNull())
        .addColumn('user_agent_device', 'text', (c) => c.notNull())
        .addColumn('organization', 'text', (c) => c.notNull())
        .addColumn('traffic_types', 'text', (c) => c.notNull())
        .addColumn('tags', 'text', (c) => c.notNull())
        .addColumn('scheme', 'text', (c) => c.notNull())
        .addColumn('http_version', 'text', (c) => c.notNull())
        .addColumn('ja3', 'text', (c) => c.notNull())
        .addColumn('ja4', 'text', (c) => c.notNull())
        .addColumn('extra', 'text', (c) => c.notNull())
        .execute();
      // The list walks this index newest first; retention deletes along it per client.
      await db.schema.createIndex('waap_events_time').on('waap_events').columns(['client_id', 'request_time']).execute();
      await db.schema.createIndex('waap_events_id').on('waap_events').columns(['client_id', 'id']).unique().execute();
      await db.schema.createIndex('waap_events_ip').on('waap_events').columns(['client_id', 'client_ip']).execute();
      await db.schema.createIndex('waap_events_session').on('waap_events').columns(['client_id', 'session_id']).execute();

      for (const rollup of ROLLUPS) {
        let table = db.schema.createTable(rollup.table).addColumn('client_id', 'bigint', (c) => c.notNull());
        for (const dim of rollup.dims)
          table = table.addColumn(dim, dim === 'domain_id' ? 'bigint' : dim === 'status_code' ? 'integer' : 'text', (c) => c.notNull());
        table = table.addColumn('hour', EPOCH_MS, (c) => c.notNull()).addColumn('n', 'bigint', (c) => c.notNull());
        const key = ['client_id', ...rollup.dims, 'hour'];
        if (engine === 'sqlite') {
          // SQLite would otherwise keep each counter twice (the rowid table and the primary-key index).
          await table
            .addPrimaryKeyConstraint(`${rollup.table}_pk`, key as any)
            .modifyEnd(sql`without rowid`)
            .execute();
        } else {
          // The key index carries `n` too, so counts are index-only scans once the table is vacuumed.
          await table.execute();
          await sql`alter table ${sql.table(rollup.table)} add constraint ${sql.ref(`${rollup.table}_pk`)} primary key (${sql.join(key.map((c) => sql.ref(c)))}) include (n)`.execute(
            db,
          );
        }
      }
    },
    async down(db: Kysely<any>) {
      for (const rollup of ROLLUPS) await db.schema.dropTable(rollup.table).execute();
      for (const table of ['waap_events', 'waap_domains', 'waap_clients']) await db.schema.dropTable(table).execute();
    },
  };
}
