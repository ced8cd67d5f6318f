// Zones through the API: create with defaults, names normalised and unique per client, the serial
// bumped by every change, enable and disable, list filters with true counts, update, delete with its
// RRsets, the refusals (400, `{error}`, nothing stored) and tenancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';

let t: TestApp;
let a: TestAccount;
let b: TestAccount;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
  b = await t.account();
});
afterAll(async () => t?.close());

const call = (method: string, url: string, body?: unknown, account = a) => t.request(method, url, { headers: account.headers, body });

async function zoneCount(): Promise<number> {
  const row = await t.db.kysely
    .selectFrom('dns_zones')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('create and read', () => {
  it('creates a zone with the SOA defaults and reads it back with its SOA and NS records', async () => {
    const before = Math.floor(t.clock.now() / 1000);
    const created = await call('POST', '/dns/v2/zones', { name: 'Example.COM.', contact: 'admin@example.com' });
    expect(created.statusCode, created.body).toBe(200);
    expectConforms('POST', '/dns/v2/zones', created);
    expect(created.json()).toEqual({ id: expect.any(Number), warnings: [] });
    const read = await call('GET', '/dns/v2/zones/example.com');
    expect(read.statusCode).toBe(200);
    expectConforms('GET', '/dns/v2/zones/{name}', read);
    const zone = read.json();
    expect(zone).not.toHaveProperty('client_id'); // the reference declares it in the list only
    expect(zone).toMatchObject({
      id: created.json().id,
      name: 'example.com',
      contact: 'admin@example.com',
      primary_server: 'ns1.edgeplane.test',
      refresh: 3600,
      retry: 600,
      expiry: 604800,
      nx_ttl: 300,
      enabled: true,
      status: 'active',
      meta: {},
      dnssec_enabled: false,
      dnssec_status: '',
      rrsets_amount: { total: 0, static: 0, dynamic: { total: 0, healthcheck: 0 } },
    });
    // A new zone's serial is its creation time in seconds.
    expect(zone.serial).toBeGreaterThanOrEqual(before);
    expect(zone.serial).toBeLessThanOrEqual(Math.floor(t.clock.now() / 1000));
    expect(zone.records).toEqual([
      { name: 'example.com', type: 'SOA', ttl: 300, short_answers: [`ns1.edgeplane.test. admin.example.com. ${zone.serial} 3600 600 604800 300`] },
      { name: 'example.com', type: 'NS', ttl: 3600, short_answers: ['ns1.edgeplane.test.', 'ns2.edgeplane.test.'] },
    ]);
  });

  it('keeps the fields it is given, and meta as sent', async () => {
    const body = {
      name: 'given.example',
      contact: 'ops@given.example',
      primary_server: 'ns.given.example',
      refresh: 7200,
      retry: 900,
      expiry: 1209600,
      nx_ttl: 60,
      serial: 2024010101,
      enabled: false,
      meta: { webhook: 'https://hooks.example/dns', tags: ['a'] },
    };
    expect((await call('POST', '/dns/v2/zones', body)).statusCode).toBe(200);
    const zone = (await call('GET', '/dns/v2/zones/given.example')).json();
    expect(zone).toMatchObject({ ...body, status: 'disabled' });
  });

  it('normalises internationalised names to punycode', async () => {
    expect((await call('POST', '/dns/v2/zones', { name: 'bücher.example' })).statusCode).toBe(200);
    expect((await call('GET', '/dns/v2/zones/xn--bcher-kva.example')).json().name).toBe('xn--bcher-kva.example');
    expect((await call('GET', `/dns/v2/zones/${encodeURIComponent('bücher.example')}`)).statusCode).toBe(200);
  });

  it('accepts and ignores fields it does not know', async () => {
    const res = await call('POST', '/dns/v2/zones', { name: 'unknown-fields.example', future_field: { x: 1 } });
    expect(res.statusCode).toBe(200);
    expect((await call('GET', '/dns/v2/zones/unknown-fields.example')).json()).not.toHaveProperty('future_field');
  });

  it('warns when a zone is created inside another zone of the client', async () => {
    await call('POST', '/dns/v2/zones', { name: 'parent.example' });
    const child = await call('POST', '/dns/v2/zones', { name: 'child.parent.example' });
    expect(child.json().warnings).toEqual([expect.stringMatching(/inside zone parent\.example/)]);
  });
});

describe('refusals', () => {
  const cases: [string, unknown, RegExp][] = [
    ['no body', undefined, /body/],
    ['no name', { contact: 'a@b.example' }, /name/],
    ['a name that is not text', { name: 42 }, /name/],
    ['a single label', { name: 'com' }, /at least two labels/],
    ['a label with an underscore', { name: 'bad_label.example' }, /invalid label/],
    ['a label starting with a hyphen', { name: '-x.example' }, /invalid label/],
    ['a label of 64 characters', { name: `${'a'.repeat(64)}.example` }, /invalid label/],
    ['a name of 256 characters', { name: `${'a.'.repeat(128)}` }, /more than 255 characters/],
    ['spaces', { name: 'a b.example' }, /spaces/],
    ['a bad contact', { name: 'c1.example', contact: 'not an email' }, /contact/],
    ['a bad primary server', { name: 'c2.example', primary_server: 'bad host!' }, /primary_server/],
    ['a negative refresh', { name: 'c3.example', refresh: -1 }, /refresh/],
    ['a serial past 2^32', { name: 'c4.example', serial: 2 ** 32 }, /serial/],
    ['an nx_ttl past 2^31', { name: 'c5.example', nx_ttl: 2 ** 31 }, /nx_ttl/],
    ['a fractional retry', { name: 'c6.example', retry: 1.5 }, /retry/],
    ['meta that is not an object', { name: 'c7.example', meta: [1] }, /meta/],
    ['meta over 16 KiB', { name: 'c8.example', meta: { x: 'y'.repeat(17_000) } }, /meta/],
  ];
  it.each(cases)('%s: 400 {error}, nothing stored', async (_label, body, message) => {
    const before = await zoneCount();
    const res = await t.request('POST', '/dns/v2/zones', { headers: a.headers, body: body === undefined ? undefined : body });
    expect(res.statusCode, res.body).toBe(400);
    expect(Object.keys(res.json())).toEqual(['error']);
    expect(res.json().error).toMatch(message);
    expect(await zoneCount()).toBe(before);
  });

  it('refuses a second zone of the same name for the client, in any spelling', async () => {
    await call('POST', '/dns/v2/zones', { name: 'twice.example' });
    const again = await call('POST', '/dns/v2/zones', { name: 'TWICE.example.' });
    expect(again.statusCode).toBe(400);
    expect(again.json().error).toMatch(/already exists/);
  });

  it('lets another client create a zone of the same name', async () => {
    expect((await call('POST', '/dns/v2/zones', { name: 'twice.example' }, b)).statusCode).toBe(200);
  });

  it('refuses malformed JSON with 400', async () => {
    const res = await t.request('POST', '/dns/v2/zones', { headers: { ...a.headers, 'content-type': 'application/json' }, body: '{"name":' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/JSON/);
  });
});

describe('serial, update, enable and disable', () => {
  it('bumps the serial on every change and keeps fields left out of a PUT', async () => {
    await call('POST', '/dns/v2/zones', { name: 'serial.example', serial: 5 });
    const serial = async () => (await call('GET', '/dns/v2/zones/serial.example')).json().serial;
    // The first change takes the serial to the change's time in seconds: it reads as a timestamp.
    const now = Math.floor(t.clock.now() / 1000);
    expect(await serial()).toBe(5);
    const put = await call('PUT', '/dns/v2/zones/serial.example', { name: 'serial.example', contact: 'new@serial.example' });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toEqual({});
    expect(await serial()).toBeGreaterThanOrEqual(now);
    const s1 = await serial();
    await call('PATCH', '/dns/v2/zones/serial.example/disable');
    expect(await serial()).toBe(s1 + 1);
    const zone = (await call('GET', '/dns/v2/zones/serial.example')).json();
    expect(zone).toMatchObject({ enabled: false, status: 'disabled', contact: 'new@serial.example', refresh: 3600 });
    expect((await call('PATCH', '/dns/v2/zones/serial.example/enable')).json()).toEqual({});
    expect((await call('GET', '/dns/v2/zones/serial.example')).json()).toMatchObject({ enabled: true, serial: s1 + 2 });
    const rrset = await call('POST', '/dns/v2/zones/serial.example/www.serial.example/A', { ttl: 60, resource_records: [{ content: ['192.0.2.1'] }] });
    expect(rrset.statusCode).toBe(200);
    expect(await serial()).toBe(s1 + 3);
  });

  it('takes a larger serial sent with a PUT, never a smaller one', async () => {
    await call('POST', '/dns/v2/zones', { name: 'floor.example', serial: 100 });
    await call('PUT', '/dns/v2/zones/floor.example', { name: 'floor.example', serial: 4_000_000_000 });
    expect((await call('GET', '/dns/v2/zones/floor.example')).json().serial).toBe(4_000_000_000);
    await call('PUT', '/dns/v2/zones/floor.example', { name: 'floor.example', serial: 7 });
    expect((await call('GET', '/dns/v2/zones/floor.example')).json().serial).toBe(4_000_000_001);
  });

  it('refuses renaming a zone', async () => {
    await call('POST', '/dns/v2/zones', { name: 'rename.example' });
    const res = await call('PUT', '/dns/v2/zones/rename.example', { name: 'other.example' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/cannot be renamed/);
  });
});

describe('list', () => {
  let c: TestAccount;
  beforeAll(async () => {
    c = await t.account();
    for (const name of ['alpha.example', 'beta.example', 'gamma.test', 'delta.example']) await call('POST', '/dns/v2/zones', { name }, c);
    await call('PATCH', '/dns/v2/zones/gamma.test/disable', undefined, c);
    await call(
      'POST',
      '/dns/v2/zones/beta.example/www.beta.example/A',
      { resource_records: [{ content: ['192.0.2.1'] }], pickers: [{ type: 'first_n', limit: 1 }] },
      c,
    );
  });
  const list = async (query = '') => (await call('GET', `/dns/v2/zones${query}`, undefined, c)).json();

  it('lists the client own zones by name, with the true total and the reference envelope', async () => {
    const res = await call('GET', '/dns/v2/zones', undefined, c);
    expectConforms('GET', '/dns/v2/zones', res);
    expect(res.json().total_amount).toBe(4);
    expect(res.json().zones.map((z: { name: string }) => z.name)).toEqual(['alpha.example', 'beta.example', 'delta.example', 'gamma.test']);
    expect(res.json().zones[0]).not.toHaveProperty('records');
  });

  it('pages with limit and offset, the total counting every page', async () => {
    const page = await list('?limit=2&offset=1&order_by=name&order_direction=desc');
    expect(page.total_amount).toBe(4);
    expect(page.zones.map((z: { name: string }) => z.name)).toEqual(['delta.example', 'beta.example']);
  });

  it.each([
    ['?name=example', ['alpha.example', 'beta.example', 'delta.example']],
    ['?name=alpha.example&exact_match=true', ['alpha.example']],
    ['?name=ALPHA', ['alpha.example']],
    ['?name=ALPHA&case_sensitive=true', []],
    ['?name=alpha&name=gamma', ['alpha.example', 'gamma.test']],
    ['?name=alpha,gamma', ['alpha.example', 'gamma.test']],
    ['?enabled=false', ['gamma.test']],
    ['?status=active', ['alpha.example', 'beta.example', 'delta.example']],
    ['?dynamic=true', ['beta.example']],
    ['?healthcheck=true', []],
  ])('filters %s', async (query, names) => {
    const page = await list(query);
    expect(page.zones.map((z: { name: string }) => z.name)).toEqual(names);
    expect(page.total_amount).toBe(names.length);
  });

  it('filters by ids and by client id (only its own)', async () => {
    const all = (await list()).zones;
    expect((await list(`?id=${all[1].id}`)).zones.map((z: { name: string }) => z.name)).toEqual(['beta.example']);
    expect((await list(`?client_id=${c.clientId}`)).total_amount).toBe(4);
    expect((await list(`?client_id=${a.clientId}`)).total_amount).toBe(0);
  });

  it('counts RRsets per zone', async () => {
    const beta = (await list('?name=beta.example&exact_match=true')).zones[0];
    expect(beta.rrsets_amount).toEqual({ total: 1, static: 0, dynamic: { total: 1, healthcheck: 0 } });
  });

  it('refuses an unknown sort field and a bad order direction', async () => {
    for (const query of ['?order_by=colour', '?order_direction=up', '?limit=-1', '?updated_at_from=yesterday']) {
      const res = await call('GET', `/dns/v2/zones${query}`, undefined, c);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error).toBeTruthy();
    }
  });
});

describe('delete', () => {
  it('removes the zone and its RRsets', async () => {
    await call('POST', '/dns/v2/zones', { name: 'gone.example' });
    await call('POST', '/dns/v2/zones/gone.example/www.gone.example/A', { resource_records: [{ content: ['192.0.2.1'] }] });
    const res = await call('DELETE', '/dns/v2/zones/gone.example');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    expect((await call('GET', '/dns/v2/zones/gone.example')).statusCode).toBe(404);
    expect((await call('GET', '/dns/v2/zones/gone.example/www.gone.example/A')).statusCode).toBe(404);
    const left = await t.db.kysely.selectFrom('dns_rrsets').select('id').where('name', '=', 'www.gone.example').execute();
    expect(left).toEqual([]);
    // The name is free again.
    expect((await call('POST', '/dns/v2/zones', { name: 'gone.example' })).statusCode).toBe(200);
  });
});

describe('security', () => {
  it('needs a valid token', async () => {
    expect((await t.request('GET', '/dns/v2/zones')).statusCode).toBe(401);
    expect((await t.request('GET', '/dns/v2/zones', { headers: { authorization: 'APIKey nope' } })).statusCode).toBe(401);
  });

  it("answers 404 for another client's zone, on every zone operation, and changes nothing", async () => {
    await call('POST', '/dns/v2/zones', { name: 'private.example' });
    const paths: [string, string, unknown?][] = [
      ['GET', '/dns/v2/zones/private.example'],
      ['PUT', '/dns/v2/zones/private.example', { name: 'private.example', contact: 'x@y.example' }],
      ['PATCH', '/dns/v2/zones/private.example/disable'],
      ['PATCH', '/dns/v2/zones/private.example/enable'],
      ['GET', '/dns/v2/zones/private.example/rrsets'],
      ['GET', '/dns/v2/zones/private.example/export'],
      ['GET', '/dns/v2/zones/private.example/statistics'],
      ['GET', '/dns/v2/zones/private.example/dnssec'],
      ['PATCH', '/dns/v2/zones/private.example/dnssec', { enabled: true }],
      ['DELETE', '/dns/v2/zones/private.example'],
    ];
    for (const [method, url, body] of paths) {
      const res = await call(method, url, body, b);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error).toMatch(/not found/);
    }
    const zone = (await call('GET', '/dns/v2/zones/private.example')).json();
    expect(zone).toMatchObject({ enabled: true, contact: 'support@edgeplane.test', dnssec_enabled: false });
  });

  it('lets a read-only role read but not write', async () => {
    const reader = await t.account({ role: 'Users' });
    expect((await t.request('GET', '/dns/v2/zones', { headers: reader.headers })).statusCode).toBe(200);
    const res = await t.request('POST', '/dns/v2/zones', { headers: reader.headers, body: { name: 'ro.example' } });
    expect(res.statusCode).toBe(403);
    expect(Object.keys(res.json())).toEqual(['error']);
  });
});
