// Code compiled ahead of time (the build's dist/schema-code) must validate, coerce, fill defaults, drop
// unknown fields, report errors and serialise exactly as the same schemas compiled on first use.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Type } from 'typebox';
import { afterAll, describe, expect, it } from 'vitest';
import { Nullable, ReadOnlyField, StringEnum } from './schema.js';
import { RUNTIME_HELPERS, SCHEMA_CODE_CACHE_SUFFIX, SchemaCodePack, schemaCodeKey, writeSchemaCodePack } from './schema-code.js';
import { assertKnownRequires, requiredBy, SchemaCodeWriter } from './schema-code-writer.js';
import { createSchemaCompiler, createSerializerCompiler } from './validation.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-schema-code-'));
const pack = path.join(dir, 'schema-code.pack');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const Options = Type.Object({
  enabled: Type.Boolean({ default: true }),
  value: Nullable(Type.Array(Type.String({ format: 'hostname' }), { maxItems: 3 })),
});
const Body = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    kind: Type.Optional(StringEnum(['a', 'b'])),
    size: Type.Optional(Type.Integer()),
    options: Type.Optional(Type.Object({ gzip: Type.Optional(Nullable(Options)), cors: Type.Optional(Nullable(Options)) }, { additionalProperties: false })),
    origin: Type.Optional(
      Type.Union([
        Type.Object({ host: Type.String() }, { additionalProperties: false }),
        Type.Object({ group: Type.Integer() }, { additionalProperties: false }),
      ]),
    ),
    id: Type.Optional(ReadOnlyField()),
    created: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);
const Query = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, default: 10 })), tag: Type.Optional(Type.Array(Type.String())) });
const Answer = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  note: Nullable(Type.String()),
  items: Type.Array(Type.Object({ at: Type.String({ format: 'date-time' }) })),
});
const Listing = Type.Union([Type.Array(Answer), Type.Object({ count: Type.Integer(), results: Type.Array(Answer) })]);

const routes = [
  { schema: Body, url: '/things', httpPart: 'body' },
  { schema: Body, url: '/_edgeplane/things', httpPart: 'body' },
  { schema: Query, url: '/things', httpPart: 'querystring' },
] as const;

/** The compilers over the same route schemas: compiling on first use, or loading what `writer` wrote. */
function compilers(ahead?: SchemaCodePack | SchemaCodeWriter) {
  const validators = createSchemaCompiler(ahead);
  const serializers = createSerializerCompiler(ahead);
  return {
    validators: routes.map((r) => validators({ schema: r.schema, method: 'POST', url: r.url, httpPart: r.httpPart }) as ValidateFunction),
    serializers: [Answer, Listing].map((schema) => serializers({ schema, method: 'GET', url: '/things', httpStatus: '200' }) as (data: unknown) => string),
  };
}

const writer = new SchemaCodeWriter();
compilers(writer);
writer.write(pack);
const ahead = new SchemaCodePack(pack);
const loaded = compilers(ahead);
const compiled = compilers();

const errorsOf = (validate: ValidateFunction) =>
  (validate.errors ?? []).map((e: ErrorObject) => ({
    keyword: e.keyword,
    instancePath: e.instancePath,
    params: e.params,
    readOnly: (e.parentSchema as Record<string, unknown> | undefined)?.['x-read-only'],
  }));

