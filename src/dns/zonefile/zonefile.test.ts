// Zone files through the API: export, import in the body forms clients send, the round trip from one
// zone to another, and the refusals (400, nothing stored).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { PLATFORM_NAME_SERVERS, QUOTAS } from '../common/platform.js';
import { chunks, recordKey, type RRsetType } from '../rrsets/content.js';

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
const importText = (zone: string, text: string, account = a, contentType = 'text/plain') =>
  t.request('POST', `/dns/v2/zones/${zone}/import`, { headers: { ...account.headers, 'content-type': contentType }, body: text });

const FILE = `$ORIGIN imported.example.
$TTL 3600
@ IN SOA ns1.edgeplane.test. dns\\.admin.imported.example. ( 1000 7200 900 1209600 120 )
@ IN NS ns1.edgeplane.test.
@ IN NS ns2.edgeplane.test.
@ 300 IN A 192.0.2.1
www 60 IN A 192.0.2.2
www 60 IN A 192.0.2.3
www 60 IN A 192.0.2.3
mail IN MX 10 mx.imported.example.
mx IN A 192.0.2.25
note IN TXT "hello world"
elsewhere.example. IN A 192.0.2.99
geo IN LOC 52 22 23.000 N 4 53 32.000 E -2.00m 0.00m 10000m 10m
`;

async function sets(zone: string, account = a) {
  const list = (await call('GET', `/dns/v2/zones/${zone}/rrsets`, undefined, account)).json();
  return list.rrsets.map((r: { name: string; type: string; ttl: number; resource_records: { content: unknown[]; enabled: boolean }[] }) => ({
    name: r.name,
    type: r.type,
    ttl: r.ttl,
    records: r.resource_records.filter((x) => x.enabled).map((x) => x.content),
  }));
}

