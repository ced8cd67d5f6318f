// CDN resources and what they use: origin groups, resource rules, the host names resources answer for
// (unique across all clients), purge and prefetch requests, SSL certificates and trusted CA
// certificates. Every table has client_id, so state export, import and reset cover them per client.
// JSON columns are text on both engines.
import type { Kysely, Migration } from 'kysely';
import { EPOCH_MS, withSerialId } from '../src/platform/db/columns.js';
import type { Engine } from '../src/platform/db/index.js';

export function cdnResources(engine: Engine): Migration {
  return {
    async up(db: Kysely<any>) {
      await withSerialId(db.schema.createTable('cdn_origin_groups'), engine)
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('use_next', 'integer', (c) => c.notNull())
        .addColumn('proxy_next_upstream', 'text', (c) => c.notNull())
        .addColumn('auth_type', 'text', (c) => c.notNull())
        .addColumn('auth', 'text')
        .addColumn('sources', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .addColumn('updated_at', EPOCH_MS, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('cdn_origin_groups_name').on('cdn_origin_groups').columns(['client_id', 'name']).unique().execute();

      await withSerialId(db.schema.createTable('cdn_resources'), engine)
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('cname', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('origin_group_id', 'bigint', (c) => c.notNull())
        .addColumn('origin_protocol', 'text', (c) => c.notNull())
        .addColumn('active', 'integer', (c) => c.notNull())
        .addColumn('secondary_hostnames', 'text', (c) => c.notNull())
        .addColumn('ssl_enabled', 'integer', (c) => c.notNull())
        .addColumn('ssl_data', 'bigint')
        .addColumn('proxy_ssl_enabled', 'integer', (c) => c.notNull())
        .addColumn('proxy_ssl_ca', 'bigint')
        .addColumn('proxy_ssl_data', 'bigint')
        .addColumn('primary_resource', 'bigint')
        .addColumn('waap_api_domain_enabled', 'integer', (c) => c.notNull())
        .addColumn('options', 'text', (c) => c.notNull())
        .addColumn('shielding_pop', 'bigint')
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .addColumn('updated_at', EPOCH_MS, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('cdn_resources_client').on('cdn_resources').columns(['client_id', 'id']).execute();
      await db.schema.createIndex('cdn_resources_origin_group').on('cdn_resources').column('origin_group_id').execute();

      // Every cname and secondary host name of every resource: one namespace across all clients.
      await withSerialId(db.schema.createTable('cdn_hostnames'), engine)
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('resource_id', 'bigint', (c) => c.notNull())
        .addColumn('hostname', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('cdn_hostnames_hostname').on('cdn_hostnames').column('hostname').unique().execute();
      await db.schema.createIndex('cdn_hostnames_resource').on('cdn_hostnames').column('resource_id').execute();

      await withSerialId(db.schema.createTable('cdn_resource_rules'), engine)
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('resource_id', 'bigint', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('rule', 'text', (c) => c.notNull())
        .addColumn('rule_type', 'integer', (c) => c.notNull())
        .addColumn('weight', 'bigint', (c) => c.notNull())
        .addColumn('active', 'integer', (c) => c.notNull())
        .addColumn('override_origin_protocol', 'text')
        .addColumn('origin_group_id', 'bigint')
        .addColumn('options', 'text', (c) => c.notNull())
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .addColumn('updated_at', EPOCH_MS, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('cdn_resource_rules_name').on('cdn_resource_rules').columns(['resource_id', 'name']).unique().execute();
      await db.schema.createIndex('cdn_resource_rules_rule').on('cdn_resource_rules').columns(['resource_id', 'rule']).unique().execute();
      await db.schema.createIndex('cdn_resource_rules_origin_group').on('cdn_resource_rules').column('origin_group_id').execute();

      // Purge and prefetch requests: the purge history, and the per-minute limits counted from it.
      await withSerialId(db.schema.createTable('cdn_purges'), engine)
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('resource_id', 'bigint', (c) => c.notNull())
        .addColumn('cname', 'text', (c) => c.notNull())
        .addColumn('purge_type', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('cdn_purges_client').on('cdn_purges').columns(['client_id', 'id']).execute();
      await db.schema.createIndex('cdn_purges_window').on('cdn_purges').columns(['resource_id', 'purge_type', 'created_at']).execute();

      await withSerialId(db.schema.createTable('cdn_ssl_certificates'), engine)
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('automated', 'integer', (c) => c.notNull())
        .addColumn('certificate', 'text')
        .addColumn('private_key', 'text')
        .addColumn('cert_issuer', 'text', (c) => c.notNull())
        .addColumn('cert_subject_cn', 'text', (c) => c.notNull())
        .addColumn('cert_subject_alt', 'text', (c) => c.notNull())
        .addColumn('validity_not_before', EPOCH_MS)
        .addColumn('validity_not_after', EPOCH_MS)
        // Let's Encrypt issuing: the resource it is issued for, and every attempt (JSON).
        .addColumn('le_resource_id', 'bigint')
        .addColumn('le_attempts', 'text', (c) => c.notNull())
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .addColumn('updated_at', EPOCH_MS, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('cdn_ssl_certificates_name').on('cdn_ssl_certificates').columns(['client_id', 'name']).unique().execute();

      await withSerialId(db.schema.createTable('cdn_ca_certificates'), engine)
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('certificate', 'text', (c) => c.notNull())
        .addColumn('cert_issuer', 'text', (c) => c.notNull())
        .addColumn('cert_subject_cn', 'text', (c) => c.notNull())
        .addColumn('cert_subject_alt', 'text', (c) => c.notNull())
        .addColumn('validity_not_before', EPOCH_MS, (c) => c.notNull())
        .addColumn('validity_not_after', EPOCH_MS, (c) => c.notNull())
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .addColumn('updated_at', EPOCH_MS, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('cdn_ca_certificates_name').on('cdn_ca_certificates').columns(['client_id', 'name']).unique().execute();
    },
    async down(db: Kysely<any>) {
      for (const table of [
        'cdn_ca_certificates',
        'cdn_ssl_certificates',
        'cdn_purges',
        'cdn_resource_rules',
        'cdn_hostnames',
        'cdn_resources',
        'cdn_origin_groups',
      ]) {
        await db.schema.dropTable(table).execute();
      }
    },
  };
}
