// What a body schema declares, and the pruning of the rest before validation.
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { bodyShape, pruneUndeclared } from './body-shape.js';
import { CLOSED, Nullable, ReadOnlyField } from './schema.js';

const pruned = (schema: unknown, value: unknown) => {
  const shape = bodyShape(schema);
  const copy = structuredClone(value);
  const dropped = shape ? pruneUndeclared(copy, shape) : false;
  return { value: copy, dropped };
};

describe('bodyShape', () => {
  it('names the members of objects and the items of arrays, as deep as the schema declares them', () => {
    const schema = Type.Object({ name: Type.String(), rules: Type.Array(Type.Object({ path: Type.String() })) });
    expect(bodyShape(schema)).toEqual({
      keys: { name: null, rules: { items: { keys: { path: null }, open: false } } },
      open: false,
    });
  });

  it('leaves unions, references, counts and name patterns to validation', () => {
    for (const schema of [
      Nullable(Type.Object({ a: Type.String() })),
      Type.Union([Type.Object({ a: Type.String() }), Type.Object({ b: Type.String() })]),
      { $ref: 'Other' },
      Type.Object({ a: Type.String() }, { minProperties: 1 }),
      Type.Record(Type.String(), Type.String()),
      Type.Object({}, { additionalProperties: true }),
    ])
      expect(bodyShape(schema), JSON.stringify(schema)).toBeNull();
  });

  it('keeps the unnamed members of an object open to them, and prunes inside its named ones', () => {
    const schema = Type.Object({ inner: Type.Object({ a: Type.String() }) }, { additionalProperties: Type.String() });
    expect(bodyShape(schema)).toEqual({ keys: { inner: { keys: { a: null }, open: false } }, open: true });
  });
});

describe('pruneUndeclared', () => {
  const Template = Type.Object({
    name: Type.String(),
    options: Type.Optional(Type.Object({ gzip: Type.Optional(Type.Object({ enabled: Type.Boolean() })) })),
    hosts: Type.Optional(Type.Array(Type.Object({ host: Type.String() }))),
    labels: Type.Optional(Type.Record(Type.String(), Type.String())),
    origin: Type.Optional(Nullable(Type.Object({ url: Type.String() }))),
    id: Type.Optional(ReadOnlyField()),
  });

  it('drops undeclared members at every declared level, keeps free-form maps and union members whole', () => {
    const { value, dropped } = pruned(Template, {
      name: 'n',
      padding: [{ k: 1 }],
      options: { gzip: { enabled: true, extra: 1 }, unknownOption: {} },
      hosts: [{ host: 'a', weight: 1 }, 'not an object', null],
      labels: { any: 'thing' },
      origin: { url: 'u', kept: 'for the union to judge' },
      id: 7,
    });
    expect(dropped).toBe(true);
    expect(value).toEqual({
      name: 'n',
      options: { gzip: { enabled: true } },
      hosts: [{ host: 'a' }, 'not an object', null],
      labels: { any: 'thing' },
      origin: { url: 'u', kept: 'for the union to judge' },
      // Declared (read-only): kept, so validation refuses it by name.
      id: 7,
    });
  });

  it('leaves a value of the wrong type to validation, and says when nothing was dropped', () => {
    expect(pruned(Template, { name: 'n', options: ['x'], hosts: { host: 'a' } })).toEqual({
      value: { name: 'n', options: ['x'], hosts: { host: 'a' } },
      dropped: false,
    });
    expect(pruned(Template, [{ name: 'n' }])).toEqual({ value: [{ name: 'n' }], dropped: false });
  });

  it('keeps the unknown members of a closed object, which validation refuses, and required members the schema does not name', () => {
    expect(pruned(Type.Object({ a: Type.String() }, CLOSED), { a: 'x', b: 1 }).value).toEqual({ a: 'x', b: 1 });
    expect(pruned({ type: 'object', properties: { a: {} }, required: ['a', 'b'] }, { b: 1, c: 2 }).value).toEqual({ b: 1 });
  });

  it('reads a shape that crossed to a thread (a plain object, whose prototype has toString)', () => {
    const shape = structuredClone(bodyShape(Type.Object({ a: Type.String() })))!;
    const value = { a: 'x', toString: 'dropped', constructor: 'dropped' };
    expect(pruneUndeclared(value, shape)).toBe(true);
    expect(value).toEqual({ a: 'x' });
  });
});
