// Writes of the request-event log and the reads of its maintenance, on the main connection (tables of
// migration 008: blocks, their parts, request ids): a batch is one transaction on the raw driver;
// compaction and retention replace blocks only if they are still the ones they read (their stamp).
import type SQLite from 'better-sqlite3';
import type pg from 'pg';
import type { Database } from '../../../platform/db/index.js';
import { type BlockHeader, type EventRow, FIELD_PLACE, floorHour, PARTS } from './format.js';
import { EventBatch } from './batch.js';
import { type EncodedBlock, encodeBlocks } from './encode.js';
import { decodePart, decodeRows, type TextColumn } from './decode.js';
import { HEADER_COLUMNS, type HeaderRow, pgTransaction, toHeader } from './tables.js';
import { retryWhileBusy } from '../../../platform/db/sqlite-busy.js';

/** Random per block: with the id, what caches of decoded blocks are keyed by. */
const newStamp = () => Math.floor(Math.random() * Number.MAX_SAFE_INTEGER);

/** Request ids per multi-row INSERT on SQLite (three parameters each). */
const ID_ROWS = 64;

/** SQLite's page cache of the main connection while the log is bulk-written (KiB): the id index stays in memory. */
const BULK_CACHE_KIB = 262_144;
/** How long after a batch the cache keeps that size: the batches of one load (a generation, an NDJSON body) share it. */
export const BULK_CACHE_LINGER_MS = 5_000;

export class BlockStore {
  private sqliteInsert?: (batch: EventBatch) => boolean[];
  private sqliteReplace?: (
    old: readonly BlockHeader[],
    blocks: readonly EncodedBlock[],
    keepId: number,
    droppedIds: readonly { clientId: number; id: string }[],
  ) => void;

  private readonly bulkCache: BulkPageCache | undefined;

  constructor(private readonly database: Database) {
    this.bulkCache = database.raw.sqlite && new BulkPageCache(database.raw.sqlite);
  }

  /** Stores a batch atomically: ids first (a duplicate id is refused), then the blocks. Per event: stored? */
  async insertBatch(batch: EventBatch): Promise<boolean[]> {
    if (batch.n === 0) return [];
    if (this.database.raw.sqlite) {
      this.bulkCache!.extend();
      const insert = (this.sqliteInsert ??= this.prepareSqliteInsert(this.database.raw.sqlite));
      return retryWhileBusy(() => insert(batch));
    }
    return this.insertPg(batch);
  }

  private prepareSqliteInsert(db: SQLite.Database): (batch: EventBatch) => boolean[] {
    const into = 'insert or ignore into waap_event_ids (client_id, id, hour) values';
    // RETURNING lists the rows actually inserted, so a chunk with a duplicate says exactly which.
    const manyIds = db.prepare(`${into} ${Array(ID_ROWS).fill('(?,?,?)').join(',')} returning id`).raw();
    const oneId = db.prepare(`${into} (?,?,?)`);
    const writeBlock = this.sqliteBlockWriter(db);
    const params: unknown[] = new Array(3 * ID_ROWS);
    return db.transaction((batch: EventBatch) => {
      const { n, clientIds, times } = batch;
      const inserted: boolean[] = new Array(n).fill(true);
      let i = 0;
      for (; i + ID_ROWS <= n; i += ID_ROWS) {
        for (let j = 0; j < ID_ROWS; j += 1) {
          params[3 * j] = clientIds[i + j];
          params[3 * j + 1] = batch.id(i + j);
          params[3 * j + 2] = floorHour(times[i + j]);
        }
        const stored = manyIds.all(params) as [string][];
        if (stored.length === ID_ROWS) continue;
        // A duplicate: of an id stored before, or of an earlier event of the chunk (the first one wins).
        const fresh = new Set(stored.map(([id]) => id));
        for (let j = i; j < i + ID_ROWS; j += 1) inserted[j] = fresh.delete(batch.id(j));
      }
      for (; i < n; i += 1) inserted[i] = oneId.run(clientIds[i], batch.id(i), floorHour(times[i])).changes === 1;
      for (const block of encodeBlocks(batch, inserted)) writeBlock(block);
      return inserted;
    });
  }

