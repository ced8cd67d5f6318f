// RRsets through the API, in the official clients' request forms: create, read, list with true counts,
// replace, delete; several records per set; type rules (CNAME alone and not at the apex, content per
// type, TTL bounds); refusals that store nothing; tenancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';

const ITEM = '/dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}';

let t: TestApp;
let a: TestAccount;
let b: TestAccount;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
  b = await t.account();
  for (const name of ['example.com', 'rules.example', 'list.example']) await t.request('POST', '/dns/v2/zones', { headers: a.headers, body: { name } });
});
afterAll(async () => t?.close());

const call = (method: string, url: string, body?: unknown, account = a) => t.request(method, url, { headers: account.headers, body });
const records = (...contents: unknown[][]) => contents.map((content) => ({ content }));

async function rrsetCount(): Promise<number> {
  const row = await t.db.kysely
    .selectFrom('dns_rrsets')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('create, read, replace, delete', () => {
  it('creates an A RRset with several records and reads it back', async () => {
    const body = {
      ttl: 120,
      resource_records: [
        { content: ['192.0.2.1'], enabled: true, meta: { weight: 10 } },
        { content: ['192.0.2.2'], enabled: false },
      ],
    };
    const res = await call('POST', '/dns/v2/zones/example.com/www.example.com/A', body);
    expect(res.statusCode, res.body).toBe(200);
    expectConforms('POST', ITEM, res);
    expect(res.json()).toMatchObject({
      name: 'www.example.com',
      type: 'A',
      ttl: 120,
      resource_records: [
        { id: expect.any(Number), content: ['192.0.2.1'], enabled: true, meta: { weight: 10 } },
        { id: expect.any(Number), content: ['192.0.2.2'], enabled: false, meta: {} },
      ],
      pickers: [],
      meta: {},
      warnings: [],
    });
    const read = await call('GET', '/dns/v2/zones/example.com/www.example.com/A');
    expectConforms('GET', ITEM, read);
    expect(read.json()).toEqual({ ...res.json(), updated_at: read.json().updated_at });
  });

  it('reads a set under any spelling of its names and type', async () => {
    const res = await call('GET', '/dns/v2/zones/EXAMPLE.com./WWW.example.com./a');
    expect(res.statusCode).toBe(200);
    expect(res.json().name).toBe('www.example.com');
  });

  it.each([
    [
      'MX',
      'example.com',
      [
        [10, 'mail1.example.com.'],
        [20, 'mail2.example.com.'],
      ],
    ],
    ['TXT', 'example.com', [['v=spf1 include:_spf.example.net -all']]],
    ['AAAA', 'v6.example.com', [['2001:db8::1'], ['2001:db8::2']]],
    ['SRV', '_sip._tcp.example.com', [[10, 60, 5060, 'sip.example.com.']]],
    [
      'CAA',
      'example.com',
      [
        [0, 'issue', 'ca.example.net'],
        [0, 'iodef', 'mailto:sec@example.com'],
      ],
    ],
    ['HTTPS', 'example.com', [[1, '.', ['alpn', 'h3', 'h2'], ['port', 443]]]],
    ['CNAME', 'alias.example.com', [['www.example.com.']]],
    ['NS', 'sub.example.com', [['ns1.other.example.'], ['ns2.other.example.']]],
    ['PTR', '1.example.com', [['host.example.com.']]],
    ['A', '*.wild.example.com', [['192.0.2.9']]],
  ])('creates %s at %s', async (type, name, contents) => {
    const res = await call('POST', `/dns/v2/zones/example.com/${name}/${type}`, { ttl: 300, resource_records: records(...contents) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().resource_records.map((r: { content: unknown[] }) => r.content)).toEqual(contents);
  });

  it('takes the default TTL when none is sent', async () => {
    const res = await call('POST', '/dns/v2/zones/example.com/default-ttl.example.com/A', { resource_records: records(['192.0.2.3']) });
    expect(res.json().ttl).toBe(300);
  });

  it('keeps pickers and meta, and counts health checks', async () => {
    const meta = { failover: { protocol: 'HTTP', port: 80, frequency: 60, timeout: 5, method: 'GET', url: '/health' } };
    const pickers = [
      { type: 'geodns', strict: false },
      { type: 'first_n', limit: 1 },
    ];
    const res = await call('POST', '/dns/v2/zones/example.com/dyn.example.com/A', { resource_records: records(['192.0.2.4'], ['192.0.2.5']), pickers, meta });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ pickers, meta });
    const zone = (await call('GET', '/dns/v2/zones/example.com')).json();
    expect(zone.rrsets_amount.dynamic).toEqual({ total: 1, healthcheck: 1 });
    const metrics = await call('GET', '/dns/v2/monitor/metrics');
    expect(metrics.statusCode).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
    expect(metrics.body).toMatch(
      /healthcheck_state\{client_id="\d+",monitor_id="\d+",monitor_locations="",monitor_name="dyn.example.com\/A",monitor_type="http",rrset_name="dyn.example.com",rrset_type="A",zone_name="example.com"\} 1/,
    );
    const log = await call('GET', '/dns/v2/zones/example.com/dyn.example.com/A/failover/log');
    expect(log.json()).toEqual({ log: [], total_amount: 0 });
  });

  it('replaces the records with PUT, keeping ttl, pickers and meta left out', async () => {
    await call('POST', '/dns/v2/zones/example.com/put.example.com/A', { ttl: 60, resource_records: records(['192.0.2.1']), meta: { note: 'x' } });
    const res = await call('PUT', '/dns/v2/zones/example.com/put.example.com/A', { resource_records: records(['192.0.2.7'], ['192.0.2.8']) });
    expect(res.statusCode, res.body).toBe(200);
    expectConforms('PUT', ITEM, res);
    expect(res.json()).toMatchObject({ ttl: 60, meta: { note: 'x' }, resource_records: [{ content: ['192.0.2.7'] }, { content: ['192.0.2.8'] }] });
    const changed = await call('PUT', '/dns/v2/zones/example.com/put.example.com/A', { ttl: 30, resource_records: records(['192.0.2.9']), meta: {} });
    expect(changed.json()).toMatchObject({ ttl: 30, meta: {}, resource_records: [{ content: ['192.0.2.9'] }] });
  });

  it('deletes a set', async () => {
    await call('POST', '/dns/v2/zones/example.com/del.example.com/TXT', { resource_records: records(['bye']) });
    const res = await call('DELETE', '/dns/v2/zones/example.com/del.example.com/TXT');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    expect((await call('GET', '/dns/v2/zones/example.com/del.example.com/TXT')).statusCode).toBe(404);
    expect((await call('DELETE', '/dns/v2/zones/example.com/del.example.com/TXT')).statusCode).toBe(404);
    expect((await call('PUT', '/dns/v2/zones/example.com/del.example.com/TXT', { resource_records: records(['x']) })).statusCode).toBe(404);
  });

  it('warns when the apex NS records leave out the platform name servers', async () => {
    await call('POST', '/dns/v2/zones', { name: 'own-ns.example' });
    const res = await call('POST', '/dns/v2/zones/own-ns.example/own-ns.example/NS', { resource_records: records(['ns1.elsewhere.example.']) });
    expect(res.json().warnings).toEqual([{ key: 'ns', message: expect.stringMatching(/platform's name servers/) }]);
    const zone = (await call('GET', '/dns/v2/zones/own-ns.example')).json();
    expect(zone.records.filter((r: { type: string }) => r.type === 'NS')).toEqual([
      { name: 'own-ns.example', type: 'NS', ttl: 300, short_answers: ['ns1.elsewhere.example.'] },
    ]);
  });
});

describe('list', () => {
  beforeAll(async () => {
    for (const [name, type, content] of [
      ['b.list.example', 'A', ['192.0.2.1']],
      ['a.list.example', 'TXT', ['hello']],
      ['a.list.example', 'A', ['192.0.2.2']],
      ['list.example', 'MX', [10, 'mx.list.example.']],
    ] as [string, string, unknown[]][]) {
      await call('POST', `/dns/v2/zones/list.example/${name}/${type}`, { resource_records: [{ content }] });
    }
  });

  it('lists every set by name then type, with the true total', async () => {
    const res = await call('GET', '/dns/v2/zones/list.example/rrsets');
    expectConforms('GET', '/dns/v2/zones/{zoneName}/rrsets', res);
    expect(res.json().total_amount).toBe(4);
    expect(res.json().rrsets.map((r: { name: string; type: string }) => `${r.name} ${r.type}`)).toEqual([
      'a.list.example A',
      'a.list.example TXT',
      'b.list.example A',
      'list.example MX',
    ]);
  });

  it('pages and orders', async () => {
    const res = (await call('GET', '/dns/v2/zones/list.example/rrsets?limit=2&offset=1&order_by=type&order_direction=desc')).json();
    expect(res.total_amount).toBe(4);
    expect(res.rrsets.map((r: { name: string; type: string }) => `${r.name} ${r.type}`)).toEqual(['list.example MX', 'a.list.example A']);
  });

  it('refuses an unknown sort field', async () => {
    expect((await call('GET', '/dns/v2/zones/list.example/rrsets?order_by=colour')).statusCode).toBe(400);
  });
});

describe('refusals: 400 {error}, nothing stored', () => {
  const cases: [string, string, unknown, RegExp][] = [
    [
      'a name outside the zone',
      '/dns/v2/zones/rules.example/www.other.example/A',
      { resource_records: records(['192.0.2.1']) },
      /must be the zone name rules.example or a name under it/,
    ],
    ['an unknown type', '/dns/v2/zones/rules.example/x.rules.example/LOC', { resource_records: records(['x']) }, /Unknown RRset type LOC/],
    ['an SOA', '/dns/v2/zones/rules.example/rules.example/SOA', { resource_records: records(['x']) }, /SOA record is the zone's own/],
    ['no records', '/dns/v2/zones/rules.example/x.rules.example/A', { resource_records: [] }, /at least one record/],
    ['no resource_records', '/dns/v2/zones/rules.example/x.rules.example/A', { ttl: 60 }, /resource_records/],
    ['an IPv6 address in an A record', '/dns/v2/zones/rules.example/x.rules.example/A', { resource_records: records(['2001:db8::1']) }, /not an IPv4 address/],
    [
      'an IPv4 address in an AAAA record',
      '/dns/v2/zones/rules.example/x.rules.example/AAAA',
      { resource_records: records(['192.0.2.1']) },
      /not an IPv6 address/,
    ],
    ['a CNAME at the apex', '/dns/v2/zones/rules.example/rules.example/CNAME', { resource_records: records(['x.example.']) }, /apex/],
    [
      'two CNAME records',
      '/dns/v2/zones/rules.example/c.rules.example/CNAME',
      { resource_records: records(['x.example.'], ['y.example.']) },
      /exactly one record/,
    ],
    ['a duplicate record', '/dns/v2/zones/rules.example/x.rules.example/A', { resource_records: records(['192.0.2.1'], ['192.0.2.1']) }, /repeats/],
    ['an MX without preference', '/dns/v2/zones/rules.example/rules.example/MX', { resource_records: records(['mail.example.']) }, /exactly 2 parts/],
    ['a TTL past 2^31', '/dns/v2/zones/rules.example/x.rules.example/A', { ttl: 2 ** 31, resource_records: records(['192.0.2.1']) }, /ttl/],
    ['a negative TTL', '/dns/v2/zones/rules.example/x.rules.example/A', { ttl: -5, resource_records: records(['192.0.2.1']) }, /ttl/],
    [
      'an unknown picker',
      '/dns/v2/zones/rules.example/x.rules.example/A',
      { resource_records: records(['192.0.2.1']), pickers: [{ type: 'random' }] },
      /pickers/,
    ],
    [
      'bad record meta',
      '/dns/v2/zones/rules.example/x.rules.example/A',
      { resource_records: [{ content: ['192.0.2.1'], meta: { latlong: [100, 0] } }] },
      /latlong/,
    ],
    [
      'a bad health check',
      '/dns/v2/zones/rules.example/x.rules.example/A',
      { resource_records: records(['192.0.2.1']), meta: { failover: { protocol: 'HTTP', port: 80, frequency: 5, timeout: 1 } } },
      /frequency/,
    ],
    [
      '101 records',
      '/dns/v2/zones/rules.example/x.rules.example/A',
      { resource_records: Array.from({ length: 101 }, (_, i) => ({ content: [`10.0.${i >> 8}.${i & 255}`] })) },
      /more than 100 items/,
    ],
    ['a DS at the apex', '/dns/v2/zones/rules.example/rules.example/DS', { resource_records: records([1, 13, 2, 'ab'.repeat(32)]) }, /parent zone/],
  ];
  it.each(cases)('%s', async (_label, url, body, message) => {
    const before = await rrsetCount();
    const res = await call('POST', url, body);
    expect(res.statusCode, res.body).toBe(400);
    expect(Object.keys(res.json())).toEqual(['error']);
    expect(res.json().error).toMatch(message);
    expect(await rrsetCount()).toBe(before);
  });

  it('refuses a second set of the same name and type', async () => {
    await call('POST', '/dns/v2/zones/rules.example/dup.rules.example/A', { resource_records: records(['192.0.2.1']) });
    const res = await call('POST', '/dns/v2/zones/rules.example/dup.rules.example/A', { resource_records: records(['192.0.2.2']) });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/already exists/);
  });

  it('keeps a CNAME alone at its name, both ways', async () => {
    await call('POST', '/dns/v2/zones/rules.example/alias.rules.example/CNAME', { resource_records: records(['target.example.']) });
    const a1 = await call('POST', '/dns/v2/zones/rules.example/alias.rules.example/A', { resource_records: records(['192.0.2.1']) });
    expect(a1.statusCode).toBe(400);
    expect(a1.json().error).toMatch(/has a CNAME/);
    await call('POST', '/dns/v2/zones/rules.example/host.rules.example/TXT', { resource_records: records(['x']) });
    const c1 = await call('POST', '/dns/v2/zones/rules.example/host.rules.example/CNAME', { resource_records: records(['target.example.']) });
    expect(c1.statusCode).toBe(400);
    expect(c1.json().error).toMatch(/alone at its name: host.rules.example already has TXT/);
  });

  it('answers 404 for a zone that does not exist', async () => {
    expect((await call('POST', '/dns/v2/zones/nope.example/www.nope.example/A', { resource_records: records(['192.0.2.1']) })).statusCode).toBe(404);
    expect((await call('GET', '/dns/v2/zones/nope.example/rrsets')).statusCode).toBe(404);
  });
});

describe('tenancy', () => {
  it("answers 404 for another client's RRsets and changes nothing", async () => {
    await call('POST', '/dns/v2/zones/example.com/mine.example.com/A', { resource_records: records(['192.0.2.1']) });
    const attempts: [string, unknown?][] = [
      ['GET'],
      ['PUT', { resource_records: records(['203.0.113.1']) }],
      ['DELETE'],
      ['POST', { resource_records: records(['203.0.113.1']) }],
    ];
    for (const [method, body] of attempts) {
      const res = await call(method, '/dns/v2/zones/example.com/mine.example.com/A', body, b);
      expect(res.statusCode, method).toBe(404);
    }
    expect((await call('GET', '/dns/v2/zones/example.com/rrsets', undefined, b)).statusCode).toBe(404);
    expect((await call('GET', '/dns/v2/zones/example.com/mine.example.com/A')).json().resource_records[0].content).toEqual(['192.0.2.1']);
  });

  it('lets a read-only role read RRsets but not change them', async () => {
    const reader = await t.account({ role: 'Users' });
    expect((await call('POST', '/dns/v2/zones/example.com/ro.example.com/A', { resource_records: records(['192.0.2.1']) }, reader)).statusCode).toBe(403);
  });
});
