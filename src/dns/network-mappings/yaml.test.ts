// Network-mapping imports read in the thread and where they arrive give the same mappings and the same
// refusals; a large import leaves the event loop free; an import past the time limit is refused and
// the thread replaced.
import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../tests/support/app.js';
import { turnsDuring } from '../../../tests/support/event-loop.js';
import { MappingImportReading, readMappings } from './yaml.js';

const entries = (count: number, last = '10.0.0.0/24') =>
  Array.from({ length: count }, (_, i) => `  - tags: [t${i}]\n    cidr4: [${i === count - 1 ? last : `10.${i % 250}.${(i >> 8) % 250}.0/24`}]`).join('\n');

const FILES: [string, string][] = [
  ['two documents', `name: one\nmapping:\n${entries(3)}\n---\nname: two\nmapping:\n  - tags: [x]\n    cidr6: [aa:10::/64]\n`],
  ['a mapping of 1,000 entries', `name: large\nmapping:\n${entries(1_000)}\n`],
  ['a bad network at the end of a large mapping', `name: bad\nmapping:\n${entries(1_000, '300.0.0.0/8')}\n`],
  ['a mapping of 1,001 entries', `name: long\nmapping:\n${entries(1_001)}\n`],
  ['too many documents', Array.from({ length: 101 }, (_, i) => `name: n${i}\nmapping: []`).join('\n---\n')],
  ['a name twice', 'name: same\n---\nname: same\n'],
  ['an alias bomb', 'a: &a [x]\nb: *a\nname: n'],
  ['brackets nested too deep', `name: n\nmapping: ${'['.repeat(5_000)}${']'.repeat(5_000)}`],
  ['broken YAML', `name: [unclosed\n${entries(2_000)}`],
];

describe('MappingImportReading', () => {
  const threaded = new MappingImportReading(0);
  afterAll(() => threaded.close());

  it.each(FILES)('reads %s in the thread as where it arrives', async (_label, text) => {
    const inline = readMappings(text, 100);
    expect(await threaded.read(text, 100)).toEqual(inline);
  });

  it('refuses an import past its time limit, and reads the next one with a new thread', async () => {
    const slow = new MappingImportReading(0, 5);
    try {
      const read = await slow.read(`name: slow\nmapping:\n${entries(2_000)}\n`, 100);
      expect(read).toEqual({ problem: expect.stringMatching(/could not be read \(it took more than 0.005 s to read\)/) });
      const fast = new MappingImportReading(0, 10_000);
      try {
        expect(await fast.read('name: after\nmapping: []\n', 100)).toEqual({ mappings: [{ name: 'after', mapping: [] }] });
      } finally {
        await fast.close();
      }
    } finally {
      await slow.close();
    }
  });

  it('leaves the event loop free while a large import is read, and refuses it at the route as before', async () => {
    const t = await createTestApp();
    try {
      const a = await t.account();
      const body = `name: big\nmapping:\n${entries(10_000, '300.0.0.0/8')}\n`;
      const { result, turns } = await turnsDuring(() =>
        t.request('POST', '/dns/v2/network-mappings/import', { headers: { ...a.headers, 'content-type': 'text/plain' }, body }),
      );
      expect(result.statusCode).toBe(400);
      expect(result.json().error).toMatch(/mapping: at most 1000 entries/);
      expect(turns).toBeGreaterThan(10);
    } finally {
      await t.close();
    }
  });
});
