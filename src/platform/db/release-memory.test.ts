// What the database keeps only to read faster goes back once the server is idle: SQLite's page cache is
// emptied by the idle collection's full step, before the C heap's free pages are given back.
import { describe, expect, it } from 'vitest';
import { runWithExposedGc } from '../../../tests/support/expose-gc-script.js';
import { glibcNativeHeap } from '../native-heap.js';
import { openDatabase } from './index.js';

const glibc = glibcNativeHeap() !== undefined;

/**
 * In a process of its own: a file database with 12 MB of rows, all read (the page cache holds them), then
 * the idle collection's full step, with the database's release (`release`) or without. The RSS in MiB.
 */
async function pageCacheRun(release: boolean): Promise<{ cached: number; after: number; rows: number }> {
  const script = `
    import fs from 'node:fs';
    import os from 'node:os';
    import path from 'node:path';
    import { openDatabase } from './src/platform/db/index.ts';
    import { exposedCollector } from './src/platform/idle-collection.ts';
    const rss = () => Number(/^VmRSS:\\s+(\\d+)/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-release-'));
    const db = await openDatabase({ dataDir: dir, memory: false });
    const raw = db.raw.sqlite;
    raw.exec('create table pages (id integer primary key, v blob)');
    const insert = raw.prepare('insert into pages (v) values (?)');
    raw.transaction(() => { for (let i = 0; i < 3000; i++) insert.run(Buffer.alloc(4000, i % 251)); })();
    const rows = raw.prepare('select count(*) as n from pages where length(v) = 4000').get().n;
    let releasing = false;
    const collector = exposedCollector(() => releasing && db.releaseMemory());
    collector.full();
    const cached = rss();
    releasing = ${release};
    collector.full();
    console.log(JSON.stringify({ cached, after: rss(), rows }));
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  `;
  return JSON.parse(await runWithExposedGc(script)) as { cached: number; after: number; rows: number };
}

describe("the database's memory kept for speed", () => {
  // The first full step (no release) loads the FFI library and trims what the inserts freed; the second
  // shows what the release adds. Without it, the cache's 12 MB stay.
  it.skipIf(!glibc)(
    "SQLite's page cache goes back at the idle collection's full step",
    async () => {
      const [kept, released] = [await pageCacheRun(false), await pageCacheRun(true)];
      expect(kept.rows).toBe(3_000);
      expect(released.rows).toBe(3_000);
      // Other memory freed meanwhile may go back in both runs (a few MiB on a busy machine): what counts
      // is what the release adds to it.
      expect(released.cached - released.after).toBeGreaterThan(kept.cached - kept.after + 8);
    },
    60_000,
  );

  it('leaves the data of an in-memory database, and reads the same rows after a release', async () => {
    const db = await openDatabase({ dataDir: '', memory: true });
    try {
      const raw = db.raw.sqlite!;
      raw.exec('create table kept (id integer primary key, v text)');
      const insert = raw.prepare('insert into kept (v) values (?)');
      raw.transaction(() => {
        for (let i = 0; i < 1000; i += 1) insert.run(`row ${i}`);
      })();
      db.releaseMemory();
      expect(raw.prepare('select count(*) as n, max(v) as last from kept').get()).toEqual({ n: 1000, last: 'row 999' });
    } finally {
      await db.close();
    }
  });
});
