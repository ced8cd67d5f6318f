// Analytic reads of a SQLite file run in worker threads with their own read-only connections; they must
// see what the main connection has just written, and give the same answers as the main thread would.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engineName, type TestApp } from '../../../tests/support/app.js';
import { generateRecords } from '../records/generator.js';
import { openDatabase } from '../../platform/db/index.js';
import { createReaders } from '../../platform/db/readers.js';
import { DAY, gql, ingest, totalsOf } from '../../../tests/support/cdn-analytics.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-readers-'));
let t: TestApp;

beforeAll(async () => {
  // A data directory instead of memory: on SQLite this is the worker-thread path.
  t = await createTestApp({ memory: false, dataDir: dir });
  t.clock.freeze();
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('analytics on a database file', () => {
  it('answers from records written a moment before, by every query shape', async () => {
    const a = await t.account();
    const now = t.clock.now();
    const records = [...generateRecords({ clientId: a.clientId, records: 800, days: 2, end: now, seed: 5 })];
    await ingest(t, records);
    const res = await gql(
      t,
      a,
      `{ statistics(from: "${new Date(now - 2 * DAY).toISOString()}", to: "${new Date(now).toISOString()}", groupBy: [COUNTRY]) { totals { requests traffic uniqueVisitors } rows { requests } rowCount } }`,
    );
    const stats = res.json().data.statistics;
    expect(stats.totals).toEqual(totalsOf(records));
    expect(stats.rows.reduce((s: number, r: { requests: number }) => s + r.requests, 0)).toBe(records.length);
    expect(stats.rowCount).toBe(new Set(records.map((r) => r.country)).size);
  });

  it.runIf(engineName === 'sqlite')('runs the reads in worker threads, errors included', async () => {
    const file = path.join(dir, 'direct');
    const db = await openDatabase({ dataDir: file, memory: false });
    await sql`create table n (v integer)`.execute(db.kysely);
    await sql`insert into n values (1), (2), (3)`.execute(db.kysely);
    const readers = createReaders(db, { threads: 2 });
    try {
      expect(readers.offMainThread).toBe(true);
      const rows = await readers.all<{ total: number }>(sql<{ total: number }>`select sum(v) as total from n where v > ${1}`.compile(db.kysely));
      expect(rows).toEqual([{ total: 5 }]);
      await expect(readers.all(sql`select * from missing`.compile(db.kysely))).rejects.toThrow(/no such table: missing/);
    } finally {
      await readers.close();
      await db.close();
    }
  });

  it('in-memory SQLite and PostgreSQL read on the main connection', async () => {
    const db = await openDatabase({ dataDir: dir, memory: true });
    const readers = createReaders(db, { threads: 2 });
    expect(readers.offMainThread).toBe(false);
    expect(await readers.all(sql`select 1 as one`.compile(db.kysely))).toEqual([{ one: 1 }]);
    await db.close();
  });
});
