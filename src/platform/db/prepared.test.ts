import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { preparedOnce } from './index.js';

describe('SQLite statements for Kysely', () => {
  it('prepares each SQL text once, keeps the 1,000 most recently used, and closes the connection', () => {
    const connection = new SQLite(':memory:');
    const prepared = preparedOnce(connection);
    const first = prepared.prepare('select 1 as n');
    expect(prepared.prepare('select 1 as n')).toBe(first);
    expect(first.get()).toEqual({ n: 1 });
    for (let i = 0; i < 1_000; i += 1) prepared.prepare(`select ${i + 2} as n`);
    // 1,001 texts were prepared: the least recently used (the first) went.
    expect(prepared.prepare('select 1 as n')).not.toBe(first);
    prepared.close();
    expect(connection.open).toBe(false);
  });
});
