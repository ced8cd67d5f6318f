// SQL for CDN access records: bulk insert and the retention delete. No rules here.
import type { Kysely } from 'kysely';
import type { AccessRecord } from './model.js';
import { directoryOf, visitorKey } from './model.js';

export interface AccessRecordRow {
  id: number;
  client_id: number;
  ts: number;
  resource_id: number;
  host: string;
  path: string;
  directory: string;
  country: string;
  browser: string;
  device: string;
  os: string;
  bytes: number;
  status: number;
  client_ip: string;
  visitor: string;
}

export interface AccessRecordTables {
  cdn_access_records: Omit<AccessRecordRow, 'id'> & { id?: number };
}

// 14 columns: 500 rows stay far below both engines' bound-parameter limits (SQLite 32766, PG 65535).
const CHUNK = 500;

export function toRow(record: AccessRecord): Omit<AccessRecordRow, 'id'> {
  return {
    client_id: record.clientId,
    ts: record.timestamp,
    resource_id: record.resourceId,
    host: record.host,
    path: record.path,
    directory: directoryOf(record.path),
    country: record.country,
    browser: record.browser,
    device: record.device,
    os: record.os,
    bytes: record.bytes,
    status: record.status,
    client_ip: record.clientIp,
    visitor: visitorKey(record),
  };
}

export class AccessRecordStore {
  private readonly db: Kysely<AccessRecordTables>;

  constructor(db: Kysely<any>) {
    this.db = db as Kysely<AccessRecordTables>;
  }

  /** Inserts every record in one transaction: a batch is stored whole or not at all. */
  async insertMany(records: AccessRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < records.length; i += CHUNK) {
        await trx
          .insertInto('cdn_access_records')
          .values(records.slice(i, i + CHUNK).map(toRow))
          .execute();
      }
    });
  }

  /** Deletes every client's records older than the cutoff; returns how many went. */
  async deleteOlderThan(cutoff: number): Promise<number> {
    const result = await this.db.deleteFrom('cdn_access_records').where('ts', '<', cutoff).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async countForClient(clientId: number): Promise<number> {
    const row = await this.db
      .selectFrom('cdn_access_records')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('client_id', '=', clientId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
