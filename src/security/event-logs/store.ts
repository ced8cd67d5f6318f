// SQL for DDoS event logs. Every read is scoped by client id; the service decides what is asked.
import { likeLiteral } from '../../platform/db/like.js';
import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { Database } from '../../platform/db/index.js';
import type { AlertType, OrderField } from './schemas.js';
import { retryWhileBusy } from '../../platform/db/sqlite-busy.js';

export interface EventLogRow {
  id: string;
  client_id: number;
  alert_type: string | null;
  notification_type: string | null;
  attack_start_time: number | null;
  attack_power_bps: number | null;
  attack_power_pps: number | null;
  number_of_ip_involved_in_attack: number | null;
  targeted_ip_addresses: string | null;
  /** JSON object holding the seven attack_* arrays. */
  attack_details: string;
  created_at: number;
}

interface Tables {
  ddos_event_logs: Omit<EventLogRow, 'attack_details'>;
  ddos_event_log_details: { id: string; attack_details: string };
}

export interface EventLogFilter {
  clientId: number;
  from: number;
  to: number;
  alertType?: AlertType;
  targetedIp?: string;
}

export interface EventLogOrder {
  field: OrderField;
  descending: boolean;
}

type SummaryRow = Omit<EventLogRow, 'attack_details' | 'created_at'>;

const SUMMARY_COLUMNS = [
  'id',
  'client_id',
  'alert_type',
  'notification_type',
  'attack_start_time',
  'attack_power_bps',
  'attack_power_pps',
  'number_of_ip_involved_in_attack',
  'targeted_ip_addresses',
] as const;

// Rows per INSERT statement: well under SQLite's 32766 bound parameters with 11 columns.
const INSERT_CHUNK = 500;

const LIST_COLUMNS = [...SUMMARY_COLUMNS, 'created_at'] as const;

export class EventLogStore {
  private readonly db: Kysely<Tables>;
  private sqliteInsert?: (rows: EventLogRow[], skipExisting: boolean) => string[];

  constructor(private readonly database: Database) {
    this.db = database.kysely as Kysely<Tables>;
  }

  /** Inserts all rows in one transaction; with `skipExisting`, rows whose id exists are left out. Returns the ids inserted. */
  async insertMany(rows: EventLogRow[], skipExisting: boolean): Promise<string[]> {
    // Prepared statements in one driver transaction: several times faster than building 500-row INSERTs.
    if (this.database.raw.sqlite) {
      const insert = (this.sqliteInsert ??= this.prepareSqliteInsert());
      return retryWhileBusy(() => insert(rows, skipExisting));
    }
    return this.db.transaction().execute(async (trx) => {
      const inserted: string[] = [];
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        const chunk = rows.slice(i, i + INSERT_CHUNK);
        let query = trx.insertInto('ddos_event_logs').values(chunk.map(({ attack_details: _, ...row }) => row));
        if (skipExisting) query = query.onConflict((oc) => oc.column('id').doNothing());
        const ids = new Set((await query.returning('id').execute()).map((r) => r.id));
        const details = chunk.filter((row) => ids.has(row.id)).map((row) => ({ id: row.id, attack_details: row.attack_details }));
        if (details.length > 0) await trx.insertInto('ddos_event_log_details').values(details).execute();
        inserted.push(...chunk.filter((row) => ids.has(row.id)).map((row) => row.id));
      }
      return inserted;
    });
  }

  private prepareSqliteInsert(): (rows: EventLogRow[], skipExisting: boolean) => string[] {
    const db = this.database.raw.sqlite!;
    const columns = LIST_COLUMNS.join(', ');
    const placeholders = LIST_COLUMNS.map(() => '?').join(', ');
    const insert = db.prepare(`insert into ddos_event_logs (${columns}) values (${placeholders})`);
    const insertNew = db.prepare(`insert or ignore into ddos_event_logs (${columns}) values (${placeholders})`);
    const details = db.prepare('insert into ddos_event_log_details (id, attack_details) values (?, ?)');
    return db.transaction((rows: EventLogRow[], skipExisting: boolean) => {
      const inserted: string[] = [];
      for (const row of rows) {
        if ((skipExisting ? insertNew : insert).run(LIST_COLUMNS.map((c) => row[c])).changes !== 1) continue;
        details.run(row.id, row.attack_details);
        inserted.push(row.id);
      }
      return inserted;
    });
  }

  async existingIds(ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const found: string[] = [];
    for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
      const rows = await this.db
        .selectFrom('ddos_event_logs')
        .select('id')
        .where('id', 'in', ids.slice(i, i + INSERT_CHUNK))
        .execute();
      found.push(...rows.map((r) => r.id));
    }
    return found;
  }

  async get(clientId: number, id: string): Promise<EventLogRow | undefined> {
    return this.db
      .selectFrom('ddos_event_logs as e')
      .innerJoin('ddos_event_log_details as d', 'd.id', 'e.id')
      .selectAll('e')
      .select('d.attack_details')
      .where('e.client_id', '=', clientId)
      .where('e.id', '=', id)
      .executeTakeFirst();
  }

  async count(filter: EventLogFilter): Promise<number> {
    const row = await this.filtered(filter)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async list(filter: EventLogFilter, order: EventLogOrder, limit: number, offset: number): Promise<SummaryRow[]> {
    const direction = order.descending ? 'desc' : 'asc';
    let query = this.filtered(filter).select([...SUMMARY_COLUMNS]);
    // Nulls sort last in both directions on both engines (they disagree by default). The window filter
    // already excludes rows without a start time, so that ordering needs no such term and uses the index.
    if (order.field !== 'attack_start_time') query = query.orderBy(sql`case when ${sql.ref(order.field)} is null then 1 else 0 end`);
    return query.orderBy(order.field, direction).orderBy('id', direction).limit(limit).offset(offset).execute();
  }

  private filtered(filter: EventLogFilter): SelectQueryBuilder<Tables, 'ddos_event_logs', object> {
    let query = this.db
      .selectFrom('ddos_event_logs')
      .where('client_id', '=', filter.clientId)
      .where('attack_start_time', '>=', filter.from)
      .where('attack_start_time', '<=', filter.to);
    if (filter.alertType) query = query.where('alert_type', '=', filter.alertType);
    const ip = filter.targetedIp;
    if (ip !== undefined) {
      // A record matches when the value is its whole address list or one address of the comma list.
      const token = `%,${likeLiteral(ip)},%`;
      query = query.where((eb) =>
        eb.or([eb('targeted_ip_addresses', '=', ip), eb(sql`',' || replace(targeted_ip_addresses, ' ', '') || ','`, 'like', sql`${token} escape '\\'`)]),
      );
    }
    return query;
  }
}
