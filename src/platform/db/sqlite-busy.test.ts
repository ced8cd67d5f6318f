// Another process holding the SQLite file's write lock: our writes wait for it between turns of the event
// loop, not inside a call; reads and timers go on meanwhile, and the writes land once the lock is free.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from './index.js';
import { toAppError } from '../error-handler.js';
import { retryWhileBusy } from './sqlite-busy.js';

const dirs: string[] = [];
const opened: Database[] = [];
afterAll(async () => {
  for (const db of opened) await db.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A database in a file of its own with one table, and another connection to the file (another process's). */
async function fileWithOther(): Promise<{ db: Database; other: SQLite.Database }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-busy-'));
  dirs.push(dir);
  const db = await openDatabase({ dataDir: dir, memory: false });
  opened.push(db);
  await sql`create table notes (id integer primary key, text text not null)`.execute(db.kysely);
  await sql`insert into notes (text) values ('first')`.execute(db.kysely);
  const other = new SQLite(path.join(dir, 'edgeplane.sqlite'));
  other.pragma('busy_timeout = 0');
  return { db, other };
}

/** How late a 20 ms timer fires while `during` runs. */
async function timerLateness(during: Promise<unknown>): Promise<number> {
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 20));
  const late = performance.now() - started - 20;
  await during;
  return late;
}

describe('writes while another process holds the SQLite write lock', () => {
  it('wait without stopping the event loop; reads answer meanwhile; the writes land once it is free', async () => {
    const { db, other } = await fileWithOther();
    other.exec('begin immediate');
    const insert = sql`insert into notes (text) values ('outside a transaction')`.execute(db.kysely);
    const transaction = db.kysely.transaction().execute(async (trx) => {
      await sql`insert into notes (text) values ('in a transaction')`.execute(trx);
    });
    let settled = false;
    void Promise.all([insert, transaction]).then(() => (settled = true));
    expect(await timerLateness(new Promise((resolve) => setTimeout(resolve, 100)))).toBeLessThan(50);
    const read = await sql<{ n: number }>`select count(*) as n from notes`.execute(db.kysely);
    expect(read.rows[0].n).toBe(1);
    expect(settled).toBe(false);
    other.exec('commit');
    await Promise.all([insert, transaction]);
    const texts = (await sql<{ text: string }>`select text from notes order by id`.execute(db.kysely)).rows.map((row) => row.text);
    expect(texts).toEqual(['first', 'outside a transaction', 'in a transaction']);
    other.close();
  });

  it('begins transactions IMMEDIATE: the write lock is ours from BEGIN, so a statement inside is never refused', async () => {
    const { db, other } = await fileWithOther();
    const order: string[] = [];
    const transaction = db.kysely.transaction().execute(async (trx) => {
      await sql`select count(*) from notes`.execute(trx);
      order.push('began');
      // Another process asking for the lock now finds it taken (a deferred BEGIN would only have read).
      expect(() => other.exec('begin immediate')).toThrow(/busy|locked/);
      await sql`insert into notes (text) values ('ours')`.execute(trx);
    });
    await transaction;
    expect(order).toEqual(['began']);
    other.close();
  });

  it('fail as busy after the wait, answered as a 503 to retry', async () => {
    let tries = 0;
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    const started = performance.now();
    await expect(
      retryWhileBusy(() => {
        tries += 1;
        throw busy;
      }, 120),
    ).rejects.toBe(busy);
    const answer = toAppError(busy);
    expect([answer.status, answer.headers, answer.message]).toEqual([
      503,
      { 'retry-after': '1' },
      'What this request writes is held by another database session; retry shortly.',
    ]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(60);
    expect(tries).toBeGreaterThan(2);
    await expect(retryWhileBusy(() => Promise.reject(new Error('other')), 1_000)).rejects.toThrow('other');
  });
});
