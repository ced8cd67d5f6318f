// The catalogue engine's records have quotas per client: a collection, and all collections together.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORDS_PER_COLLECTION } from '../../src/catalogue-engine/service.js';
import { createTestApp, engineName, type TestAccount, type TestApp } from '../support/app.js';

let t: TestApp;
let me: TestAccount;
let other: TestAccount;
beforeAll(async () => {
  t = await createTestApp();
  me = await t.account();
  other = await t.account();
});
afterAll(async () => t?.close());

describe(`catalogue engine quotas (${engineName})`, () => {
  it('refuses a record past the collection quota with the declared status, and takes one again after a delete', async () => {
    const first = await t.request('POST', '/fastedge/v1/kv', { headers: me.headers, body: { name: 'kv-0' } });
    expect(first.statusCode).toBe(200);
    const row = await t.db.kysely.selectFrom('catalogue_records').selectAll().where('client_id', '=', me.clientId).executeTakeFirstOrThrow();
    // Fill the collection up to its quota directly (thousands of API calls would only slow the test).
    const copies = Array.from({ length: RECORDS_PER_COLLECTION - 1 }, (_, i) => {
      const { id: _id, ...rest } = row as Record<string, unknown>;
      return { ...rest, record_key: `filler-${i}`, path: `${row.path}-filler-${i}` };
    });
    for (let i = 0; i < copies.length; i += 500)
      await t.db.kysely
        .insertInto('catalogue_records')
        .values(copies.slice(i, i + 500))
        .execute();
    const refused = await t.request('POST', '/fastedge/v1/kv', { headers: me.headers, body: { name: 'one-too-many' } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toMatch(/5000 Kv records, the most Edgeplane keeps/);
    // Another client is not affected.
    expect((await t.request('POST', '/fastedge/v1/kv', { headers: other.headers, body: { name: 'theirs' } })).statusCode).toBe(200);
    // A delete makes room.
    expect((await t.request('DELETE', `/fastedge/v1/kv/${first.json().id}`, { headers: me.headers })).statusCode).toBeLessThan(300);
    expect((await t.request('POST', '/fastedge/v1/kv', { headers: me.headers, body: { name: 'fits-again' } })).statusCode).toBe(200);
  });
});
