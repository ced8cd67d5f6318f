// Every implemented operation, read from the app's own OpenAPI document, and fast-check arbitraries of
// requests to it: valid ones from the schemas, invalid ones by one mutation of a valid one.
import fc from 'fast-check';
import type { Catalogue } from '../../../src/platform/catalogue/index.js';
import { anyJson, fieldPaths, invalidValue, type Schema, validValue } from './schema-arb.js';

export interface Operation {
  method: string;
  path: string;
  operationId: string;
  pathParams: Array<{ name: string; schema: Schema }>;
  query: Array<{ name: string; schema: Schema; required: boolean }>;
  body?: Schema;
  bodyRequired: boolean;
}

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  /** What made it invalid ('' for a valid request). */
  mutation: string;
}

export function operationsOf(doc: any): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      // The catalogue engine's operations are checked by tests/catalogue (whole-API conformance, round
      // trips, flows, bad input and isolation there); this fuzzer and matrix cover the modelled routes.
      if (op['x-edgeplane-implementation'] === 'catalogue') continue;
      const params: any[] = op.parameters ?? [];
      out.push({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId,
        pathParams: params.filter((p) => p.in === 'path').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        // @fastify/swagger marks defaulted query parameters as required; a default makes them optional.
        query: params
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name, schema: hinted(p.name, p.schema ?? {}), required: !!p.required && p.schema?.default === undefined })),
        body: op.requestBody?.content?.['application/json']?.schema,
        bodyRequired: !!op.requestBody?.required,
      });
    }
  }
  return out;
}

/**
 * The operations the catalogue engine serves, from the committed catalogue (the app's OpenAPI document
 * describes them without schemas): parameters and JSON bodies with their `$ref`s written out, to a depth.
 */
export function engineOperationsOf(catalogue: Catalogue, served: readonly { method: string; path: string; operationId: string }[]): Operation[] {
  const schemas = catalogue.components.schemas as Record<string, Schema>;
  // Each component is written out once and shared (a copy per use grows exponentially with nesting); a
  // component that contains itself is cut to "anything" where it recurs.
  const done = new Map<string, Schema>();
  const open = new Set<string>();
  const inline = (node: unknown): Schema => {
    if (Array.isArray(node)) return node.map((n) => inline(n)) as unknown as Schema;
    if (!node || typeof node !== 'object') return node as Schema;
    const ref = (node as { $ref?: string }).$ref;
    if (ref) {
      const name = ref.split('/').pop()!;
      if (done.has(name)) return done.get(name)!;
      if (open.has(name)) return {};
      open.add(name);
      const written = inline(schemas[name]);
      open.delete(name);
      done.set(name, written);
      return written;
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v)])) as Schema;
  };
  const byKey = new Map(catalogue.operations.map((op) => [`${op.method} ${op.path}`, op]));
  return served.flatMap(({ method, path, operationId }) => {
    const op = byKey.get(`${method} ${path}`);
    if (!op) return [];
    const params = op.parameters.map((p) => ({ ...p, schema: inline(p.schema) }));
    return [
      {
        method,
        path,
        operationId: `catalogue.${operationId}`,
        pathParams: params.filter((p) => p.in === 'path').map((p) => ({ name: p.name, schema: p.schema })),
        query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: hinted(p.name, p.schema), required: p.required === true })),
        body: op.requestBody?.content['application/json'] ? inline(op.requestBody.content['application/json']) : undefined,
        bodyRequired: op.requestBody?.required === true,
      },
    ];
  });
}

// A few query parameters are typed "string" in the schema while the service parses a time or an IP
// address from them; generating those forms keeps valid requests valid. Invalid ones still get anything.
function hinted(name: string, schema: Schema): Schema {
  const plainString = (s: Schema) => s.type === 'string' && !s.format && !s.enum && !s.pattern;
  if (/^(start|end)$|timestamp|_from$|_to$/.test(name) && plainString(schema)) return { ...schema, format: 'date-time' };
  if (/^(exclude_)?ips$/.test(name) && schema.type === 'array' && plainString(schema.items ?? {}))
    return { ...schema, items: { ...schema.items, format: 'ipv4' } };
  return schema;
}

