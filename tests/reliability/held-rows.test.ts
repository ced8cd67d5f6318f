// A row another PostgreSQL session holds (a psql transaction left open, another node's long transaction)
// makes wait only the statements that need it. The server stamps an API token's last use with an update
// outside any transaction, on the shared pipelined connections (platform/db/pipelined.ts), where a waiting
// statement once held every statement written after it: requests of every client hung until the other
// session ended.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engineName, type TestAccount, type TestApp } from '../support/app.js';
import { otherSession } from '../support/other-session.js';

let t: TestApp;
let accounts: TestAccount[];

beforeAll(async () => {
  t = await createTestApp();
  accounts = [await t.account(), await t.account(), await t.account()];
  // Each account's first project list makes its default project (a write); the rows are held after it.
  for (const account of accounts) expect((await t.request('GET', '/cloud/v1/projects', { headers: account.headers })).statusCode).toBe(200);
});
afterAll(async () => t.close());

describe.skipIf(engineName !== 'postgres')('API token rows held by another PostgreSQL session', () => {
  it('answers every request meanwhile; the stamps land once the session ends', async () => {
    const holder = await otherSession(t.db);
    let before: { id: number; last_used_at: number }[] = [];
    try {
      await holder.query('begin');
      before = (await holder.query<{ id: number; last_used_at: number }>('select id, last_used_at from api_tokens for update')).rows;
      // A token's use is stamped at most once a minute: the next request of each account stamps it again.
      t.clock.advance(61_000);
      for (let round = 0; round < 4; round += 1) {
        const answers = await Promise.all(
          accounts.flatMap((account) => Array.from({ length: 4 }, () => t.request('GET', '/cloud/v1/projects', { headers: account.headers }))),
        );
        expect(answers.map((answer) => answer.statusCode)).toEqual(answers.map(() => 200));
      }
      const { rows: meanwhile } = await holder.query<{ id: number; last_used_at: number }>('select id, last_used_at from api_tokens');
      expect(meanwhile).toEqual(expect.arrayContaining(before));
    } finally {
      await holder.query('rollback');
      await holder.end();
    }
    // The stamps were waiting for the rows, not lost.
    const stampedAfter = Math.max(...before.map((row) => row.last_used_at ?? 0));
    await expect
      .poll(async () => (await t.db.kysely.selectFrom('api_tokens').select('id').where('last_used_at', '>', stampedAfter).execute()).length)
      .toBe(accounts.length);
  }, 20_000);
});
