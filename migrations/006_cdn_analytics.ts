// CDN access records behind the advanced-analytics GraphQL endpoint. One row per request served by
// the CDN; kept 90 days. Every analytic query reads one client's rows in a time window, hence the
// (client_id, ts) index; the retention job deletes by ts alone, hence the second one.
import type { Kysely, Migration } from 'kysely';
import { EPOCH_MS, withSerialId } from '../src/platform/db/columns.js';
import type { Engine } from '../src/platform/db/index.js';

export function cdnAnalytics(engine: Engine): Migration {
  return {
    async up(db: Kysely<any>) {
      await withSerialId(db.schema.createTable('cdn_access_records'), engine)
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('ts', EPOCH_MS, (c) => c.notNull())
        .addColumn('resource_id', 'bigint', (c) => c.notNull())
        .addColumn('host', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        // First-level directory of the path ('/images/'), derived at ingestion so grouping is a plain column.
        .addColumn('directory', 'text', (c) => c.notNull())
        .addColumn('country', 'text', (c) => c.notNull())
        .addColumn('browser', 'text', (c) => c.notNull())
        .addColumn('device', 'text', (c) => c.notNull())
        .addColumn('os', 'text', (c) => c.notNull())
        .addColumn('bytes', 'bigint', (c) => c.notNull())
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('client_ip', 'text', (c) => c.notNull())
        // What makes a unique visitor: the visitor id when the record has one, else the client IP.
        .addColumn('visitor', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('cdn_access_records_client_ts').on('cdn_access_records').columns(['client_id', 'ts']).execute();
      await db.schema.createIndex('cdn_access_records_ts').on('cdn_access_records').column('ts').execute();
    },
  };
}
