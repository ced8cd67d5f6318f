// Reads across every client's zones, as DNS itself sees them: which hosted zone holds a name, and the
// records at a few names of it. The DNS listener asks this on every query (no cache: an API write is
// answered at once, on every node sharing the database); lookups, delegation checks and the DNSSEC
// parent scan ask it too. Only enabled records are read.
//
// This is the listener's hot path, so the SQL is written once and run on the drivers directly: prepared
// SQLite statements (kept), or the PostgreSQL pool. Building each query with Kysely cost several times
// the query itself. While the shared SQLite connection is inside a transaction (an API write between its
// statements), reads go through Kysely, which waits for the transaction to end: no half-written answer.
import { CompiledQuery } from 'kysely';
import type SQLite from 'better-sqlite3';
import type { Database } from '../../platform/db/index.js';
import { likeLiteral } from '../../platform/db/like.js';
import type { KeyRow, ZoneRow } from '../common/tables.js';

export type AuthorityZone = Pick<
  ZoneRow,
  'id' | 'client_id' | 'name' | 'enabled' | 'contact' | 'primary_server' | 'serial' | 'refresh' | 'retry' | 'expiry' | 'nx_ttl' | 'dnssec_enabled'
>;

/** One RRset at a name, with the parts of its enabled records. */
export interface AuthorityRRset {
  name: string;
  type: string;
  ttl: number;
  pickers: unknown[];
  records: { content: unknown[]; meta: Record<string, unknown> }[];
}

const ZONE_NUMBERS = ['id', 'client_id', 'enabled', 'serial', 'refresh', 'retry', 'expiry', 'nx_ttl', 'dnssec_enabled'] as const;
const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');
/** Statements kept per SQL text; IN lists of every length a name can have stay well under this. */
const MAX_STATEMENTS = 1024;

export class AuthorityStore {
  private readonly statements = new Map<string, SQLite.Statement>();

  constructor(private readonly database: Database) {}

  /** Runs a query written with `?` placeholders on whichever engine holds the data. */
  private async rows<R>(text: string, params: unknown[]): Promise<R[]> {
    const sqlite = this.database.raw.sqlite;
    if (sqlite && !sqlite.inTransaction) return this.statement(sqlite, text).all(...params) as R[];
    if (sqlite) return (await this.database.kysely.executeQuery(CompiledQuery.raw(text, params))).rows as R[];
    let n = 0;
    return (
      await this.database.raw.pg!.query(
        text.replace(/\?/g, () => `$${++n}`),
        params,
      )
    ).rows as R[];
  }

  private statement(sqlite: SQLite.Database, text: string): SQLite.Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      if (this.statements.size >= MAX_STATEMENTS) this.statements.clear();
      this.statements.set(text, (statement = sqlite.prepare(text)));
    }
    return statement;
  }

  /**
   * The zone that answers for a name: the hosted zone with the longest name among `candidates` (the
   * name and its ancestors). When several clients host the same name, an enabled one wins, then the oldest.
   */
  async zoneFor(candidates: string[]): Promise<AuthorityZone | undefined> {
    if (candidates.length === 0) return undefined;
    const rows = await this.rows<AuthorityZone>(
      `select id, client_id, name, enabled, contact, primary_server, serial, refresh, retry, expiry, nx_ttl, dnssec_enabled from dns_zones where name in (${placeholders(candidates.length)})`,
      candidates,
    );
    const zones = rows.map((row) => {
      const zone = { ...row };
      for (const key of ZONE_NUMBERS) (zone as Record<string, unknown>)[key] = Number(row[key]);
      return zone;
    });
    zones.sort((a, b) => b.name.length - a.name.length || b.enabled - a.enabled || a.id - b.id);
    return zones[0];
  }

  /** RRsets of a zone at any of `names`, each with its enabled records in order; sets with none are left out. */
  async rrsetsAt(zoneId: number, names: string[]): Promise<AuthorityRRset[]> {
    if (names.length === 0) return [];
    const rows = await this.rows<{ id: number; name: string; type: string; ttl: number; pickers: string; content: string; meta: string }>(
      `select s.id, s.name, s.type, s.ttl, s.pickers, r.content, r.meta from dns_rrsets s join dns_records r on r.rrset_id = s.id
       where s.zone_id = ? and s.name in (${placeholders(names.length)}) and r.enabled = 1 order by s.id, r.position`,
      [zoneId, ...names],
    );
    const sets = new Map<number, AuthorityRRset>();
    for (const row of rows) {
      let set = sets.get(Number(row.id));
      if (!set) sets.set(Number(row.id), (set = { name: row.name, type: row.type, ttl: Number(row.ttl), pickers: JSON.parse(row.pickers), records: [] }));
      set.records.push({ content: JSON.parse(row.content), meta: JSON.parse(row.meta) });
    }
    return [...sets.values()];
  }

  /** Whether the zone has any record set strictly below `name` (then `name` exists, as an empty non-terminal). */
  async hasNamesBelow(zoneId: number, name: string): Promise<boolean> {
    const rows = await this.rows(`select id from dns_rrsets where zone_id = ? and name like ? escape '\\' limit 1`, [zoneId, `%.${likeLiteral(name)}`]);
    return rows.length > 0;
  }

  async key(zoneId: number): Promise<KeyRow | undefined> {
    const [row] = await this.rows<KeyRow>('select * from dns_dnssec_keys where zone_id = ?', [zoneId]);
    if (!row) return undefined;
    return {
      ...row,
      zone_id: Number(row.zone_id),
      client_id: Number(row.client_id),
      algorithm: Number(row.algorithm),
      flags: Number(row.flags),
      key_tag: Number(row.key_tag),
      created_at: Number(row.created_at),
    };
  }
}
