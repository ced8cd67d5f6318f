// DDoS notifier event logs and edge-function networks.
import type { Kysely, Migration } from 'kysely';
import { EPOCH_MS, withSerialId } from '../src/platform/db/columns.js';
import type { Engine } from '../src/platform/db/index.js';

export function securityEdge(engine: Engine): Migration {
  return {
    async up(db: Kysely<any>) {
      // The id is the record's public UUID, so it is the key; every read is scoped by client_id too.
      await db.schema
        .createTable('ddos_event_logs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('alert_type', 'text')
        .addColumn('notification_type', 'text')
        .addColumn('attack_start_time', EPOCH_MS)
        .addColumn('attack_power_bps', 'double precision')
        .addColumn('attack_power_pps', 'double precision')
        .addColumn('number_of_ip_involved_in_attack', 'bigint')
        .addColumn('targeted_ip_addresses', 'text')
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .execute();
      // Serves the default list (a client, a time window, ordered by start then id) without a sort.
      await db.schema.createIndex('ddos_event_logs_client_time').on('ddos_event_logs').columns(['client_id', 'attack_start_time', 'id']).execute();
      // The same for the one enumerated filter (the control panel's usual view: one alert type).
      await db.schema
        .createIndex('ddos_event_logs_client_type_time')
        .on('ddos_event_logs')
        .columns(['client_id', 'alert_type', 'attack_start_time', 'id'])
        .execute();
      // The seven attack_* arrays (a few KB per record) as one JSON object, apart from the list columns:
      // kept in the main rows they made every list scan read them too. Only ever read whole, by id.
      await db.schema
        .createTable('ddos_event_log_details')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('attack_details', 'text', (c) => c.notNull())
        .execute();

      await withSerialId(db.schema.createTable('edge_networks'), engine)
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('edge_networks_client_name').unique().on('edge_networks').columns(['client_id', 'name']).execute();
    },
  };
}
