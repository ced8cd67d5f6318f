// DDL helpers for the differences between SQLite and PostgreSQL that migrations meet.
import type { ColumnDefinitionBuilder, CreateTableBuilder } from 'kysely';
import type { Engine } from './index.js';

/** An auto-increment integer primary key named `id`. */
export function withSerialId<T extends string>(table: CreateTableBuilder<T, any>, engine: Engine): CreateTableBuilder<T, any> {
  return engine === 'postgres'
    ? table.addColumn('id', 'bigserial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

/** Epoch milliseconds: BIGINT on both engines (SQLite integers are 64-bit). */
export const EPOCH_MS = 'bigint' as const;

export const notNull = (c: ColumnDefinitionBuilder) => c.notNull();