describe('import', () => {
  it('imports a BIND file sent as the raw body: sets, SOA fields, counts and warnings', async () => {
    await call('POST', '/dns/v2/zones', { name: 'imported.example' });
    const before = (await call('GET', '/dns/v2/zones/imported.example')).json().serial;
    const res = await importText('imported.example', FILE);
    expect(res.statusCode, res.body).toBe(200);
    expectConforms('POST', '/dns/v2/zones/{zoneName}/import', res);
    expect(res.json()).toEqual({
      success: true,
      imported: { rrsets: 5, resource_records: 6, skipped_resource_records: 3, qtype: 3 },
      warnings: {
        'elsewhere.example': { A: 'line 13: outside zone imported.example' },
        'geo.imported.example': { LOC: 'line 14: LOC records are not kept by this API' },
      },
    });
    expect(await sets('imported.example')).toEqual([
      { name: 'imported.example', type: 'A', ttl: 300, records: [['192.0.2.1']] },
      { name: 'mail.imported.example', type: 'MX', ttl: 3600, records: [[10, 'mx.imported.example.']] },
      { name: 'mx.imported.example', type: 'A', ttl: 3600, records: [['192.0.2.25']] },
      { name: 'note.imported.example', type: 'TXT', ttl: 3600, records: [['hello world']] },
      { name: 'www.imported.example', type: 'A', ttl: 60, records: [['192.0.2.2'], ['192.0.2.3']] },
    ]);
    const zone = (await call('GET', '/dns/v2/zones/imported.example')).json();
    expect(zone).toMatchObject({ contact: 'dns.admin@imported.example', refresh: 7200, retry: 900, expiry: 1209600, nx_ttl: 120 });
    expect(zone.serial).toBeGreaterThan(before);
  });

  it('replaces sets of the same name and type, keeps the others', async () => {
    const res = await importText('imported.example', '$TTL 60\nwww.imported.example. IN A 192.0.2.50\n');
    expect(res.json().imported).toEqual({ rrsets: 1, resource_records: 1, skipped_resource_records: 0, qtype: 1 });
    const now = await sets('imported.example');
    expect(now.find((s: { name: string }) => s.name === 'www.imported.example').records).toEqual([['192.0.2.50']]);
    expect(now).toHaveLength(5);
  });

  it('takes the file as a JSON string (the Python client) or as {raw_zone}', async () => {
    await call('POST', '/dns/v2/zones', { name: 'json.example' });
    const asString = await t.request('POST', '/dns/v2/zones/json.example/import', { headers: a.headers, body: JSON.stringify('$TTL 60\na IN A 192.0.2.1\n') });
    expect(asString.statusCode, asString.body).toBe(200);
    const asObject = await call('POST', '/dns/v2/zones/json.example/import', { raw_zone: '$TTL 60\nb IN A 192.0.2.2\n' });
    expect(asObject.statusCode, asObject.body).toBe(200);
    expect((await sets('json.example')).map((s: { name: string }) => s.name)).toEqual(['a.json.example', 'b.json.example']);
  });

  it.each([
    ['a syntax error, with its line', '$TTL 60\nok A 192.0.2.1\nbad A 999.1.1.1\n', /line 3: a A record "999.1.1.1" is not an IPv4 address/],
    ['an $INCLUDE', '$INCLUDE /etc/passwd\n', /INCLUDE is not supported/],
    ['an empty body', '', /must hold a zone file/],
    ['a CNAME next to an existing set', '$TTL 60\nhost CNAME target.example.\n', /alone at its name/],
    ['two CNAME records', '$TTL 60\nx CNAME a.example.\nx CNAME b.example.\n', /exactly one/],
    ['a class other than IN', '$TTL 60\nx CH TXT "x"\n', /class CH/],
  ])('refuses %s with 400, storing nothing', async (_label, text, message) => {
    await call('POST', '/dns/v2/zones', { name: 'refuse.example' });
    await call('POST', '/dns/v2/zones/refuse.example/host.refuse.example/A', { resource_records: [{ content: ['192.0.2.1'] }] });
    const before = await sets('refuse.example');
    const serial = (await call('GET', '/dns/v2/zones/refuse.example')).json().serial;
    const res = await importText('refuse.example', text);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toMatch(message);
    expect(await sets('refuse.example')).toEqual(before);
    expect((await call('GET', '/dns/v2/zones/refuse.example')).json().serial).toBe(serial);
  });

  it('refuses a file past the RRset quota of the zone, counting the sets the zone has, and stores none', async () => {
    await call('POST', '/dns/v2/zones', { name: 'quota.example' });
    await importText('quota.example', '$TTL 60\nkept A 192.0.2.1\n');
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `h${i} A 192.0.2.${i % 250}`).join('\n');
    const over = await importText('quota.example', `$TTL 60\n${lines(QUOTAS.rrsets)}\n`);
    expect(over.statusCode).toBe(400);
    expect(over.body).toContain(`more than ${QUOTAS.rrsets} RRsets`);
    // Refused at the first set past the quota: a line after it that would not parse is never read.
    const farOver = await importText('quota.example', `$TTL 60\n${lines(QUOTAS.rrsets)}\nbroken A not-an-address\n`);
    expect(farOver.statusCode).toBe(400);
    expect(farOver.body).toContain(`more than ${QUOTAS.rrsets} RRsets`);
    expect(await sets('quota.example')).toHaveLength(1);
    // Sets the file replaces do not count twice: the zone's one set plus 9,999 new ones fit, and the
    // platform's own apex NS (in every exported file) is dropped, not counted.
    const platformNs = PLATFORM_NAME_SERVERS.map((ns) => `@ NS ${ns}.`).join('\n');
    const fits = await importText('quota.example', `$TTL 60\n${platformNs}\nkept A 192.0.2.2\n${lines(QUOTAS.rrsets - 1)}\n`);
    expect(fits.statusCode, fits.body).toBe(200);
    expect(fits.json().imported.rrsets).toBe(QUOTAS.rrsets);
    // One more set of the zone's own at the apex (NS of other servers) is over.
    const apexNs = await importText('quota.example', `$TTL 60\n@ NS ns.elsewhere.example.\n${lines(QUOTAS.rrsets - 1)}\n`);
    expect(apexNs.statusCode).toBe(400);
    expect(apexNs.body).toContain(`the quota is ${QUOTAS.rrsets} per zone`);
  });

  it("answers 404 for another client's zone", async () => {
    expect((await importText('imported.example', FILE, b)).statusCode).toBe(404);
    expect((await call('GET', '/dns/v2/zones/imported.example/export', undefined, b)).statusCode).toBe(404);
  });
});

