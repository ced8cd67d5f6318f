// The DNS listener answers what the API wrote, at once: queried with node's own resolver (c-ares) and
// with raw dns-packet messages over UDP and TCP, and with dig when it is installed.
import { execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import { promises as dnsPromises } from 'node:dns';
import net from 'node:net';
import packet from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { type DnsListener, startDnsListener } from './server.js';

let t: TestApp;
let a: TestAccount;
let dns: DnsListener;
let resolver: dnsPromises.Resolver;

const call = (method: string, url: string, body?: unknown) => t.request(method, url, { headers: a.headers, body });
const rrset = async (zone: string, name: string, type: string, contents: unknown[][], extra: Record<string, unknown> = {}) => {
  const res = await call('POST', `/dns/v2/zones/${zone}/${name}/${type}`, { ttl: 120, resource_records: contents.map((content) => ({ content })), ...extra });
  expect(res.statusCode, res.body).toBe(200);
};

function hasDig(): boolean {
  try {
    execFileSync('dig', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** One raw query over UDP (or TCP), answered as dns-packet decodes it. */
async function query(
  name: string,
  type: string,
  options: { tcp?: boolean; edns?: number; raw?: Buffer } = {},
): Promise<packet.Packet & { flag_aa?: boolean; flag_tc?: boolean; rcode?: string }> {
  const message =
    options.raw ??
    packet.encode({
      id: 4242,
      type: 'query',
      flags: packet.RECURSION_DESIRED,
      questions: [{ name, type: type as 'A' }],
      additionals: options.edns ? [{ type: 'OPT', name: '.', udpPayloadSize: options.edns } as unknown as packet.Answer] : [],
    });
  const bytes = options.tcp ? await overTcp(message) : await overUdp(message);
  return packet.decode(bytes) as never;
}

function overUdp(message: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket('udp4');
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error('no answer over UDP'));
    }, 2000);
    socket.on('message', (answer) => {
      clearTimeout(timer);
      socket.close();
      resolve(answer);
    });
    socket.send(message, dns.port, '127.0.0.1');
  });
}

function overTcp(message: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(dns.port, '127.0.0.1');
    let data = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      if (data.length >= 2 && data.length >= 2 + data.readUInt16BE(0)) {
        socket.end();
        resolve(data.subarray(2, 2 + data.readUInt16BE(0)));
      }
    });
    socket.on('error', reject);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(message.length);
    socket.write(Buffer.concat([length, message]));
  });
}

beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
  dns = await startDnsListener({ host: '127.0.0.1', port: 0, db: t.db, clock: t.clock, onError: (error) => console.error(error) });
  resolver = new dnsPromises.Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([`127.0.0.1:${dns.port}`]);
  expect((await call('POST', '/dns/v2/zones', { name: 'example.test', contact: 'hostmaster@example.test' })).statusCode).toBe(200);
});
afterAll(async () => {
  await dns?.close();
  await t?.close();
});

