// Cloud bodies are cleaned with their unions ordered once (withUnionsSorted) and TypeBox's per-call
// ordering off: for every body schema of the cloud products, that cleans generated bodies (with
// undeclared keys added at every level) exactly as Value.Clean with its own ordering does.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { Type, type TSchema } from 'typebox';
import { Settings } from 'typebox/system';
import { Value } from 'typebox/value';
import { afterAll, describe, expect, it } from 'vitest';
import { validValue } from '../../../tests/reliability/support/schema-arb.js';
import { withUnionsSorted } from './route-rules.js';

const cloudDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function bodySchemas(): Promise<[string, TSchema][]> {
  const found: [string, TSchema][] = [];
  for (const dir of fs.readdirSync(cloudDir)) {
    const file = path.join(cloudDir, dir, 'schemas.ts');
    if (!fs.existsSync(file)) continue;
    for (const [name, value] of Object.entries(await import(file))) {
      if (name.endsWith('Body') && value && typeof value === 'object') found.push([`${dir}.${name}`, value as TSchema]);
    }
  }
  return found;
}

/** The value with an undeclared key added to every object in it. */
function withExtras(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withExtras);
  if (value === null || typeof value !== 'object') return value;
  return { ...Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withExtras(v)])), undeclared_extra: { nested: 1 } };
}

function clean(schema: TSchema, value: unknown, sortEachCall: boolean): unknown {
  Settings.Set({ unionPrioritySort: sortEachCall });
  return Value.Clean(schema, structuredClone(value));
}

afterAll(() => Settings.Set({ unionPrioritySort: false }));

describe('cloud body cleaning with unions ordered once', () => {
  it('cleans generated bodies of every cloud body schema as Value.Clean ordering on each call does', async () => {
    const schemas = await bodySchemas();
    expect(schemas.length).toBeGreaterThan(40);
    let unions = 0;
    for (const [name, schema] of schemas) {
      const sorted = withUnionsSorted(schema);
      if (JSON.stringify(schema).includes('"anyOf"')) unions += 1;
      const samples = fc.sample(validValue(schema as never).map(withExtras), { numRuns: 25, seed: 20261129 });
      for (const body of samples) {
        expect(clean(sorted, body, false), name).toEqual(clean(schema, body, true));
      }
    }
    // The schemas with unions are the ones the ordering matters for.
    expect(unions).toBeGreaterThan(5);
  });

  it('orders unions where the order decides what is kept, at every depth, as Value.Clean does', () => {
    // {a, b} fits both variants; ordered narrowest first, the second keeps b, the first would drop it.
    const wide = Type.Object({ a: Type.String() });
    const narrow = Type.Object({ a: Type.String(), b: Type.Number() });
    const either = Type.Union([wide, narrow]);
    const schema = Type.Object({
      top: either,
      list: Type.Array(either),
      map: Type.Record(Type.String(), either),
      pair: Type.Tuple([either, Type.Union([Type.String(), Type.Literal('x')])]),
      both: Type.Intersect([Type.Object({ c: Type.Optional(either) }), Type.Object({ d: Type.Optional(Type.Number()) })]),
    });
    const item = { a: 'x', b: 1, z: true };
    const body = { top: item, list: [item, item], map: { k: item }, pair: [item, 'x'], both: { c: item, d: 2 }, z: 1 };
    const expected = clean(schema, body, true);
    expect(expected).toMatchObject({
      top: { a: 'x', b: 1 },
      list: [
        { a: 'x', b: 1 },
        { a: 'x', b: 1 },
      ],
      map: { k: { a: 'x', b: 1 } },
    });
    expect(clean(withUnionsSorted(schema), body, false)).toEqual(expected);
    // Without the ordering the wide variant wins and b is lost: the case above tests the ordering.
    expect(clean(schema, body, false)).not.toEqual(expected);
  });

  it('drops undeclared fields of a created instance before the service sees them', async () => {
    const { InstanceCreateBody } = await import('../instances/schemas.js');
    const body = {
      name: 'vm',
      flavor: 'g1-standard-1-2',
      volumes: [{ source: 'new-volume', size: 10, extra: 1 }],
      interfaces: [{ type: 'external', extra: 2 }],
      extra: 3,
    };
    expect(clean(withUnionsSorted(InstanceCreateBody), body, false)).toEqual({
      name: 'vm',
      flavor: 'g1-standard-1-2',
      volumes: [{ source: 'new-volume', size: 10 }],
      interfaces: [{ type: 'external' }],
    });
  });
});