describe('export and the round trip', () => {
  beforeAll(async () => {
    await call('POST', '/dns/v2/zones', { name: 'trip.example', contact: 'ops@trip.example', nx_ttl: 600 });
    const add = (name: string, type: string, ttl: number, resource_records: unknown[], extra = {}) =>
      call('POST', `/dns/v2/zones/trip.example/${name}/${type}`, { ttl, resource_records, ...extra });
    await add('trip.example', 'MX', 300, [{ content: [10, 'mx1.trip.example'] }, { content: [20, 'mx2.trip.example.'] }]);
    await add('trip.example', 'TXT', 300, [{ content: ['v=spf1 -all'] }, { content: ['a "quoted" ; text', 'second string'] }, { content: ['x'.repeat(300)] }]);
    await add('trip.example', 'CAA', 3600, [{ content: [0, 'issue', 'ca.example.net'] }]);
    await add('www.trip.example', 'A', 60, [{ content: ['192.0.2.1'] }, { content: ['192.0.2.2'], enabled: false }], {
      pickers: [{ type: 'first_n', limit: 1 }],
    });
    await add('www.trip.example', 'AAAA', 60, [{ content: ['2001:db8::1'] }]);
    await add('alias.trip.example', 'CNAME', 300, [{ content: ['www.trip.example.'] }]);
    await add('_sip._udp.trip.example', 'SRV', 300, [{ content: [0, 5, 5060, 'sip.trip.example.'] }]);
    await add('svc.trip.example', 'HTTPS', 300, [{ content: [1, '.', ['alpn', 'h3', 'h2'], ['port', 443], ['ipv6hint', '2001:db8::5']] }]);
    await add('*.wild.trip.example', 'A', 300, [{ content: ['192.0.2.9'] }]);
    await add('sub.trip.example', 'NS', 86400, [{ content: ['ns1.sub.trip.example.'] }]);
    await add('sub.trip.example', 'DS', 86400, [{ content: [12345, 13, 2, 'ab'.repeat(32)] }]);
    await add('ns1.sub.trip.example', 'A', 86400, [{ content: ['192.0.2.53'] }]);
    await add('1.trip.example', 'PTR', 300, [{ content: ['host.trip.example.'] }]);
  });

  it('exports a BIND file', async () => {
    const res = await call('GET', '/dns/v2/zones/trip.example/export');
    expect(res.statusCode).toBe(200);
    expectConforms('GET', '/dns/v2/zones/{zoneName}/export', res);
    const text: string = res.json().raw_zone;
    expect(text).toMatch(/^\$ORIGIN trip\.example\.$/m);
    expect(text).toMatch(/^@\t600\tIN\tSOA\tns1\.edgeplane\.test\. ops\.trip\.example\. \($/m);
    expect(text).toMatch(/^www\t60\tIN\tA\t192\.0\.2\.1$/m);
    expect(text).toMatch(/^; disabled: www\t60\tIN\tA\t192\.0\.2\.2$/m);
    expect(text).toMatch(/^svc\t300\tIN\tHTTPS\t1 \. alpn="h3,h2" port=443 ipv6hint=2001:db8::5$/m);
  });

  it('imports into another zone of the same name and exports the same file', async () => {
    const first = (await call('GET', '/dns/v2/zones/trip.example/export')).json().raw_zone as string;
    await call('POST', '/dns/v2/zones', { name: 'trip.example' }, b);
    const res = await importText('trip.example', first, b);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().imported.skipped_resource_records).toBe(0);
    // The same records as DNS sees them: names without case or final dot, text in its 255-byte strings.
    const onTheWire = (list: { name: string; type: RRsetType; ttl: number; records: unknown[][] }[]) =>
      list.map((set) => ({
        ...set,
        records: set.records.map((parts) =>
          set.type === 'TXT' ? JSON.stringify(parts.flatMap((p) => chunks(String(p)).map(String))) : recordKey(set.type, parts),
        ),
      }));
    expect(onTheWire(await sets('trip.example', b))).toEqual(onTheWire(await sets('trip.example')));
    const second = (await call('GET', '/dns/v2/zones/trip.example/export', undefined, b)).json().raw_zone as string;
    const withoutSerial = (text: string) => text.replace(/serial \d+/, 'serial N').replace(/^\t+\d+\t; serial$/m, 'SERIAL');
    // Disabled records are comments: they do not come back (enabled records and everything else do).
    expect(withoutSerial(second)).toBe(withoutSerial(first).replace(/^; disabled: .*\n/gm, ''));
    const zones = await Promise.all([a, b].map(async (account) => (await call('GET', '/dns/v2/zones/trip.example', undefined, account)).json()));
    expect(zones[1]).toMatchObject({ contact: zones[0].contact, nx_ttl: 600, refresh: zones[0].refresh });
    expect(zones[1].serial).toBeGreaterThanOrEqual(zones[0].serial);
  });
});
