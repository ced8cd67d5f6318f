// The compact route index the server starts from must say what the catalogue says; and the engine's
// records are a client's data like any other: exported, imported and reset with it.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deriveRouteIndex } from '../../src/catalogue-engine/route-index.js';
import { formatRouteIndex, ROUTE_INDEX_FILE } from '../../src/platform/catalogue/routes.js';
import { readCatalogue, referenceFile } from '../../src/platform/catalogue/index.js';
import { createTestApp } from '../support/app.js';

describe('reference/catalogue-routes.json', () => {
  it('is the derivation of reference/catalogue.json (run npx tsx scripts/catalogue-routes.ts after updating the catalogue)', () => {
    const catalogue = readCatalogue();
    const fresh = formatRouteIndex(deriveRouteIndex(catalogue), catalogue.source.sha256);
    expect(fresh === fs.readFileSync(referenceFile(ROUTE_INDEX_FILE), 'utf8')).toBe(true);
  });
});

describe('engine records in state snapshots', () => {
  it('are exported and reset per client, and come back on import', async () => {
    const t = await createTestApp();
    try {
      const a = await t.account();
      const b = await t.account();
      const mine = (await t.request('POST', '/fastedge/v1/kv', { headers: a.headers, body: { name: 'a-store' } })).json();
      const theirs = (await t.request('POST', '/fastedge/v1/kv', { headers: b.headers, body: { name: 'b-store' } })).json();
      const exported = (await t.request('GET', `/_edgeplane/state?clientId=${a.clientId}`, { headers: t.operator })).json();
      expect(exported.tables.catalogue_records.map((r: { record_key: string }) => r.record_key)).toEqual([String(mine.id)]);
      expect((await t.request('POST', '/_edgeplane/state/reset', { headers: t.operator, body: { clientId: a.clientId } })).statusCode).toBeLessThan(300);
      // The client itself went (its tokens too); its records with it, the other client's stay.
      const left = await t.db.kysely.selectFrom('catalogue_records').select(['client_id', 'record_key']).execute();
      expect(left.map((r) => r.record_key)).toEqual([String(theirs.id)]);
      expect((await t.request('GET', `/fastedge/v1/kv/${theirs.id}`, { headers: b.headers })).statusCode).toBe(200);
      expect((await t.request('PUT', '/_edgeplane/state', { headers: t.operator, body: exported })).statusCode).toBeLessThan(300);
      expect((await t.request('GET', `/fastedge/v1/kv/${mine.id}`, { headers: a.headers })).json().name).toBe('a-store');
    } finally {
      await t.close();
    }
  });
});
