// Values made for patterns: the same seed gives the same text whatever was made before it, and the text
// is what a new RandExp makes (the generators kept per pattern change speed, not values).
import RandExp from 'randexp';
import { describe, expect, it } from 'vitest';
import { readCatalogue } from '../platform/catalogue/index.js';
import { fill, reportMaker, seededInt } from './fill.js';
import { Schemas } from './schema.js';

const ctx = { schemas: new Schemas(readCatalogue()), now: 0, known: {} };
const PATTERNS = ['^[a-z0-9-]+$', '^[^\\s]+$', '^(ab|cd)[0-9]{2,4}(-[A-F]+)?$', '^(a|b)x\\1$', '^\\w+@[\\w.-]+\\.(com|org)$'];

/** What a new RandExp makes for a seed, as the engine did before it kept a generator per pattern. */
function fresh(pattern: string, seed: string): string {
  const generator = new RandExp(pattern);
  generator.max = 8;
  let state = seededInt(seed, 1, 2 ** 31 - 2);
  generator.randInt = (from, to) => {
    state = (state * 48271) % 2147483647;
    return from + (state % (to - from + 1));
  };
  return generator.gen();
}

describe('string values for a pattern', () => {
  it('are those a new generator makes, match the pattern, and do not depend on the values made before', () => {
    for (const pattern of PATTERNS) {
      const schema = { type: 'string', pattern };
      const seeds = Array.from({ length: 50 }, (_, i) => `field-${i}`);
      const first = seeds.map((seed) => fill(schema, seed, ctx));
      const backwards = [...seeds].reverse().map((seed) => fill(schema, seed, ctx));
      expect(backwards.reverse(), pattern).toEqual(first);
      for (const [i, value] of first.entries()) {
        expect(value, pattern).toBe(fresh(pattern, seeds[i]));
        expect(value, pattern).toMatch(new RegExp(pattern));
      }
    }
  });
});

describe('reports made in a thread (reportMaker)', () => {
  it("are the main thread's: the schema sent as JSON, its components read from the thread's own catalogue", () => {
    const catalogue = readCatalogue();
    const op = catalogue.operations.find((o) => o.method === 'GET' && o.path === '/streaming/statistics/views')!;
    const schema = op.responses['200'].content['application/json'];
    const series = { from: Date.parse('2026-01-01T00:00:00Z'), to: Date.parse('2026-01-03T00:00:00Z'), stepMs: 3_600_000 };
    const known = { client_id: 7 };
    const here = fill(schema, 'views', { ...ctx, now: series.to, known, optional: true, series });
    const make = reportMaker(() => new Schemas(readCatalogue()));
    const call = { key: 'GET /streaming/statistics/views', schema: JSON.stringify(schema), seed: 'views', now: series.to, known, series };
    const made = make(structuredClone(call));
    expect(made).toEqual(here);
    expect(JSON.stringify(made)).toContain('2026-01-02');
    // The schema is parsed once per key; the same call gives the same report.
    expect(make(structuredClone(call))).toEqual(made);
  });
});
