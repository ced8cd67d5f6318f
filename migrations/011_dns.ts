// The DNS product (src/dns): zones, their RRsets and resource records, DNSSEC keys, the query counters
// the DNS listener keeps, and network mappings. Every table carries client_id, so state export, import
// and reset scope them by client without further help; children go with their zone (ON DELETE CASCADE).
import type { Kysely, Migration } from 'kysely';
import { EPOCH_MS, withSerialId } from '../src/platform/db/columns.js';
import type { Engine } from '../src/platform/db/index.js';

export function dns(engine: Engine): Migration {
  return {
    async up(db: Kysely<any>) {
      await withSerialId(db.schema.createTable('dns_zones'), engine)
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        // Normalised: lower case, ASCII (IDNs in punycode), no trailing dot.
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('contact', 'text', (c) => c.notNull())
        .addColumn('primary_server', 'text', (c) => c.notNull())
        .addColumn('refresh', 'bigint', (c) => c.notNull())
        .addColumn('retry', 'bigint', (c) => c.notNull())
        .addColumn('expiry', 'bigint', (c) => c.notNull())
        .addColumn('nx_ttl', 'bigint', (c) => c.notNull())
        .addColumn('serial', 'bigint', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('meta', 'text', (c) => c.notNull())
        .addColumn('dnssec_enabled', 'integer', (c) => c.notNull())
        // '' until DNSSEC is first enabled; then pending, active, pending-disabled or disabled.
        .addColumn('dnssec_status', 'text', (c) => c.notNull())
        .addColumn('dnssec_status_modified_at', EPOCH_MS)
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .addColumn('updated_at', EPOCH_MS, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('dns_zones_client_name').on('dns_zones').columns(['client_id', 'name']).unique().execute();
      // The DNS listener finds the zone of a query name among every client's zones.
      await db.schema.createIndex('dns_zones_name').on('dns_zones').column('name').execute();

      await withSerialId(db.schema.createTable('dns_rrsets'), engine)
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('zone_id', 'bigint', (c) => c.notNull().references('dns_zones.id').onDelete('cascade'))
        // Full owner name, normalised like zone names (`*` allowed as the first label).
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('ttl', 'bigint', (c) => c.notNull())
        .addColumn('meta', 'text', (c) => c.notNull())
        .addColumn('pickers', 'text', (c) => c.notNull())
        // Derived at write time for zone lists and counts: the RRset has pickers; its meta asks for a health check.
        .addColumn('dynamic', 'integer', (c) => c.notNull())
        .addColumn('health_check', 'integer', (c) => c.notNull())
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .addColumn('updated_at', EPOCH_MS, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('dns_rrsets_zone_name_type').on('dns_rrsets').columns(['zone_id', 'name', 'type']).unique().execute();

      await withSerialId(db.schema.createTable('dns_records'), engine)
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('rrset_id', 'bigint', (c) => c.notNull().references('dns_rrsets.id').onDelete('cascade'))
        // Order of the record in its RRset, as the client gave it.
        .addColumn('position', 'integer', (c) => c.notNull())
        // The content parts as sent (a JSON array).
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('meta', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('dns_records_rrset').on('dns_records').columns(['rrset_id', 'position']).execute();

      // One signing key per zone (ECDSA P-256), while DNSSEC is on or winding down.
      await db.schema
        .createTable('dns_dnssec_keys')
        .addColumn('zone_id', 'bigint', (c) => c.primaryKey().references('dns_zones.id').onDelete('cascade'))
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('uuid', 'text', (c) => c.notNull())
        .addColumn('algorithm', 'integer', (c) => c.notNull())
        .addColumn('flags', 'integer', (c) => c.notNull())
        .addColumn('key_tag', 'integer', (c) => c.notNull())
        // The DNSKEY public key field, base64; the private key as PKCS#8 PEM.
        .addColumn('public_key', 'text', (c) => c.notNull())
        .addColumn('private_key', 'text', (c) => c.notNull())
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .execute();

      // Queries the DNS listener answered, per zone, minute and query type.
      await db.schema
        .createTable('dns_query_counts')
        .addColumn('zone_id', 'bigint', (c) => c.notNull().references('dns_zones.id').onDelete('cascade'))
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('minute', EPOCH_MS, (c) => c.notNull())
        .addColumn('qtype', 'text', (c) => c.notNull())
        .addColumn('count', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('dns_query_counts_pk', ['zone_id', 'minute', 'qtype'])
        .execute();
      await db.schema.createIndex('dns_query_counts_client').on('dns_query_counts').columns(['client_id', 'minute']).execute();

      await withSerialId(db.schema.createTable('dns_network_mappings'), engine)
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('mapping', 'text', (c) => c.notNull())
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .addColumn('updated_at', EPOCH_MS, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('dns_network_mappings_client_name').on('dns_network_mappings').columns(['client_id', 'name']).unique().execute();
    },
    async down(db: Kysely<any>) {
      for (const table of ['dns_network_mappings', 'dns_query_counts', 'dns_dnssec_keys', 'dns_records', 'dns_rrsets', 'dns_zones']) {
        await db.schema.dropTable(table).execute();
      }
    },
  };
}