describe('schema code compiled by the build', () => {
  it('writes one module per distinct schema, found by its hash', () => {
    expect(writer.size).toBe(5);
    const index = JSON.parse(fs.readFileSync(pack, 'utf8').split('\n')[0]) as Record<string, [number, number]>;
    expect(Object.keys(index)).toHaveLength(5);
    expect(Object.keys(index).every((key) => /^[0-9a-f]{32}$/.test(key))).toBe(true);
    expect(schemaCodeKey('text', { type: 'string' })).not.toBe(schemaCodeKey('api-body', { type: 'string' }));
  });

  it('validates, coerces, fills defaults and drops unknown fields as the compiled validators do', () => {
    const inputs: unknown[] = [
      { name: 'x' },
      { name: 'x', kind: 'c', size: 1.5, extra: true },
      { name: '', options: { gzip: { value: ['ok.example', 'not a host!'] }, brotli: {} } },
      { name: 'x', options: { gzip: null, cors: { enabled: false, value: null } } },
      { name: 'x', origin: { host: 'a', stray: 1 } },
      { name: 'x', origin: { group: 2 } },
      { name: 'x', id: 7 },
      { name: 'x', created: 'yesterday' },
      { name: 'x', size: 1e400 },
      {},
      null,
      'text',
    ];
    for (const [i, input] of inputs.entries()) {
      for (const v of [0, 1]) {
        const a = structuredClone(input);
        const b = structuredClone(input);
        expect(loaded.validators[v](a), `input ${i}, route ${v}`).toBe(compiled.validators[v](b));
        expect(a).toEqual(b);
        expect(errorsOf(loaded.validators[v])).toEqual(errorsOf(compiled.validators[v]));
      }
    }
    const queries = [{}, { limit: '5' }, { limit: '0' }, { limit: '0x10' }, { tag: 'one' }, { tag: ['a', 'b'], limit: '2' }];
    for (const query of queries) {
      const a = structuredClone(query);
      const b = structuredClone(query);
      expect(loaded.validators[2](a)).toBe(compiled.validators[2](b));
      expect(a).toEqual(b);
      expect(errorsOf(loaded.validators[2])).toEqual(errorsOf(compiled.validators[2]));
    }
  });

  it('serialises as the compiled serialisers do', () => {
    const answer = { id: 1, name: 'a', note: null, items: [{ at: '2026-01-01T00:00:00Z' }], secret: 'dropped' };
    expect(loaded.serializers[0](answer)).toBe(compiled.serializers[0](answer));
    expect(loaded.serializers[1]([answer])).toBe(compiled.serializers[1]([answer]));
    expect(loaded.serializers[1]({ count: 1, results: [answer] })).toBe(compiled.serializers[1]({ count: 1, results: [answer] }));
  });

  it('requires only the runtime helpers the server bundles, and refuses code requiring another package', () => {
    const text = fs.readFileSync(pack, 'utf8');
    const required = new Set(requiredBy(text));
    expect([...required].every((id) => RUNTIME_HELPERS.includes(id))).toBe(true);
    // The test's schemas use a format, a string length and a serialiser: three helpers.
    expect(required.size).toBe(3);
    expect(() => assertKnownRequires('const x = require("left-pad");')).toThrow(/left-pad/);
    expect(() => assertKnownRequires('const f = require("edgeplane:catalogue-formats");')).not.toThrow();
  });

  it('compiles as usual a schema the build did not see', () => {
    const other = createSchemaCompiler(ahead)({
      schema: Type.Object({ n: Type.Integer() }),
      method: 'GET',
      url: '/other',
      httpPart: 'querystring',
    }) as ValidateFunction;
    expect(other({ n: '3' })).toBe(true);
    expect(other({ n: 'three' })).toBe(false);
  });
});

describe("schema code's V8 code cache", () => {
  const answer = { id: 1, name: 'a', note: null, items: [{ at: '2026-01-01T00:00:00Z' }] };
  /** Loads every module of a pack (a validator is loaded at its first call) and says what each gave. */
  const useAll = (from: SchemaCodePack) => {
    const made = compilers(from);
    return [...made.validators.map((validate) => validate({ name: 'x', stray: 1 })), made.serializers[0](answer), made.serializers[1]([answer])];
  };
  const expected = useAll(new SchemaCodePack(pack));

  it('loads every module from the cache written beside the pack, with the same results', () => {
    expect(new SchemaCodePack(pack).writeCodeCache()).toBeGreaterThan(0);
    const cached = new SchemaCodePack(pack);
    expect(useAll(cached)).toEqual(expected);
    expect(cached.codeCacheUse).toEqual({ accepted: 5, refused: 0 });
  });

  it("uses no module's cache once that module's code has changed (another build's pack beside an old cache)", () => {
    const otherDir = fs.mkdtempSync(path.join(dir, 'other-'));
    const other = path.join(otherDir, 'schema-code.pack');
    const text = fs.readFileSync(pack, 'utf8');
    const index = JSON.parse(text.slice(0, text.indexOf('\n'))) as Record<string, [number, number]>;
    const start = Buffer.byteLength(text.slice(0, text.indexOf('\n') + 1));
    const bytes = fs.readFileSync(pack);
    const modules = new Map(
      Object.entries(index).map(([key, [offset, length]]) => [key, bytes.subarray(start + offset, start + offset + length - 1).toString('utf8')]),
    );
    // The same length, other text (each module starts "use strict"): V8 alone would take the old cache for it.
    const [changed] = modules.keys();
    expect(modules.get(changed)).toMatch(/^"use strict"/);
    modules.set(changed, modules.get(changed)!.replace('"use strict"', "'use strict'"));
    writeSchemaCodePack(other, modules);
    fs.copyFileSync(`${pack}${SCHEMA_CODE_CACHE_SUFFIX}`, `${other}${SCHEMA_CODE_CACHE_SUFFIX}`);
    const mixed = new SchemaCodePack(other);
    expect(useAll(mixed)).toEqual(expected);
    expect(mixed.codeCacheUse).toEqual({ accepted: 4, refused: 0 });
  });
});