interface Parts {
  params: Record<string, string>;
  query: Array<[string, string]>;
  body: unknown;
  hasBody: boolean;
}

/** Percent-encoding that survives lone surrogates (sent as the UTF-8 bytes Node would write for them). */
function enc(v: string): string {
  try {
    return encodeURIComponent(v);
  } catch {
    return [...Buffer.from(v, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
  }
}

const text = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v));

function queryPairs(name: string, value: unknown): Array<[string, string]> {
  if (Array.isArray(value)) return value.map((v) => [name, text(v)]);
  // An object parameter in the official clients' form: one dotted key per field.
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, v]) => queryPairs(`${name}.${key}`, v));
  return [[name, text(value)]];
}

/** Valid parts; known ids (fixtures) are preferred for path parameters so requests reach the handler. */
function validParts(op: Operation, known: Record<string, unknown[]>): fc.Arbitrary<Parts> {
  const params = fc.record(
    Object.fromEntries(
      op.pathParams.map((p) => {
        const generated = validValue(p.schema).map(text);
        const ids = known[p.name];
        return [p.name, ids?.length ? fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...ids.map(text)) }, { weight: 1, arbitrary: generated }) : generated];
      }),
    ),
  ) as fc.Arbitrary<Record<string, string>>;
  const query = fc
    .tuple(
      ...op.query.map((q) =>
        q.required
          ? validValue(q.schema).map((v) => queryPairs(q.name, v))
          : fc.option(validValue(q.schema), { freq: 2 }).map((v) => (v === null ? [] : queryPairs(q.name, v))),
      ),
    )
    .map((lists) => lists.flat());
  const body = op.body ? (op.bodyRequired ? validValue(op.body) : fc.option(validValue(op.body), { nil: undefined })) : fc.constant(undefined);
  return fc.record({ params, query, body }).map((p) => ({ ...p, hasBody: p.body !== undefined }));
}

function build(
  op: Operation,
  parts: Parts,
  auth: string,
  mutation: string,
  raw?: { payload: string | Buffer; contentType?: string },
  rawQuery?: string,
): FuzzRequest {
  const path = op.path.replace(/\{(\w+)\}/g, (_m, name) => enc(parts.params[name] ?? ''));
  const qs = rawQuery ?? parts.query.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
  const headers: Record<string, string> = { authorization: auth };
  let payload: string | Buffer | undefined;
  if (raw) {
    payload = raw.payload;
    if (raw.contentType !== '') headers['content-type'] = raw.contentType ?? 'application/json';
  } else if (parts.hasBody) {
    payload = JSON.stringify(parts.body);
    headers['content-type'] = 'application/json';
  }
  return { method: op.method, url: qs ? `${path}?${qs}` : path, headers, payload, mutation };
}

export function validRequest(op: Operation, known: Record<string, unknown[]>, auth: string): fc.Arbitrary<FuzzRequest> {
  return validParts(op, known).map((parts) => build(op, parts, auth, ''));
}

// Path ids of every wrong kind; the router takes anything up to 500 characters per parameter.
const BAD_IDS = [
  '0',
  '-1',
  '1.5',
  '1e3',
  '99999999999999999999999',
  'abc',
  ' ',
  '%00',
  '%ZZ',
  '..',
  'null',
  '💥',
  'x'.repeat(600),
  '0x1F',
  'NaN',
  'true',
  '00000000-0000-0000-0000-000000000000',
  '1;DROP',
];

function setIn(target: unknown, path: string[], value: unknown, remove = false): unknown {
  const copy = structuredClone(target) as any;
  let node = copy;
  for (const key of path.slice(0, -1)) {
    if (!node || typeof node !== 'object' || !(key in node) || node[key] === null || typeof node[key] !== 'object') return copy;
    node = node[key];
  }
  if (node && typeof node === 'object') {
    if (remove) delete node[path[path.length - 1]];
    else node[path[path.length - 1]] = value;
  }
  return copy;
}

/**
 * What attackers send to the slow paths (issue: one client must not hang the server): star-heavy globs,
 * regular expressions with nested quantifiers, strings at and past the default bound, long paths.
 * Each may be accepted or refused; none may hold the server (the fuzzer's health probe).
 */
