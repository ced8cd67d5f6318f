// Lookups, delegation checks, the platform's facts and the reference lists (locations, pickers).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { reverseName } from './service.js';

let t: TestApp;
let a: TestAccount;
let b: TestAccount;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
  b = await t.account();
  await call('POST', '/dns/v2/zones', { name: 'look.example' });
  await call('POST', '/dns/v2/zones/look.example/www.look.example/A', { ttl: 60, resource_records: [{ content: ['192.0.2.1'] }, { content: ['192.0.2.2'] }] });
  await call('POST', '/dns/v2/zones/look.example/www.look.example/TXT', { ttl: 60, resource_records: [{ content: ['hi'] }] });
  await call('POST', '/dns/v2/zones', { name: '2.0.192.in-addr.arpa' });
  await call('POST', '/dns/v2/zones/2.0.192.in-addr.arpa/1.2.0.192.in-addr.arpa/PTR', { resource_records: [{ content: ['www.look.example.'] }] });
  await call('POST', '/dns/v2/zones', { name: 'registry.test' });
  await call('POST', '/dns/v2/zones', { name: 'delegated.registry.test' }, b);
  await call('POST', '/dns/v2/zones/registry.test/delegated.registry.test/NS', {
    resource_records: [{ content: ['ns1.edgeplane.test.'] }, { content: ['ns.other.example.'] }],
  });
});
afterAll(async () => t?.close());

const call = (method: string, url: string, body?: unknown, account = a) => t.request(method, url, { headers: account.headers, body });

describe('lookup', () => {
  it('lists the RRsets of a name from the hosted zones', async () => {
    const res = await call('GET', '/dns/v2/lookup?name=www.look.example&request_server=google');
    expect(res.statusCode).toBe(200);
    expectConforms('GET', '/dns/v2/lookup', res);
    expect(res.json()).toEqual([
      { name: 'www.look.example', type: 'A', ttl: 60, content: ['192.0.2.1', '192.0.2.2'] },
      { name: 'www.look.example', type: 'TXT', ttl: 60, content: ['"hi"'] },
    ]);
  });

  it("lists a zone apex's SOA and name servers", async () => {
    const types = (await call('GET', '/dns/v2/lookup?name=look.example')).json().map((r: { type: string }) => r.type);
    expect(types).toEqual(['SOA', 'NS']);
  });

  it('looks an address up by its reverse name', async () => {
    expect((await call('GET', '/dns/v2/lookup?name=192.0.2.1')).json()).toEqual([
      { name: '1.2.0.192.in-addr.arpa', type: 'PTR', ttl: 300, content: ['www.look.example.'] },
    ]);
    expect(reverseName('2001:db8::1')).toBe('1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa');
  });

  it('answers nothing for a name outside the hosted zones', async () => {
    expect((await call('GET', '/dns/v2/lookup?name=www.example.org')).json()).toEqual([]);
  });

  it('refuses a lookup without a name, or with a bad one, or an unknown resolver', async () => {
    for (const query of ['', '?name=bad%20name', '?name=x.example&request_server=mine']) {
      const res = await call('GET', `/dns/v2/lookup${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error).toBeTruthy();
    }
  });
});

describe('delegation status', () => {
  it('reads the delegation from a parent zone hosted here', async () => {
    const res = await call('GET', '/dns/v2/analyze/delegated.registry.test/delegation-status', undefined, b);
    expectConforms('GET', '/dns/v2/analyze/{name}/delegation-status', res);
    expect(res.json()).toEqual({
      zone_exists: true,
      authoritative_name_servers: [
        { name: 'ns1.edgeplane.test', ipv4Addresses: [], ipv6Addresses: [] },
        { name: 'ns.other.example', ipv4Addresses: [], ipv6Addresses: [] },
      ],
      gcore_authorized_count: 1,
      non_gcore_authorized_count: 1,
      is_whitelabel_delegation: false,
    });
  });

  it('counts a zone whose parent is not hosted as delegated to its own apex name servers', async () => {
    const res = (await call('GET', '/dns/v2/analyze/look.example/delegation-status')).json();
    expect(res).toMatchObject({ zone_exists: true, gcore_authorized_count: 2, non_gcore_authorized_count: 0 });
    expect((await call('GET', '/dns/v2/analyze/look.example/delegation-status', undefined, b)).json().zone_exists).toBe(false);
  });

  it('refuses a name that cannot be one', async () => {
    expect((await call('GET', '/dns/v2/analyze/bad%20name/delegation-status')).statusCode).toBe(400);
  });
});

describe('the platform and the reference lists', () => {
  it("answers the platform's name servers", async () => {
    const res = await call('GET', '/dns/v2/platform/info');
    expectConforms('GET', '/dns/v2/platform/info', res);
    expect(res.json()).toEqual({ Info: { contact: 'support@edgeplane.test', name_server_1: 'ns1.edgeplane.test', name_server_2: 'ns2.edgeplane.test' } });
  });

  it('lists continents, countries and regions', async () => {
    const all = await call('GET', '/dns/v2/locations');
    expectConforms('GET', '/dns/v2/locations', all);
    const body = all.json();
    expect(Object.keys(body.continents).sort()).toEqual(['af', 'an', 'as', 'eu', 'na', 'oc', 'sa']);
    expect(Object.keys(body.countries)).toHaveLength(249);
    expect(body.countries.de).toEqual({ names: { en: 'Germany' } });
    expect(body.regions['fr-nor']).toEqual({ names: { en: 'Normandy' } });
    for (const kind of ['continents', 'countries', 'regions']) {
      const res = await call('GET', `/dns/v2/locations/${kind}`);
      expectConforms('GET', `/dns/v2/locations/${kind}`, res);
      expect(res.json()).toEqual(body[kind]);
    }
  });

  it('lists the pickers and the presets', async () => {
    const pickers = await call('GET', '/dns/v2/pickers');
    expectConforms('GET', '/dns/v2/pickers', pickers);
    expect(pickers.json().map((p: { name: string }) => p.name)).toEqual([
      'geodns',
      'asn',
      'country',
      'continent',
      'region',
      'ip',
      'geodistance',
      'weighted_shuffle',
      'default',
      'first_n',
    ]);
    const presets = await call('GET', '/dns/v2/pickers/presets');
    expectConforms('GET', '/dns/v2/pickers/presets', presets);
    expect(presets.json().geodns.map((p: { name: string }) => p.name)).toEqual(['geodns', 'default', 'first_n']);
  });

  it('needs a token for every one of them', async () => {
    for (const url of ['/dns/v2/platform/info', '/dns/v2/locations', '/dns/v2/pickers', '/dns/v2/lookup?name=x.example']) {
      expect((await t.request('GET', url)).statusCode, url).toBe(401);
    }
  });
});
