// Accounts, their users and API tokens, and server-wide settings.
import type { Kysely, Migration } from 'kysely';
import { EPOCH_MS, withSerialId } from '../src/platform/db/columns.js';
import type { Engine } from '../src/platform/db/index.js';

export function accounts(engine: Engine): Migration {
  return {
    async up(db: Kysely<any>) {
      await withSerialId(db.schema.createTable('clients'), engine)
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('company_name', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('phone', 'text')
        .addColumn('website', 'text')
        .addColumn('country_code', 'text')
        .addColumn('custom_id', 'text')
        .addColumn('bill_type', 'text', (c) => c.notNull())
        .addColumn('capabilities', 'text', (c) => c.notNull())
        .addColumn('is_test', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('is_reseller', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('reseller_id', 'bigint')
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('clients_reseller').on('clients').column('reseller_id').execute();

      await withSerialId(db.schema.createTable('users'), engine)
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('phone', 'text')
        .addColumn('company', 'text')
        .addColumn('lang', 'text', (c) => c.notNull().defaultTo('en'))
        .addColumn('group_id', 'integer', (c) => c.notNull())
        .addColumn('activated', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('users_client').on('users').column('client_id').execute();

      await withSerialId(db.schema.createTable('api_tokens'), engine)
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('user_id', 'bigint', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('group_id', 'integer', (c) => c.notNull())
        .addColumn('lookup_key', 'text', (c) => c.notNull())
        .addColumn('secret_hash', 'text', (c) => c.notNull())
        .addColumn('expires_at', EPOCH_MS)
        .addColumn('last_used_at', EPOCH_MS)
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', EPOCH_MS, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('api_tokens_lookup').on('api_tokens').column('lookup_key').execute();
      await db.schema.createIndex('api_tokens_client').on('api_tokens').columns(['client_id', 'id']).execute();

      await db.schema
        .createTable('settings')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
    },
  };
}