  /** Writes one encoded block and its parts; returns its id. */
  private sqliteBlockWriter(db: SQLite.Database): (block: EncodedBlock, blockId?: number) => number {
    const insertBlock = db.prepare(
      'insert into waap_event_blocks (block_id, client_id, hour, n, first_time, last_time, stamp, summary) values (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const insertParts = db.prepare(`insert into waap_event_parts (block_id, part, data) values ${PARTS.map(() => '(?, ?, ?)').join(', ')}`);
    const params: unknown[] = new Array(3 * PARTS.length);
    return (block, blockId) => {
      const id = Number(
        insertBlock.run(blockId ?? null, block.clientId, block.hour, block.n, block.firstTime, block.lastTime, newStamp(), block.summary).lastInsertRowid,
      );
      block.parts.forEach((data, part) => {
        params[3 * part] = id;
        params[3 * part + 1] = part;
        params[3 * part + 2] = data;
      });
      insertParts.run(params);
      return id;
    };
  }

  private async insertPg(batch: EventBatch): Promise<boolean[]> {
    const events = Array.from({ length: batch.n }, (_, i) => i);
    return pgTransaction(this.database.raw.pg!, 'begin', async (client) => {
      const ids = await client.query(
        `insert into waap_event_ids (client_id, id, hour) select * from unnest($1::bigint[], $2::text[], $3::bigint[])
         on conflict (client_id, id) do nothing returning client_id, id`,
        [Array.from(batch.clientIds.subarray(0, batch.n)), events.map((i) => batch.id(i)), events.map((i) => floorHour(batch.times[i]))],
      );
      const fresh = new Set(ids.rows.map((r: { client_id: number; id: string }) => `${r.client_id}|${r.id}`));
      const inserted = events.map((i) => fresh.delete(`${batch.clientIds[i]}|${batch.id(i)}`));
      await writePgBlocks(client, encodeBlocks(batch, inserted));
      return inserted;
    });
  }

  /** Blocks holding events older than `cutoff` (of any client), oldest first, at most `limit`. */
  async expiredBlocks(cutoff: number, limit: number): Promise<BlockHeader[]> {
    const rows = await this.select<HeaderRow>(
      `select ${HEADER_COLUMNS} from waap_event_blocks where hour <= $1 and first_time < $2 order by hour, block_id limit $3`,
      [floorHour(cutoff), cutoff, limit],
    );
    return rows.map(toHeader);
  }

  /** A client's blocks of one hour, oldest first. */
  async hourBlocks(clientId: number, hour: number): Promise<BlockHeader[]> {
    const rows = await this.select<HeaderRow>(`select ${HEADER_COLUMNS} from waap_event_blocks where client_id = $1 and hour = $2 order by block_id`, [
      clientId,
      hour,
    ]);
    return rows.map(toHeader);
  }

  /** Hours of clients holding at least `minBlocks` blocks of fewer than `maxEvents` events each. */
  async fragmentedHours(minBlocks: number, maxEvents: number, limit: number): Promise<{ clientId: number; hour: number }[]> {
    const rows = await this.select<{ client_id: number; hour: number }>(
      'select client_id, hour from waap_event_blocks where n < $1 group by client_id, hour having count(*) >= $2 order by hour desc limit $3',
      [maxEvents, minBlocks, limit],
    );
    return rows.map((r) => ({ clientId: Number(r.client_id), hour: Number(r.hour) }));
  }

  /**
   * Every event of the blocks, as rows, in their stored order (block by block); null when one of them was
   * replaced or removed since its header was read (another node's compaction or retention on the same
   * PostgreSQL database): the parts are read with the block's current stamp, in one statement, so parts
   * of a block rewritten under the same id are never decoded with the old header.
   */
  async readRows(blocks: readonly BlockHeader[]): Promise<EventRow[][] | null> {
    if (blocks.length === 0) return [];
    const rows = await this.select<{ block_id: number; stamp: number; part: number; data: Buffer }>(
      this.database.engine === 'sqlite'
        ? 'select p.block_id, b.stamp, p.part, p.data from waap_event_parts p join waap_event_blocks b on b.block_id = p.block_id where p.block_id in (select value from json_each($1))'
        : 'select p.block_id, b.stamp, p.part, p.data from waap_event_parts p join waap_event_blocks b on b.block_id = p.block_id where p.block_id = any($1::bigint[])',
      [this.database.engine === 'sqlite' ? JSON.stringify(blocks.map((b) => b.blockId)) : blocks.map((b) => b.blockId)],
    );
    const stamps = new Map(blocks.map((b) => [b.blockId, b.stamp]));
    const byBlock = new Map<number, Buffer[]>();
    for (const row of rows) {
      if (Number(row.stamp) !== stamps.get(Number(row.block_id))) return null;
      const parts = byBlock.get(Number(row.block_id)) ?? [];
      parts[row.part] = row.data;
      byBlock.set(Number(row.block_id), parts);
    }
    if (blocks.some((b) => (byBlock.get(b.blockId) ?? []).filter(Boolean).length !== PARTS.length)) return null;
    return blocks.map((b) =>
      decodeRows(
        b,
        byBlock.get(b.blockId)!.map((raw) => decodePart(raw)),
      ),
    );
  }

  /** The request ids a block holds. */
  async blockIds(block: BlockHeader): Promise<string[]> {
    const rows = await this.select<{ data: Buffer }>('select data from waap_event_parts where block_id = $1 and part = $2', [
      block.blockId,
      FIELD_PLACE.id.part,
    ]);
    if (rows.length === 0) return [];
    const column = decodePart(rows[0].data).columns[FIELD_PLACE.id.index] as TextColumn;
    return column.texts();
  }

  /**
   * Replaces blocks by the given rows (kept in the order given for equal times), in one transaction:
   * the rows go to blocks taking the largest of the old ids, so the replaced events keep their place
   * among the other blocks of their hour; the ids of events not kept are removed. Returns false, having
   * changed nothing, when one of the old blocks was replaced or removed meanwhile (its stamp changed).
   */
  async replaceBlocks(old: readonly BlockHeader[], rows: readonly EventRow[], droppedIds: readonly { clientId: number; id: string }[]): Promise<boolean> {
    const blocks = encodeBlocks(EventBatch.ofRows(rows));
    const keepId = Math.max(...old.map((b) => b.blockId));
    const sqlite = this.database.raw.sqlite;
    if (sqlite) {
      try {
        const replace = (this.sqliteReplace ??= this.prepareSqliteReplace(sqlite));
        await retryWhileBusy(() => replace(old, blocks, keepId, droppedIds));
        return true;
      } catch (error) {
        if (error instanceof BlockChanged) return false;
        throw error;
      }
    }
    try {
      await pgTransaction(this.database.raw.pg!, 'begin', async (client) => {
        const ids = old.map((b) => b.blockId);
        const gone = await client.query('delete from waap_event_blocks where (block_id, stamp) in (select * from unnest($1::bigint[], $2::bigint[]))', [
          ids,
          old.map((b) => b.stamp),
        ]);
        if (gone.rowCount !== old.length) throw new BlockChanged();
        await client.query('delete from waap_event_parts where block_id = any($1::bigint[])', [ids]);
        if (droppedIds.length > 0) {
          await client.query('delete from waap_event_ids where (client_id, id) in (select * from unnest($1::bigint[], $2::text[]))', [
            droppedIds.map((d) => d.clientId),
            droppedIds.map((d) => d.id),
          ]);
        }
        await writePgBlocks(client, blocks, keepId);
      });
      return true;
    } catch (error) {
      if (error instanceof BlockChanged) return false;
      throw error;
    }
  }

  /** replaceBlocks on SQLite, as one transaction; throws BlockChanged when an old block is gone. */
  private prepareSqliteReplace(db: SQLite.Database) {
    const writeBlock = this.sqliteBlockWriter(db);
    const deleteBlock = db.prepare('delete from waap_event_blocks where block_id = ? and stamp = ?');
    const deleteParts = db.prepare('delete from waap_event_parts where block_id = ?');
    const deleteId = db.prepare('delete from waap_event_ids where client_id = ? and id = ?');
    return db.transaction(
      (old: readonly BlockHeader[], blocks: readonly EncodedBlock[], keepId: number, droppedIds: readonly { clientId: number; id: string }[]) => {
        for (const b of old) {
          if (deleteBlock.run(b.blockId, b.stamp).changes !== 1) throw new BlockChanged();
          deleteParts.run(b.blockId);
        }
        for (const d of droppedIds) deleteId.run(d.clientId, d.id);
        blocks.forEach((block, i) => writeBlock(block, i === blocks.length - 1 ? keepId : undefined));
      },
    );
  }

  private async select<R>(text: string, params: unknown[]): Promise<R[]> {
    const sqlite = this.database.raw.sqlite;
    if (sqlite) return sqlite.prepare(text.replace(/\$\d+/g, '?')).all(...params) as R[];
    return (await this.database.raw.pg!.query(text, params)).rows as R[];
  }
}

/** Writes blocks on PostgreSQL: ids taken from the sequence first (the last block may keep `lastId`). */
async function writePgBlocks(client: pg.PoolClient, blocks: readonly EncodedBlock[], lastId?: number): Promise<void> {
  if (blocks.length === 0) return;
  const fresh = lastId === undefined ? blocks.length : blocks.length - 1;
  const taken =
    fresh > 0
      ? (await client.query("select nextval(pg_get_serial_sequence('waap_event_blocks', 'block_id')) as id from generate_series(1, $1)", [fresh])).rows.map(
          (r: { id: number }) => Number(r.id),
        )
      : [];
  const ids = lastId === undefined ? taken : [...taken, lastId];
  await client.query(
    `insert into waap_event_blocks (block_id, client_id, hour, n, first_time, last_time, stamp, summary)
     select * from unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::int[], $5::bigint[], $6::bigint[], $7::bigint[], $8::text[])`,
    [
      ids,
      blocks.map((b) => b.clientId),
      blocks.map((b) => b.hour),
      blocks.map((b) => b.n),
      blocks.map((b) => b.firstTime),
      blocks.map((b) => b.lastTime),
      blocks.map(() => newStamp()),
      blocks.map((b) => b.summary),
    ],
  );
  const partIds: number[] = [];
  const partNumbers: number[] = [];
  const data: Buffer[] = [];
  blocks.forEach((block, i) =>
    block.parts.forEach((buffer, part) => {
      partIds.push(ids[i]);
      partNumbers.push(part);
      data.push(buffer);
    }),
  );
  await client.query('insert into waap_event_parts (block_id, part, data) select * from unnest($1::bigint[], $2::int[], $3::bytea[])', [
    partIds,
    partNumbers,
    data,
  ]);
}

/** A block to replace was replaced or removed by someone else first. */
class BlockChanged extends Error {}

/**
 * The main connection's page cache, large while events are being loaded and back to the connection's own
 * size a while after. Block parts are written as large blobs, and at millions of events a 2 MB cache
 * re-read the id index's pages for every batch; but a cache kept large for good grew the server's RSS with
 * the database, to 256 MiB, whatever the load (bench/memory's 10-minute hold: +33 MiB, with the V8 heap
 * flat). SQLite frees the pages past the size when it shrinks.
 */
class BulkPageCache {
  /** The connection's own setting, as it reads back (negative: KiB; positive: pages). */
  private readonly resting: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly db: SQLite.Database) {
    this.resting = Number(db.pragma('cache_size', { simple: true }));
  }

  /** A batch is being written: the large cache, until BULK_CACHE_LINGER_MS after the last batch. */
  extend(): void {
    if (this.timer) clearTimeout(this.timer);
    else this.db.pragma(`cache_size = -${BULK_CACHE_KIB}`);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.db.open) this.db.pragma(`cache_size = ${this.resting}`);
    }, BULK_CACHE_LINGER_MS);
    this.timer.unref();
  }
}