describe('answers what the API wrote', () => {
  it('answers an A RRset created a moment ago, with its TTL, authoritatively', async () => {
    await rrset('example.test', 'www.example.test', 'A', [['192.0.2.10'], ['192.0.2.11']]);
    expect((await resolver.resolve4('www.example.test', { ttl: true })).sort((x, y) => x.address.localeCompare(y.address))).toEqual([
      { address: '192.0.2.10', ttl: 120 },
      { address: '192.0.2.11', ttl: 120 },
    ]);
    const raw = await query('www.example.test', 'A');
    expect(raw).toMatchObject({ id: 4242, type: 'response', flag_aa: true, rcode: 'NOERROR' });
  });

  it('answers a change and a deletion at once', async () => {
    await rrset('example.test', 'moving.example.test', 'A', [['192.0.2.20']]);
    expect(await resolver.resolve4('moving.example.test')).toEqual(['192.0.2.20']);
    await call('PUT', '/dns/v2/zones/example.test/moving.example.test/A', { resource_records: [{ content: ['192.0.2.21'] }] });
    expect(await resolver.resolve4('moving.example.test')).toEqual(['192.0.2.21']);
    await call('DELETE', '/dns/v2/zones/example.test/moving.example.test/A');
    await expect(resolver.resolve4('moving.example.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('leaves disabled records out', async () => {
    await call('POST', '/dns/v2/zones/example.test/half.example.test/A', {
      resource_records: [{ content: ['192.0.2.30'] }, { content: ['192.0.2.31'], enabled: false }],
    });
    expect(await resolver.resolve4('half.example.test')).toEqual(['192.0.2.30']);
  });

  it('answers every type the API takes', async () => {
    await rrset('example.test', 'v6.example.test', 'AAAA', [['2001:db8::1']]);
    await rrset('example.test', 'example.test', 'MX', [
      [10, 'mail.example.test.'],
      [20, 'mail2.example.test'],
    ]);
    const long = 'k='.padEnd(400, 'x');
    await rrset('example.test', 'example.test', 'TXT', [['v=spf1 -all'], [long]]);
    await rrset('example.test', '_sip._tcp.example.test', 'SRV', [[10, 60, 5060, 'sip.example.test.']]);
    await rrset('example.test', 'example.test', 'CAA', [[0, 'issue', 'ca.example.net']]);
    await rrset('example.test', 'host.example.test', 'PTR', [['target.example.net.']]);
    expect(await resolver.resolve6('v6.example.test')).toEqual(['2001:db8::1']);
    expect((await resolver.resolveMx('example.test')).sort((x, y) => x.priority - y.priority)).toEqual([
      { exchange: 'mail.example.test', priority: 10 },
      { exchange: 'mail2.example.test', priority: 20 },
    ]);
    const txt = (await resolver.resolveTxt('example.test')).map((chunks) => chunks.join(''));
    expect(txt.sort()).toEqual([long, 'v=spf1 -all'].sort());
    expect(await resolver.resolveSrv('_sip._tcp.example.test')).toEqual([{ name: 'sip.example.test', port: 5060, priority: 10, weight: 60 }]);
    expect(await resolver.resolveCaa('example.test')).toEqual([{ critical: 0, issue: 'ca.example.net' }]);
    expect(await resolver.resolvePtr('host.example.test')).toEqual(['target.example.net']);
  });

  it('answers the zone SOA and the platform name servers at the apex', async () => {
    const zone = (await call('GET', '/dns/v2/zones/example.test')).json();
    expect(await resolver.resolveSoa('example.test')).toEqual({
      nsname: 'ns1.edgeplane.test',
      hostmaster: 'hostmaster.example.test',
      serial: zone.serial,
      refresh: 3600,
      retry: 600,
      expire: 604800,
      minttl: 300,
    });
    expect((await resolver.resolveNs('example.test')).sort()).toEqual(['ns1.edgeplane.test', 'ns2.edgeplane.test']);
  });

  it('follows a CNAME inside the zone and echoes the query name as asked', async () => {
    await rrset('example.test', 'alias.example.test', 'CNAME', [['www.example.test.']]);
    expect((await resolver.resolve4('alias.example.test')).sort()).toEqual(['192.0.2.10', '192.0.2.11']);
    expect(await resolver.resolveCname('alias.example.test')).toEqual(['www.example.test']);
    const raw = await query('ALIAS.Example.TEST', 'A');
    expect(raw.answers?.map((answer) => [answer.name, answer.type])).toEqual([
      ['ALIAS.Example.TEST', 'CNAME'],
      ['www.example.test', 'A'],
      ['www.example.test', 'A'],
    ]);
  });

  it('answers a wildcard for names that do not exist, not for names that do', async () => {
    await rrset('example.test', '*.apps.example.test', 'A', [['192.0.2.40']]);
    await rrset('example.test', 'real.apps.example.test', 'TXT', [['here']]);
    expect(await resolver.resolve4('anything.apps.example.test')).toEqual(['192.0.2.40']);
    await expect(resolver.resolve4('real.apps.example.test')).rejects.toMatchObject({ code: 'ENODATA' });
  });
});

describe('negative answers and refusals', () => {
  it('answers NXDOMAIN with the SOA for a name that does not exist', async () => {
    await expect(resolver.resolve4('missing.example.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    const raw = await query('missing.example.test', 'A');
    expect(raw).toMatchObject({ rcode: 'NXDOMAIN', flag_aa: true, answers: [] });
    expect(raw.authorities?.map((r) => [r.name, r.type, (r as { ttl: number }).ttl])).toEqual([['example.test', 'SOA', 300]]);
  });

  it('answers NODATA with the SOA for a type the name lacks, and for a name with only names below it', async () => {
    await expect(resolver.resolveMx('www.example.test')).rejects.toMatchObject({ code: 'ENODATA' });
    const raw = await query('www.example.test', 'MX');
    expect(raw).toMatchObject({ rcode: 'NOERROR', answers: [] });
    expect(raw.authorities?.map((r) => r.type)).toEqual(['SOA']);
    // _tcp.example.test holds nothing itself, but _sip._tcp.example.test is below it.
    expect(await query('_tcp.example.test', 'A')).toMatchObject({ rcode: 'NOERROR', answers: [] });
  });

  it('refuses a disabled zone, and answers it again once enabled', async () => {
    await call('PATCH', '/dns/v2/zones/example.test/disable');
    await expect(resolver.resolve4('www.example.test')).rejects.toMatchObject({ code: 'EREFUSED' });
    expect(await query('www.example.test', 'A')).toMatchObject({ rcode: 'REFUSED', flag_aa: false });
    await call('PATCH', '/dns/v2/zones/example.test/enable');
    expect((await resolver.resolve4('www.example.test')).length).toBe(2);
  });

  it('refuses names in no hosted zone, zone transfers and other classes', async () => {
    await expect(resolver.resolve4('www.not-hosted.example')).rejects.toMatchObject({ code: 'EREFUSED' });
    expect(await query('example.test', 'AXFR', { tcp: true })).toMatchObject({ rcode: 'REFUSED' });
    const chaos = packet.encode({ id: 7, type: 'query', questions: [{ name: 'version.bind', type: 'TXT', class: 'CH' }] });
    expect(await query('', '', { raw: chaos })).toMatchObject({ id: 7, rcode: 'REFUSED' });
  });

  it('answers a malformed message with FORMERR and its id', async () => {
    const garbage = Buffer.from([0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff]);
    expect(await query('', '', { raw: garbage })).toMatchObject({ id: 0x1234, rcode: 'FORMERR' });
  });
});

describe('delegations, sizes, transports', () => {
  it('refers a delegated name to its name servers, with glue from the zone', async () => {
    await rrset('example.test', 'child.example.test', 'NS', [['ns1.child.example.test.'], ['ns.elsewhere.example.']]);
    await rrset('example.test', 'ns1.child.example.test', 'A', [['192.0.2.53']]);
    const raw = await query('www.child.example.test', 'A');
    expect(raw).toMatchObject({ rcode: 'NOERROR', flag_aa: false, answers: [] });
    expect(raw.authorities?.map((r) => [r.name, r.type, (r as { data: string }).data]).sort()).toEqual([
      ['child.example.test', 'NS', 'ns.elsewhere.example'],
      ['child.example.test', 'NS', 'ns1.child.example.test'],
    ]);
    expect(raw.additionals?.map((r) => [r.name, r.type, (r as { data: string }).data])).toEqual([['ns1.child.example.test', 'A', '192.0.2.53']]);
  });

  it('truncates a large UDP answer, which the resolver then gets over TCP', async () => {
    const addresses = Array.from({ length: 60 }, (_, i) => [`198.51.100.${i + 1}`]);
    await rrset('example.test', 'big.example.test', 'A', addresses);
    const udp = await query('big.example.test', 'A');
    expect(udp).toMatchObject({ flag_tc: true, answers: [] });
    const tcp = await query('big.example.test', 'A', { tcp: true });
    expect(tcp.answers).toHaveLength(60);
    expect((await resolver.resolve4('big.example.test')).length).toBe(60);
  });

  it('answers with EDNS up to the size the client offers, at most 1232 bytes', async () => {
    const raw = await query('big.example.test', 'A', { edns: 4096 });
    expect(raw.flag_tc).toBe(true);
    const small = await query('www.example.test', 'A', { edns: 1232 });
    expect(small.additionals?.find((r) => r.type === 'OPT')).toMatchObject({ udpPayloadSize: 1232 });
    expect(small.answers).toHaveLength(2);
  });

  it('encodes HTTPS records (RFC 9460) on the wire', async () => {
    await rrset('example.test', 'svc.example.test', 'HTTPS', [[1, '.', ['alpn', 'h3', 'h2'], ['port', 8443], ['ipv4hint', '192.0.2.1']]]);
    const raw = await query('svc.example.test', 'UNKNOWN_65');
    const data = (raw.answers?.[0] as { data: Buffer }).data;
    // priority 1, root target, alpn (key 1) "h3" "h2", port (key 3) 8443, ipv4hint (key 4) 192.0.2.1
    expect(data.toString('hex')).toBe('0001' + '00' + '0001' + '0006' + '026833' + '026832' + '0003' + '0002' + '20fb' + '0004' + '0004' + 'c0000201');
  });

  it('applies pickers: the record whose ip meta holds the client, then first_n', async () => {
    await call('POST', '/dns/v2/zones/example.test/picked.example.test/A', {
      resource_records: [
        { content: ['192.0.2.60'], meta: { ip: ['10.0.0.0/8'] } },
        { content: ['192.0.2.61'], meta: { ip: '127.0.0.0/8' } },
        { content: ['192.0.2.62'] },
      ],
      pickers: [{ type: 'ip' }, { type: 'first_n', limit: 1 }],
    });
    expect(await resolver.resolve4('picked.example.test')).toEqual(['192.0.2.61']);
  });

  it('publishes the DNSKEY while DNSSEC is on', async () => {
    const on = await call('PATCH', '/dns/v2/zones/example.test/dnssec', { enabled: true });
    expect(on.statusCode).toBe(200);
    const raw = await query('example.test', 'DNSKEY');
    const key = raw.answers?.[0] as { type: string; data: { flags: number; algorithm: number; key: Buffer } };
    expect(key.type).toBe('DNSKEY');
    expect(key.data).toMatchObject({ flags: 257, algorithm: 13 });
    expect(key.data.key.toString('base64')).toBe(on.json().public_key);
    await call('PATCH', '/dns/v2/zones/example.test/dnssec', { enabled: false });
    expect((await query('example.test', 'DNSKEY')).answers).toEqual([]);
  });
});

describe('statistics of answered queries', () => {
  it('counts the queries a zone answered, per slot and type', async () => {
    await call('POST', '/dns/v2/zones', { name: 'counted.test' });
    await rrset('counted.test', 'www.counted.test', 'A', [['192.0.2.70']]);
    const own = await startDnsListener({ host: '127.0.0.1', port: 0, db: t.db, clock: t.clock, onError: () => {} });
    const counted = new dnsPromises.Resolver({ timeout: 2000, tries: 1 });
    counted.setServers([`127.0.0.1:${own.port}`]);
    for (let i = 0; i < 3; i++) await counted.resolve4('www.counted.test');
    await expect(counted.resolveMx('www.counted.test')).rejects.toMatchObject({ code: 'ENODATA' });
    // Closing writes what the listener counted.
    await own.close();
    const stats = (await call('GET', '/dns/v2/zones/counted.test/statistics?granularity=1m')).json();
    expect(stats.total).toBe(4);
    expect(Object.values(stats.requests)).toEqual([4]);
    expect(Number(Object.keys(stats.requests)[0]) % 60_000).toBe(0);
    expect((await call('GET', '/dns/v2/zones/counted.test/statistics?record_type=MX')).json().total).toBe(1);
    expect((await call('GET', '/dns/v2/zones/all/statistics')).json().total).toBeGreaterThanOrEqual(4);
  });
});

describe.skipIf(!hasDig())('dig', () => {
  it('gets the records the API wrote', () => {
    const out = execFileSync('dig', ['@127.0.0.1', '-p', String(dns.port), 'www.example.test', 'A', '+short'], { encoding: 'utf8' });
    expect(out.trim().split('\n').sort()).toEqual(['192.0.2.10', '192.0.2.11']);
    const full = execFileSync('dig', ['@127.0.0.1', '-p', String(dns.port), 'missing.example.test', 'A'], { encoding: 'utf8' });
    expect(full).toMatch(/status: NXDOMAIN/);
    expect(full).toMatch(/flags: qr aa rd/);
    const tcp = execFileSync('dig', ['@127.0.0.1', '-p', String(dns.port), '+tcp', 'svc.example.test', 'HTTPS', '+short'], { encoding: 'utf8' });
    expect(tcp.trim()).toBe('1 . alpn="h3,h2" port=8443 ipv4hint=192.0.2.1');
  });
});
