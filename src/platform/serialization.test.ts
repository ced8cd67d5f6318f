import fastJson from 'fast-json-stringify';
import Fastify, { LogController } from 'fastify';
import { Writable } from 'node:stream';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { lazyRequestLoggers } from './request-logger.js';
import { Nullable, StringEnum } from './schema.js';
import { deepFreeze } from './immutable.js';
import { createSerializerCompiler, nullableForSerializer } from './validation.js';

describe('response serialisation of nullable fields', () => {
  const schema = Type.Object({
    name: Nullable(Type.String()),
    size: Nullable(Type.Integer()),
    kind: Nullable(StringEnum(['a', 'b'])),
    owner: Nullable(Type.Object({ id: Type.Integer(), email: Nullable(Type.String()) })),
    tags: Nullable(Type.Array(Type.String())),
    either: Type.Union([Type.String(), Type.Integer()]),
  });

  it('rewrites anyOf [T, null] as T with nullable, at every depth, leaving other unions alone', () => {
    const rewritten = nullableForSerializer(schema) as { properties: Record<string, Record<string, unknown>> };
    expect(rewritten.properties.name).toMatchObject({ type: 'string', nullable: true });
    expect(rewritten.properties.name.anyOf).toBeUndefined();
    expect(rewritten.properties.owner).toMatchObject({ type: 'object', nullable: true, properties: { email: { type: 'string', nullable: true } } });
    expect(rewritten.properties.either.anyOf).toHaveLength(2);
    // The route's own schema (also used for the OpenAPI document) is not changed.
    expect((schema.properties.name as { anyOf?: unknown }).anyOf).toHaveLength(2);
  });

  it('serialises exactly as JSON.stringify, for values and for nulls', () => {
    const serialize = fastJson(nullableForSerializer(schema) as object);
    const values = [
      { name: 'x', size: 3, kind: 'a', owner: { id: 1, email: 'e@x' }, tags: ['t'], either: 'y' },
      { name: null, size: null, kind: null, owner: null, tags: null, either: 7 },
      { name: 'q"uote', size: 0, kind: 'b', owner: { id: 2, email: null }, tags: [], either: 'z' },
    ];
    for (const value of values) expect(serialize(value)).toBe(JSON.stringify(value));
  });
});

describe('response serialisation of a list or a page of it', () => {
  const Item = Type.Object({ id: Type.Integer(), name: Nullable(Type.String()) });
  const schema = Type.Union([Type.Array(Item), Type.Object({ count: Type.Integer(), results: Type.Array(Item) })]);

  it('becomes one schema with both types, with no union left for a validator to run', () => {
    const rewritten = nullableForSerializer(schema) as Record<string, unknown>;
    expect(rewritten.anyOf).toBeUndefined();
    expect(rewritten.type).toEqual(['array', 'object']);
    // A union whose branches share keywords, or of other types, is left alone.
    expect(
      (nullableForSerializer(Type.Union([Type.Object({ a: Type.String() }), Type.Object({ b: Type.String() })])) as { anyOf?: unknown[] }).anyOf,
    ).toHaveLength(2);
    expect((nullableForSerializer(Type.Union([Type.String(), Type.Array(Type.String())])) as { anyOf?: unknown[] }).anyOf).toHaveLength(2);
  });

  it('serialises either form exactly as JSON.stringify', () => {
    const serialize = fastJson(nullableForSerializer(schema) as object);
    const items = [
      { id: 1, name: 'a' },
      { id: 2, name: null },
    ];
    expect(serialize(items)).toBe(JSON.stringify(items));
    expect(serialize([])).toBe('[]');
    expect(serialize({ count: 2, results: items })).toBe(JSON.stringify({ count: 2, results: items }));
  });
});

describe('serialising frozen (shared, cached) records', () => {
  const schema = Type.Object({ name: Type.String(), tags: Type.Array(Type.String()) });
  const compile = () => (createSerializerCompiler() as (route: { schema: unknown }) => (data: unknown) => string)({ schema });

  it('keeps the text of a frozen record, and serialises every unfrozen one afresh', () => {
    const serialize = compile();
    const live = { name: 'a', tags: ['x'] };
    expect(serialize(live)).toBe('{"name":"a","tags":["x"]}');
    live.name = 'b';
    expect(serialize(live)).toBe('{"name":"b","tags":["x"]}');
    // A getter counts the serialiser's reads of the record: the second send reads nothing.
    let reads = 0;
    const frozen = deepFreeze({
      get name() {
        reads += 1;
        return 'c';
      },
      tags: ['y'],
    });
    expect(serialize(frozen)).toBe('{"name":"c","tags":["y"]}');
    const readsForOneText = reads;
    expect(readsForOneText).toBeGreaterThan(0);
    expect(serialize(frozen)).toBe('{"name":"c","tags":["y"]}');
    expect(reads).toBe(readsForOneText);
    expect(serialize(deepFreeze({ name: 'd', tags: [] }))).toBe('{"name":"d","tags":[]}');
  });

  it('deepFreeze freezes nested objects and arrays, so a cached record cannot drift from its text', () => {
    const record = deepFreeze({ name: 'e', tags: ['z'], owner: { id: 1 } });
    expect(Object.isFrozen(record.tags) && Object.isFrozen(record.owner)).toBe(true);
    expect(() => {
      (record.owner as { id: number }).id = 2;
    }).toThrow(TypeError);
  });
});

describe('per-request loggers', () => {
  const capture = () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    return { lines, stream };
  };

  it('still bind the request id to what a request logs, and skip levels that are off', async () => {
    const { lines, stream } = capture();
    const app = Fastify({
      logger: { level: 'warn', stream },
      logController: new LogController({ disableRequestLogging: true }),
      childLoggerFactory: lazyRequestLoggers,
      genReqId: () => 'req-42',
    });
    app.get('/quiet', async (request) => {
      request.log.info('not written: below the level');
      return { ok: true };
    });
    app.get('/loud', async (request) => {
      request.log.error({ detail: 1 }, 'written');
      return { ok: true };
    });
    await app.ready();
    // Counts the pino children made from here on: none for a request that writes nothing.
    let children = 0;
    const makeChild = app.log.child.bind(app.log);
    app.log.child = ((...args: Parameters<typeof makeChild>) => {
      children += 1;
      return makeChild(...args);
    }) as typeof app.log.child;
    await app.inject({ method: 'GET', url: '/quiet' });
    expect(children).toBe(0);
    await app.inject({ method: 'GET', url: '/loud' });
    expect(children).toBe(1);
    await app.close();
    expect(lines.map((line) => line.msg)).toEqual(['written']);
    expect(lines[0]).toMatchObject({ level: 50, detail: 1, reqId: 'req-42' });
  });
});
