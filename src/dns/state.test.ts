// The DNS tables in state snapshots: a client's zones, RRsets, records, DNSSEC key, query counters and
// network mappings are exported, reset and imported with it (every table carries client_id), and the
// DNS answers follow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../tests/support/app.js';
import { Resolver } from './resolver/resolve.js';
import { AuthorityStore } from './resolver/store.js';
import { CountStore } from './statistics/store.js';

const DNS_TABLES = ['dns_zones', 'dns_rrsets', 'dns_records', 'dns_dnssec_keys', 'dns_query_counts', 'dns_network_mappings'];

let t: TestApp;
let a: TestAccount;
let b: TestAccount;
let resolver: Resolver;

const call = (method: string, url: string, body?: unknown, account = a) => t.request(method, url, { headers: account.headers, body });

async function fill(account: TestAccount, zone: string): Promise<void> {
  await call('POST', '/dns/v2/zones', { name: zone }, account);
  await call('POST', `/dns/v2/zones/${zone}/www.${zone}/A`, { resource_records: [{ content: ['192.0.2.1'] }] }, account);
  await call('PATCH', `/dns/v2/zones/${zone}/dnssec`, { enabled: true }, account);
  await call('POST', '/dns/v2/network-mappings', { name: `map-${zone}`, mapping: [{ tags: ['x'], cidr4: ['192.0.2.0/24'] }] }, account);
  const id = Number(
    (await t.db.kysely.selectFrom('dns_zones').select('id').where('name', '=', zone).where('client_id', '=', account.clientId).executeTakeFirstOrThrow()).id,
  );
  await new CountStore(t.db.kysely).add([{ zone_id: id, client_id: account.clientId, minute: 0, qtype: 'A', count: 3 }]);
}

beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
  b = await t.account();
  resolver = new Resolver(new AuthorityStore(t.db));
  await fill(a, 'a-zone.example');
  await fill(b, 'b-zone.example');
});
afterAll(async () => t?.close());

describe('DNS state', () => {
  it("exports one client's DNS rows only, resets them, and imports them back", async () => {
    const exported = (await t.request('GET', `/_edgeplane/state?clientId=${a.clientId}`, { headers: t.operator })).json();
    for (const table of DNS_TABLES) {
      expect(exported.tables[table].length, table).toBeGreaterThan(0);
      expect(
        exported.tables[table].every((row: { client_id: number }) => Number(row.client_id) === a.clientId),
        table,
      ).toBe(true);
    }
    const zoneBefore = (await call('GET', '/dns/v2/zones/a-zone.example')).json();
    expect((await t.request('POST', '/_edgeplane/state/reset', { headers: t.operator, body: { clientId: a.clientId } })).statusCode).toBeLessThan(300);
    for (const table of DNS_TABLES) {
      const rows = await t.db.kysely.selectFrom(table).select('client_id').execute();
      expect(
        rows.every((row) => Number(row.client_id) === b.clientId),
        table,
      ).toBe(true);
      expect(rows.length, table).toBeGreaterThan(0);
    }
    expect((await resolver.resolve('www.a-zone.example', 'A')).rcode).toBe('REFUSED');
    expect((await resolver.resolve('www.b-zone.example', 'A')).answers).toHaveLength(1);
    expect((await t.request('PUT', '/_edgeplane/state', { headers: t.operator, body: exported })).statusCode).toBeLessThan(300);
    expect((await call('GET', '/dns/v2/zones/a-zone.example')).json()).toEqual(zoneBefore);
    expect((await resolver.resolve('www.a-zone.example', 'A')).answers).toHaveLength(1);
    expect((await resolver.resolve('a-zone.example', 'DNSKEY')).answers).toHaveLength(1);
    expect((await call('GET', '/dns/v2/zones/a-zone.example/statistics?from=0&to=60')).json().total).toBe(3);
    expect((await call('GET', '/dns/v2/network-mappings/by-name/map-a-zone.example')).statusCode).toBe(200);
  });

  it('resets everything with a whole reset', async () => {
    expect((await t.request('POST', '/_edgeplane/state/reset', { headers: t.operator, body: {} })).statusCode).toBeLessThan(300);
    for (const table of DNS_TABLES) expect(await t.db.kysely.selectFrom(table).selectAll().execute(), table).toEqual([]);
  });
});
