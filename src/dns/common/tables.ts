// The DNS tables as Kysely sees them (migrations/011_dns.ts), and the few SQL pieces several stores share.
import { type Generated, type Kysely, type RawBuilder, sql } from 'kysely';

export interface ZoneRow {
  id: number;
  client_id: number;
  name: string;
  contact: string;
  primary_server: string;
  refresh: number;
  retry: number;
  expiry: number;
  nx_ttl: number;
  serial: number;
  enabled: number;
  meta: string;
  dnssec_enabled: number;
  dnssec_status: string;
  dnssec_status_modified_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface RRsetRow {
  id: number;
  client_id: number;
  zone_id: number;
  name: string;
  type: string;
  ttl: number;
  meta: string;
  pickers: string;
  dynamic: number;
  health_check: number;
  created_at: number;
  updated_at: number;
}

export interface RecordRow {
  id: number;
  client_id: number;
  rrset_id: number;
  position: number;
  content: string;
  enabled: number;
  meta: string;
}

export interface KeyRow {
  zone_id: number;
  client_id: number;
  uuid: string;
  algorithm: number;
  flags: number;
  key_tag: number;
  public_key: string;
  private_key: string;
  created_at: number;
}

export interface CountRow {
  zone_id: number;
  client_id: number;
  minute: number;
  qtype: string;
  count: number;
}

export interface MappingRow {
  id: number;
  client_id: number;
  name: string;
  mapping: string;
  created_at: number;
  updated_at: number;
}

type Serial<T extends { id: number }> = Omit<T, 'id'> & { id: Generated<number> };

export interface DnsTables {
  dns_zones: Serial<ZoneRow>;
  dns_rrsets: Serial<RRsetRow>;
  dns_records: Serial<RecordRow>;
  dns_dnssec_keys: KeyRow;
  dns_query_counts: CountRow;
  dns_network_mappings: Serial<MappingRow>;
}

export type DnsDb = Kysely<DnsTables>;

/** PostgreSQL may hand back BIGINT columns as strings when a driver is configured otherwise: read as numbers. */
export function numbers<T extends object>(row: T, keys: (keyof T)[]): T {
  const out = { ...row };
  for (const key of keys) if (out[key] !== null && out[key] !== undefined) (out as Record<keyof T, unknown>)[key] = Number(out[key]);
  return out;
}

export const ZONE_NUMBERS: (keyof ZoneRow)[] = [
  'id',
  'client_id',
  'refresh',
  'retry',
  'expiry',
  'nx_ttl',
  'serial',
  'enabled',
  'dnssec_enabled',
  'dnssec_status_modified_at',
  'created_at',
  'updated_at',
];
export const RRSET_NUMBERS: (keyof RRsetRow)[] = ['id', 'client_id', 'zone_id', 'ttl', 'dynamic', 'health_check', 'created_at', 'updated_at'];
export const RECORD_NUMBERS: (keyof RecordRow)[] = ['id', 'client_id', 'rrset_id', 'position', 'enabled'];

const SERIAL_MAX = 4294967295;

/**
 * The serial after a change: the next number, or the change's time in seconds when that is larger (so a
 * serial reads as the moment of the last change), wrapping past 2^32 - 1 as RFC 1982 serials do.
 */
export function nextSerial(nowMs: number): RawBuilder<number> {
  const seconds = Math.floor(nowMs / 1000);
  return sql<number>`case when serial + 1 >= ${seconds} then (case when serial + 1 > ${SERIAL_MAX} then 1 else serial + 1 end) else ${seconds} end`;
}

/** Marks a zone changed: serial bumped, updated_at set. Run inside the transaction of the change. */
export async function touchZone(db: DnsDb, zoneId: number, nowMs: number): Promise<void> {
  await db
    .updateTable('dns_zones')
    .set({ serial: nextSerial(nowMs), updated_at: nowMs })
    .where('id', '=', zoneId)
    .execute();
}

/** A unique index refused the row (SQLite and PostgreSQL spell it differently). */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint failed/.test(e?.message ?? '');
}
