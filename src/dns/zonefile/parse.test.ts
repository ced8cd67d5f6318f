// The zone file reader and writer on their own: RFC 1035 master-file syntax as BIND writes it, and a
// written file read back gives the same records.
import { beforeAll, describe, expect, it } from 'vitest';
import { turnsDuring } from '../../../tests/support/event-loop.js';
import { type ParsedZoneFile, parseZoneFile } from './parse.js';
import { ZoneFileError } from './tokens.js';
import { canonicalCompare, writeZoneFile } from './write.js';

const ZONE = `
; A zone in the forms real files use
$ORIGIN example.com.
$TTL 1h
@   IN  SOA ns1.example.net. hostmaster.example.com. (
        2024010101 ; serial
        2h         ; refresh
        15M        ; retry
        2w         ; expire
        300 )      ; minimum
    IN  NS  ns1.example.net.
    IN  NS  ns2.example.net.
@       300 IN MX 10 mail
@       IN 300 MX 20 mail2.example.com.
www     60  A     192.0.2.1
        60  A     192.0.2.2
v6      AAAA 2001:db8::1
alias   CNAME www
txt     TXT "v=spf1 include:_spf.example.net -all"
dkim    TXT ( "v=DKIM1; k=rsa; p=MIIB"
              "AQAB" )
quote   TXT "say \\"hi\\"; not a comment" \\059plain
_sip._tcp SRV 10 60 5060 sip
caa     CAA 0 issue "ca.example.net"
svc     HTTPS 1 . alpn="h3,h2" port=8443 ipv4hint=192.0.2.1,192.0.2.2 no-default-alpn
sub     NS  ns.sub
sub     DS  12345 13 2 ( 0123456789ABCDEF0123456789ABCDEF
                         0123456789ABCDEF0123456789ABCDEF )
$ORIGIN sub2.example.com.
host    A   192.0.2.9
*.wild.example.com. 120 in a 192.0.2.10
loc     LOC 52 22 23.000 N 4 53 32.000 E -2.00m 0.00m 10000m 10m
`;

describe('parseZoneFile', () => {
  let parsed: ParsedZoneFile;
  beforeAll(async () => {
    parsed = await parseZoneFile(ZONE, 'example.com');
  });
  const find = (name: string, type: string) => parsed.records.filter((r) => r.name === name && r.type === type);

  it('reads the SOA with TTL units, over several lines', () => {
    expect(find('example.com', 'SOA')).toEqual([
      { line: 5, name: 'example.com', type: 'SOA', ttl: 3600, parts: ['ns1.example.net.', 'hostmaster.example.com.', 2024010101, 7200, 900, 1209600, 300] },
    ]);
  });

  it('gives a blank owner the previous owner, and a missing TTL the $TTL', () => {
    expect(find('example.com', 'NS').map((r) => [r.ttl, r.parts])).toEqual([
      [3600, ['ns1.example.net.']],
      [3600, ['ns2.example.net.']],
    ]);
    expect(find('www.example.com', 'A').map((r) => [r.ttl, r.parts[0]])).toEqual([
      [60, '192.0.2.1'],
      [60, '192.0.2.2'],
    ]);
  });

  it('takes TTL and class in either order, and makes relative names absolute', () => {
    expect(find('example.com', 'MX').map((r) => [r.ttl, r.parts])).toEqual([
      [300, [10, 'mail.example.com.']],
      [300, [20, 'mail2.example.com.']],
    ]);
    expect(find('alias.example.com', 'CNAME')[0].parts).toEqual(['www.example.com.']);
    expect(find('_sip._tcp.example.com', 'SRV')[0].parts).toEqual([10, 60, 5060, 'sip.example.com.']);
  });

  it('reads quoted strings with escapes, strings continued in parentheses, and \\DDD', () => {
    expect(find('dkim.example.com', 'TXT')[0].parts).toEqual(['v=DKIM1; k=rsa; p=MIIB', 'AQAB']);
    expect(find('quote.example.com', 'TXT')[0].parts).toEqual(['say "hi"; not a comment', ';plain']);
  });

  it('reads SVCB parameters, DS digests in pieces, wildcards and lower-case class and type', () => {
    expect(find('svc.example.com', 'HTTPS')[0].parts).toEqual([
      1,
      '.',
      ['alpn', 'h3', 'h2'],
      ['port', 8443],
      ['ipv4hint', '192.0.2.1', '192.0.2.2'],
      ['no-default-alpn'],
    ]);
    expect(find('sub.example.com', 'DS')[0].parts).toEqual([12345, 13, 2, '0123456789ABCDEF'.repeat(4)]);
    expect(find('*.wild.example.com', 'A')[0]).toMatchObject({ ttl: 120, parts: ['192.0.2.10'] });
  });

  it('follows $ORIGIN for the names after it', () => {
    expect(find('host.sub2.example.com', 'A')[0].parts).toEqual(['192.0.2.9']);
  });

  it('skips types the API does not keep, and says where', () => {
    expect(parsed.skipped).toEqual([{ line: 32, name: 'loc.sub2.example.com', type: 'LOC', reason: 'LOC records are not kept by this API' }]);
  });

  it.each([
    ['$INCLUDE other.zone', /line 1: \$INCLUDE is not supported/],
    ['www A 192.0.2.1', /no TTL/],
    ['$TTL 60\nwww A 192.0.2.300', /line 2: a A record "192.0.2.300" is not an IPv4 address/],
    ['$TTL 60\nwww CH A 192.0.2.1', /class CH/],
    ['$TTL 60\nwww MX mail', /line 2: MX expects preference exchange/],
    ['$TTL 60\nwww TXT "open', /not closed/],
    ['$TTL 60\n@ SOA ns. host. ( 1 2 3 4 5', /parenthesis is not closed/],
    ['$TTL 60\n  A 192.0.2.1', /no owner/],
    ['$TTL 60\nwww', /no type/],
    ['$TTL 60\nw\\.w A 192.0.2.1', /escapes/],
    ['$FOO 1', /unknown directive/],
  ])('refuses %j', async (text, message) => {
    await expect(parseZoneFile(text, 'example.com')).rejects.toThrow(ZoneFileError);
    await expect(parseZoneFile(text, 'example.com')).rejects.toThrow(message);
  });
});