export const PATHOLOGICAL_STRINGS = [
  `${'*'.repeat(2000)}Z`,
  `${'*a'.repeat(500)}*b`,
  '^/(a+)+$',
  '^/(a|aa)+$',
  '^/(.*a){20}$',
  `/${'a'.repeat(2040)}`,
  'a'.repeat(16_384),
  'a'.repeat(16_385),
  `${'a'.repeat(30)}!`,
];
/** JSON numbers that are finite but far outside any field's range. */
const HUGE_NUMBERS = ['1e308', '-1e308', '9007199254740993', '1e20', '-9223372036854775809'];

const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

/** A request that breaks the operation's contract in one way. */
export function invalidRequest(op: Operation, known: Record<string, unknown[]>, auth: string): fc.Arbitrary<FuzzRequest> {
  const fields = op.body ? fieldPaths(op.body) : [];
  const required = op.body?.required ?? [];
  const mutations: Array<fc.Arbitrary<(p: Parts) => FuzzRequest>> = [];
  const bodyLike = op.body || op.method !== 'GET';
  if (fields.length > 0) {
    mutations.push(
      fc
        .constantFrom(...fields)
        .chain((f) =>
          invalidValue(f.schema).map(
            (v) => (p: Parts) => build(op, { ...p, hasBody: true, body: setIn(p.body ?? {}, f.path, v) }, auth, `body.${f.path.join('.')} wrong`),
          ),
        ),
      fc
        .constantFrom(...fields)
        .chain((f) =>
          fc
            .string({ minLength: 1, maxLength: 12 })
            .map(
              (k) => (p: Parts) => build(op, { ...p, hasBody: true, body: setIn(p.body ?? {}, [...f.path.slice(0, -1), `x_${k}`], 1) }, auth, 'extra field'),
            ),
        ),
    );
  }
  const strings = fields.filter((f) => f.schema.type === 'string' || f.schema.anyOf?.some((b: Schema) => b.type === 'string'));
  if (strings.length > 0) {
    mutations.push(
      fc.tuple(fc.constantFrom(...strings), fc.constantFrom(...PATHOLOGICAL_STRINGS)).map(
        ([f, value]) =>
          (p: Parts) =>
            build(op, { ...p, hasBody: true, body: setIn(p.body ?? {}, f.path, value) }, auth, `body.${f.path.join('.')} pathological`),
      ),
    );
  }
  const numeric = fields.filter(
    (f) => ['integer', 'number'].includes(f.schema.type) || f.schema.anyOf?.some((b: Schema) => ['integer', 'number'].includes(b.type)),
  );
  if (numeric.length > 0) {
    // JSON numbers that JSON.stringify cannot write (they parse to Infinity or lose precision), and
    // finite ones far out of any range.
    mutations.push(
      fc
        .tuple(
          fc.constantFrom(...numeric),
          fc.constantFrom('1e400', '-1e400', '123456789012345678901234567890', '1.0000000000000000000001', '-0.0', ...HUGE_NUMBERS),
        )
        .map(([f, literal]) => (p: Parts) => {
          const request = build(op, { ...p, hasBody: true, body: setIn(p.body ?? {}, f.path, '__NUMBER__') }, auth, `body.${f.path.join('.')}=${literal}`);
          request.payload = String(request.payload).replace('"__NUMBER__"', literal);
          return request;
        }),
    );
  }
  if (required.length > 0) {
    mutations.push(
      fc
        .constantFrom<string>(...required)
        .map((name) => (p: Parts) => build(op, { ...p, hasBody: true, body: setIn(p.body ?? {}, [name], undefined, true) }, auth, `missing ${name}`)),
    );
  }
  if (bodyLike) {
    const raws: Array<[string, string | Buffer, string?]> = [
      ['not json', '{"a":'],
      ['trailing garbage', '{} x'],
      ['duplicate keys', op.body?.required?.length ? `{"${required[0]}":1,"${required[0]}":"two"}` : '{"a":1,"a":2}'],
      ['invalid utf-8', Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from('"}')])],
      ['deep arrays', deep(50_000)],
      ['deep objects', deepObject(20_000)],
      ['top-level array', '[]'],
      ['top-level null', 'null'],
      ['top-level number', '12345678901234567890'],
      ['top-level string', '"x"'],
      ['prototype keys', '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}'],
      // 200 kB: huge for any field, yet small enough that operations storing it (no maxLength) do not
      // grow the in-memory database of a 100,000-request run past the test process's heap.
      ['huge string', `{"name":"${'h'.repeat(200_000)}"}`],
      ['over the body limit', `{"name":"${'h'.repeat(1_100_000)}"}`],
      ['text/plain body', '{}', 'text/plain'],
      ['form body', 'a=1&b=2', 'application/x-www-form-urlencoded'],
      ['json with charset latin1', '{}', 'application/json; charset=latin1'],
      ['no content type', '{}', ''],
      ['whitespace body', '   \n\t '],
    ];
    mutations.push(
      fc.constantFrom(...raws).map(
        ([what, payload, contentType]) =>
          (p: Parts) =>
            build(op, p, auth, what, { payload, contentType }),
      ),
    );
  }
  if (op.query.length > 0) {
    mutations.push(
      fc
        .constantFrom(...op.query)
        .chain((q) =>
          invalidValue(q.schema).map(
            (v) => (p: Parts) =>
              build(op, { ...p, query: [...p.query.filter(([k]) => k !== q.name), ...queryPairs(q.name, v)] }, auth, `query ${q.name} wrong`),
          ),
        ),
      fc.tuple(fc.constantFrom(...op.query), fc.constantFrom(...PATHOLOGICAL_STRINGS, ...HUGE_NUMBERS)).map(
        ([q, value]) =>
          (p: Parts) =>
            build(op, { ...p, query: [...p.query.filter(([k]) => k !== q.name), [q.name, value]] }, auth, `query ${q.name} pathological`),
      ),
      fc
        .constantFrom(...op.query)
        .chain((q) =>
          fc
            .constantFrom(
              `${q.name}[]=1`,
              `${q.name}[0]=a&${q.name}[1]=b`,
              `${q.name}=1&${q.name}=2&${q.name}=`,
              `${q.name}=%ZZ`,
              `${q.name}=%C3%28`,
              `${q.name}=${'9'.repeat(400)}`,
              `${q.name}`,
              `${q.name}=,,,`,
            )
            .map((qs) => (p: Parts) => build(op, p, auth, `query array abuse ${q.name}`, undefined, qs)),
        ),
    );
  }
  mutations.push(
    fc.constantFrom('%', '?&&&=&=', 'a=%E0%A4%A', `${'q'.repeat(3000)}=1`).map((qs) => (p: Parts) => build(op, p, auth, 'broken query string', undefined, qs)),
  );
  if (op.pathParams.length > 0) {
    mutations.push(
      fc.tuple(fc.constantFrom(...op.pathParams), fc.constantFrom(...BAD_IDS)).map(([param, bad]) => (p: Parts) => {
        const request = build(op, { ...p, params: { ...p.params, [param.name]: '\u0001' } }, auth, `path ${param.name}=${bad.slice(0, 20)}`);
        // Inserted raw (not percent-encoded again) so %00, %ZZ and .. reach the router as sent.
        request.url = request.url.replace('%01', /^[\w.%-]*$/.test(bad) ? bad : enc(bad));
        return request;
      }),
    );
  }
  mutations.push(
    fc.constantFrom('', 'APIKey', 'APIKey ', 'Bearer x', 'APIKey 1_nope', `APIKey ${'k'.repeat(5000)}`, 'apikey 💥').map((a) => (p: Parts) => {
      const request = build(op, p, a, `authorization '${a.slice(0, 16)}'`);
      if (a === '') delete request.headers.authorization;
      return request;
    }),
  );
  mutations.push(anyJson.map((v) => (p: Parts) => build(op, { ...p, hasBody: true, body: v }, auth, 'arbitrary json body')));
  return fc.tuple(validParts(op, known), fc.oneof(...mutations)).map(([parts, mutate]) => mutate(parts));
}
