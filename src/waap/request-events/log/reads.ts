// The reads queries need (see reader.ts), one class per engine: made by a reader thread on its own
// connection, or on the main connection when queries run there. Nothing here writes, so a reader thread
// loads no encoder.
import type SQLite from 'better-sqlite3';
import type pg from 'pg';
import type { BlockHeader } from './format.js';
import type { BlockReads } from './reader.js';
import { HEADER_COLUMNS, type HeaderRow, pgTransaction, toHeader } from './tables.js';

export class SqliteBlockReads implements BlockReads<false> {
  private readonly blocksStatement;
  private readonly summariesStatement;
  private readonly partsStatement;
  private readonly idsStatement;
  private readonly begin;
  private readonly commit;

  constructor(db: SQLite.Database) {
    this.blocksStatement = db.prepare(
      `select ${HEADER_COLUMNS} from waap_event_blocks where client_id = ? and hour >= ? and hour < ? order by hour desc, block_id desc`,
    );
    // Lists of ids travel as one JSON parameter: one prepared statement whatever their number.
    this.summariesStatement = db.prepare('select block_id, summary from waap_event_blocks where block_id in (select value from json_each(?))');
    this.partsStatement = db.prepare(
      'select block_id, part, data from waap_event_parts where block_id in (select value from json_each(?)) and part in (select value from json_each(?))',
    );
    this.idsStatement = db.prepare('select id, hour from waap_event_ids where client_id = ? and id in (select value from json_each(?))');
    this.begin = db.prepare('begin');
    this.commit = db.prepare('commit');
  }

  blocks(clientId: number, fromHour: number, toHour: number): BlockHeader[] {
    return (this.blocksStatement.all(clientId, fromHour, toHour) as HeaderRow[]).map(toHeader);
  }

  summaries(blockIds: readonly number[]) {
    return this.summariesStatement.all(JSON.stringify(blockIds)) as { block_id: number; summary: string }[];
  }

  parts(blockIds: readonly number[], parts: readonly number[]) {
    return this.partsStatement.all(JSON.stringify(blockIds), JSON.stringify(parts)) as { block_id: number; part: number; data: Buffer }[];
  }

  idHours(clientId: number, ids: readonly string[]) {
    return this.idsStatement.all(clientId, JSON.stringify(ids)) as { id: string; hour: number }[];
  }

  /** Runs `read` on one snapshot of the database (a reader thread's own connection only). */
  snapshot<T>(read: () => T): T {
    this.begin.run();
    try {
      return read();
    } finally {
      this.commit.run();
    }
  }
}

type PgQueryable = Pick<pg.Pool, 'query'>;

export class PostgresBlockReads implements BlockReads<true> {
  constructor(private readonly db: PgQueryable) {}

  async blocks(clientId: number, fromHour: number, toHour: number): Promise<BlockHeader[]> {
    const result = await this.db.query(
      `select ${HEADER_COLUMNS} from waap_event_blocks where client_id = $1 and hour >= $2 and hour < $3 order by hour desc, block_id desc`,
      [clientId, fromHour, toHour],
    );
    return (result.rows as HeaderRow[]).map(toHeader);
  }

  async summaries(blockIds: readonly number[]) {
    return (await this.db.query('select block_id, summary from waap_event_blocks where block_id = any($1::bigint[])', [blockIds])).rows as {
      block_id: number;
      summary: string;
    }[];
  }

  async parts(blockIds: readonly number[], parts: readonly number[]) {
    const result = await this.db.query('select block_id, part, data from waap_event_parts where block_id = any($1::bigint[]) and part = any($2::int[])', [
      blockIds,
      parts,
    ]);
    return result.rows as { block_id: number; part: number; data: Buffer }[];
  }

  async idHours(clientId: number, ids: readonly string[]) {
    return (await this.db.query('select id, hour from waap_event_ids where client_id = $1 and id = any($2::text[])', [clientId, ids])).rows as {
      id: string;
      hour: number;
    }[];
  }

  /**
   * Runs `read` on one snapshot: a read-only repeatable-read transaction on one connection. With a
   * deadline, no statement of it may run past that time (the server cancels it).
   */
  static snapshot<T>(pool: pg.Pool, read: (reads: PostgresBlockReads) => Promise<T>, deadline?: number): Promise<T> {
    return pgTransaction(pool, 'begin isolation level repeatable read read only', async (client) => {
      if (deadline !== undefined) await client.query(`set local statement_timeout = ${Math.max(1, Math.ceil(deadline - Date.now()))}`);
      return read(new PostgresBlockReads(client));
    });
  }
}
