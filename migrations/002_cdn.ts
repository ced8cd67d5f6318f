// CDN rule templates. System templates (is_default = 1, client_id 0) are rows too, written by the service
// from its own list under a unique system_key, so a full reset of the data brings them back.
import type { Kysely, Migration } from 'kysely';
import { EPOCH_MS, withSerialId } from '../src/platform/db/columns.js';
import type { Engine } from '../src/platform/db/index.js';

export function cdn(engine: Engine): Migration {
  return {
    async up(db: Kysely<any>) {
      await withSerialId(db.schema.createTable('cdn_rule_templates'), engine)
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('rule', 'text', (c) => c.notNull())
        .addColumn('rule_type', 'integer', (c) => c.notNull())
        .addColumn('weight', 'bigint', (c) => c.notNull())
        .addColumn('override_origin_protocol', 'text')
        .addColumn('options', 'text', (c) => c.notNull())
        .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('system_key', 'text')
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .addColumn('updated_at', EPOCH_MS, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('cdn_rule_templates_client').on('cdn_rule_templates').columns(['client_id', 'id']).execute();
      await db.schema.createIndex('cdn_rule_templates_system_key').on('cdn_rule_templates').column('system_key').unique().execute();
    },
  };
}
