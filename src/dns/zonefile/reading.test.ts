// A zone file read in the thread and the same file read on the main thread give the same records,
// skipped records, refusal at the quota and syntax errors.
import { afterAll, describe, expect, it } from 'vitest';
import { QUOTAS } from '../common/platform.js';
import { type ReadCall, ZoneFileReading } from './reading.js';

const inThread = new ZoneFileReading(0);
const onMainThread = new ZoneFileReading(Infinity);
afterAll(() => inThread.close());

const call = (text: string, types: [string, string[]][] = [], count = 0): ReadCall => ({ text, origin: 'example.com', types, count });
const hosts = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `h${from + i} 300 IN A 192.0.2.${(from + i) % 250}`).join('\n');

const FILES: Record<string, ReadCall> = {
  'every form': call(`$ORIGIN example.com.
$TTL 1h
@ IN SOA ns1.example.net. hostmaster.example.com. 2024010101 2h 15M 2w 300
  IN NS ns1.example.net.
www 60 A 192.0.2.1
    60 A 192.0.2.2
txt TXT ( "a" "b" )
old WKS 192.0.2.1 TCP ( 25 )
${hosts(3_000)}
`),
  'a syntax error after many good lines': call(`${hosts(2_000)}\nbad 300 IN A not-an-address\n${hosts(10, 5_000)}\n`),
  'over the quota, counting the sets the zone has': call(`${hosts(600)}\n`, [['h1.example.com', ['A']]], QUOTAS.rrsets - 500),
  'a directive the reader refuses': call(`${hosts(100)}\n$INCLUDE other.zone\n`),
};

describe('ZoneFileReading: a file read in the thread or on the main thread', () => {
  for (const [name, file] of Object.entries(FILES))
    it(`reads ${name} alike`, async () => {
      const main = await onMainThread.read(file);
      expect(await inThread.read(file)).toEqual(main);
    });

  it('covers what the cases claim: records kept and skipped, a refusal at the quota, syntax errors', async () => {
    const every = await onMainThread.read(FILES['every form']);
    expect('parsed' in every && every.parsed.records.length).toBe(3_005);
    expect('parsed' in every && every.parsed.skipped.map((s) => s.type)).toEqual(['WKS']);
    const over = await onMainThread.read(FILES['over the quota, counting the sets the zone has']);
    expect(over).toEqual({ refused: expect.stringMatching(/more than 10000 RRsets/) });
    // h1 is there already: the 500th new set fits, the 501st does not.
    const fits = await onMainThread.read({ ...FILES['over the quota, counting the sets the zone has'], text: `${hosts(501)}\n` });
    expect('parsed' in fits && fits.parsed.records.length).toBe(501);
    expect(await onMainThread.read({ ...FILES['over the quota, counting the sets the zone has'], text: `${hosts(502)}\n` })).toEqual(over);
    expect(await onMainThread.read(FILES['a syntax error after many good lines'])).toEqual({ syntaxError: expect.stringMatching(/^line 2001: /) });
    expect(await onMainThread.read(FILES['a directive the reader refuses'])).toEqual({ syntaxError: expect.stringMatching(/\$INCLUDE/) });
  });
});
