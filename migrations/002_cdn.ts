// CDN rule templates, with the system templates (default = 1) every client can read but not change.
import type { Kysely, Migration } from 'kysely';
import { EPOCH_MS, withSerialId } from '../src/platform/db/columns.js';
import type { Engine } from '../src/platform/db/index.js';

// The system templates: common cases offered to every client. client_id 0 = owned by no client.
const SYSTEM_TEMPLATES = [
  {
    name: 'No cache for API paths',
    rule: '^/api/',
    weight: 10,
    options: { edge_cache_settings: { enabled: true, value: '0s' }, browser_cache_settings: { enabled: true, value: '0s' } },
  },
  {
    name: 'Images: WebP conversion',
    rule: '/.*\\.(jpe?g|png)$',
    weight: 15,
    options: { image_stack: { enabled: true, avif_enabled: false, webp_enabled: true, quality: 85, png_lossless: false } },
  },
  {
    name: 'Static assets: long cache, gzip',
    rule: '/.*\\.(css|js|mjs|svg|ico|woff2?|ttf|gif)$',
    weight: 20,
    options: {
      edge_cache_settings: { enabled: true, value: '30d' },
      browser_cache_settings: { enabled: true, value: '7d' },
      gzipOn: { enabled: true, value: true },
    },
  },
];

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
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .addColumn('updated_at', EPOCH_MS, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('cdn_rule_templates_client').on('cdn_rule_templates').columns(['client_id', 'id']).execute();
      await db
        .insertInto('cdn_rule_templates')
        .values(
          SYSTEM_TEMPLATES.map((t) => ({
            client_id: 0,
            name: t.name,
            rule: t.rule,
            rule_type: 0,
            weight: t.weight,
            override_origin_protocol: null,
            options: JSON.stringify(t.options),
            is_default: 1,
            deleted: 0,
            created_at: 0,
            updated_at: 0,
          })),
        )
        .execute();
    },
  };
}