describe('parseZoneFile on the main thread', () => {
  it('decodes escaped bytes as UTF-8, beside unescaped text of any plane', async () => {
    const { records } = await parseZoneFile('$TTL 60\nwww TXT "caf\\195\\169 \u{1F600} \\"q\\""\n', 'example.com');
    expect(records[0].parts).toEqual(['caf\u00e9 \u{1F600} "q"']);
  });

  it('stops at the first record refused, without reading the rest of the file', async () => {
    // Line 5 would be an error; the third record is refused first.
    const text = '$TTL 60\na A 192.0.2.1\nb A 192.0.2.2\nc A 192.0.2.3\nd BOGUS x\n';
    const asked: string[] = [];
    const parsed = await parseZoneFile(text, 'example.com', (name, type) => {
      asked.push(`${name} ${type}`);
      return asked.length === 3 ? 'over the quota' : undefined;
    });
    expect(parsed.refused).toBe('over the quota');
    expect(parsed.records.map((r) => r.name)).toEqual(['a.example.com', 'b.example.com']);
    expect(asked).toEqual(['a.example.com A', 'b.example.com A', 'c.example.com A']);
  });

  it('gives other work a turn while it reads a large file', async () => {
    const text = '$TTL 60\n' + Array.from({ length: 30_000 }, (_, i) => `h${i} A 192.0.2.${i % 250}\n`).join('');
    const { result, turns } = await turnsDuring(() => parseZoneFile(text, 'example.com'));
    const { records } = result;
    expect(records).toHaveLength(30_000);
    expect(turns).toBeGreaterThan(1);
  });
});

describe('writeZoneFile', () => {
  const zone = {
    name: 'example.com',
    primary_server: 'ns1.edgeplane.test',
    contact: 'john.doe@example.com',
    serial: 7,
    refresh: 3600,
    retry: 600,
    expiry: 604800,
    nx_ttl: 300,
  };

  it('writes the SOA, the platform NS, then the sets in DNS order; disabled records as comments', () => {
    const text = writeZoneFile(zone, [
      {
        name: 'www.example.com',
        type: 'A',
        ttl: 60,
        records: [
          { parts: ['192.0.2.1'], enabled: true },
          { parts: ['192.0.2.2'], enabled: false },
        ],
      },
      { name: 'example.com', type: 'MX', ttl: 300, records: [{ parts: [10, 'mail.example.com'], enabled: true }] },
      { name: 'a.www.example.com', type: 'TXT', ttl: 300, records: [{ parts: ['x'], enabled: true }] },
    ]);
    expect(text).toBe(
      [
        '; Zone example.com, serial 7',
        '$ORIGIN example.com.',
        '@\t300\tIN\tSOA\tns1.edgeplane.test. john\\.doe.example.com. (',
        '\t\t\t\t7\t; serial',
        '\t\t\t\t3600\t; refresh',
        '\t\t\t\t600\t; retry',
        '\t\t\t\t604800\t; expire',
        '\t\t\t\t300 )\t; minimum (negative answers)',
        '@\t3600\tIN\tNS\tns1.edgeplane.test.',
        '@\t3600\tIN\tNS\tns2.edgeplane.test.',
        '@\t300\tIN\tMX\t10 mail.example.com.',
        'www\t60\tIN\tA\t192.0.2.1',
        '; disabled: www\t60\tIN\tA\t192.0.2.2',
        'a.www\t300\tIN\tTXT\t"x"',
        '',
      ].join('\n'),
    );
  });

  it('reads back what it wrote', async () => {
    const sets = (await parseZoneFile(ZONE, 'example.com')).records.filter((r) => r.type !== 'SOA');
    const grouped = new Map<string, { name: string; type: never; ttl: number; records: { parts: unknown[]; enabled: boolean }[] }>();
    for (const r of sets) {
      const key = `${r.name} ${r.type}`;
      if (!grouped.has(key)) grouped.set(key, { name: r.name, type: r.type as never, ttl: r.ttl, records: [] });
      grouped.get(key)!.records.push({ parts: r.parts, enabled: true });
    }
    const text = writeZoneFile(zone, [...grouped.values()]);
    const again = (await parseZoneFile(text, 'example.com')).records.filter(
      (r) => r.type !== 'SOA' && !(r.name === 'example.com' && r.type === 'NS' && String(r.parts[0]).includes('edgeplane')),
    );
    const strip = (rs: typeof sets) =>
      rs.map(({ name, type, ttl, parts }) => ({ name, type, ttl, parts })).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
    expect(strip(again)).toEqual(strip(sets));
    const soa = (await parseZoneFile(text, 'example.com')).records.find((r) => r.type === 'SOA')!;
    expect(soa.parts).toEqual(['ns1.edgeplane.test.', 'john\\.doe.example.com.', 7, 3600, 600, 604800, 300]);
  });

  it('orders names the way DNS does', () => {
    expect(['b.example.com', 'example.com', 'a.b.example.com', 'z.example.com', 'a.example.com'].sort(canonicalCompare)).toEqual([
      'example.com',
      'a.example.com',
      'b.example.com',
      'a.b.example.com',
      'z.example.com',
    ]);
  });
});
