// The catalogue engine's one table family: every record of every operation no modelled product serves
// (src/catalogue-engine). A record lives at its canonical item path under a client; `collection` and
// `scope` locate it for lists, `record_key` for reads, and `path` lets a parent's delete remove what is
// nested under it. `body` is the record as the API shows it (JSON).
import type { Kysely, Migration } from 'kysely';
import { EPOCH_MS, withSerialId } from '../src/platform/db/columns.js';
import type { Engine } from '../src/platform/db/index.js';

export function catalogueRecords(engine: Engine): Migration {
  return {
    async up(db: Kysely<any>) {
      await withSerialId(db.schema.createTable('catalogue_records'), engine)
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('collection', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('record_key', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        // 'ready', or what the task holding the record is doing ('creating', 'deleting', 'updating').
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('task_id', 'text')
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .addColumn('updated_at', EPOCH_MS, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('catalogue_records_key')
        .on('catalogue_records')
        .columns(['client_id', 'collection', 'scope', 'record_key'])
        .unique()
        .execute();
      await db.schema.createIndex('catalogue_records_path').on('catalogue_records').columns(['client_id', 'path']).execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('catalogue_records').execute();
    },
  };
}
