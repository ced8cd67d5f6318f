// The tables of migration 008 as both sides of the log see them: block headers as rows, and a
// PostgreSQL transaction helper. Shared by the reads reader threads run (reads.ts) and the main thread's
// writes (store.ts), so neither imports the other.
import type pg from 'pg';
import type { BlockHeader } from './format.js';

export const HEADER_COLUMNS = 'block_id, client_id, hour, n, first_time, last_time, stamp';

export interface HeaderRow {
  block_id: number;
  client_id: number;
  hour: number;
  n: number;
  first_time: number;
  last_time: number;
  stamp: number;
}

export const toHeader = (r: HeaderRow): BlockHeader => ({
  blockId: Number(r.block_id),
  clientId: Number(r.client_id),
  hour: Number(r.hour),
  n: Number(r.n),
  firstTime: Number(r.first_time),
  lastTime: Number(r.last_time),
  stamp: Number(r.stamp),
});

/** Runs `work` in a transaction on one connection (`begin` says which kind), rolled back if it throws. */
export async function pgTransaction<T>(pool: pg.Pool, begin: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
