// fast-check arbitraries built from the JSON schemas of the generated OpenAPI document: `validValue`
// produces values the schema accepts (as far as a generator can: a few cross-field rules live in the
// services), `invalidValue` produces values that break the schema in one chosen way. The fuzzer uses
// both for bodies, query strings and path parameters of every operation.
import fc from 'fast-check';

export type Schema = Record<string, any>;

const MAX_DEPTH = 4;

function types(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties || schema.additionalProperties !== undefined || schema.patternProperties) return ['object'];
  if (schema.items) return ['array'];
  return [];
}

const FORMAT_ARBS: Record<string, () => fc.Arbitrary<string>> = {
  'date-time': () => fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2035-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
  date: () =>
    fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2035-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  email: () => fc.emailAddress(),
  uuid: () => fc.uuid(),
  uuid4: () => fc.uuid({ version: 4 }),
  ipv4: () => fc.ipV4(),
  ipv6: () => fc.ipV6(),
  uri: () => fc.webUrl(),
  hostname: () => fc.domain(),
  // The provider's own formats (src/catalogue-engine/schema.ts: PROVIDER_FORMATS).
  ipvanyaddress: () => fc.ipV4(),
  ipvanynetwork: () => network(),
  ipv4network: () => network(),
  ipvanyinterface: () => network(),
  ipv4interface: () => network(),
  'ipv4net or ipv6net': () => network(),
  'nginx time': () => fc.tuple(fc.integer({ min: 0, max: 999 }), fc.constantFrom('', 's', 'm', 'h', 'd')).map(([n, unit]) => `${n}${unit}`),
  'country-code': () => fc.constantFrom('US', 'DE', 'NL', 'JP', 'BR'),
};

/** An IPv4 network in CIDR form with no host bits set (10.0.0.0/8, 192.168.4.0/24, ...). */
function network(): fc.Arbitrary<string> {
  return fc.tuple(fc.ipV4(), fc.integer({ min: 8, max: 32 })).map(([ip, prefix]) => {
    const value = ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
    const masked = prefix === 32 ? value : value - (value % 2 ** (32 - prefix));
    return `${[24, 16, 8, 0].map((shift) => Math.floor(masked / 2 ** shift) % 256).join('.')}/${prefix}`;
  });
}

function stringArb(schema: Schema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = Math.max(min, Math.min(schema.maxLength ?? 40, 64));
  if (typeof schema.format === 'string' && FORMAT_ARBS[schema.format]) return FORMAT_ARBS[schema.format]();
  if (typeof schema.pattern === 'string') {
    // The pattern decides; lengths outside the bounds are trimmed or padded only when the pattern allows.
    return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= (schema.maxLength ?? Infinity));
  }
  return fc.string({
    minLength: min,
    maxLength: max,
    unit: fc.oneof(fc.constantFrom('a', 'b', 'z', '0', '9', '-', '_', ' '), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })),
  });
}

function numberArb(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  let min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + (integer ? 1 : 1e-6) : -1_000_000);
  let max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - (integer ? 1 : 1e-6) : 1_000_000);
  if (min > max) [min, max] = [max, min];
  const edges = [min, max].filter((v) => Number.isFinite(v));
  if (integer) {
    const lo = Math.max(Math.ceil(min), Number.MIN_SAFE_INTEGER);
    const hi = Math.min(Math.floor(max), Number.MAX_SAFE_INTEGER);
    return fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: Math.max(lo, -2_147_483_648), max: Math.min(hi, 2_147_483_647) }) },
      { weight: 1, arbitrary: fc.constantFrom(...edges.map(Math.round)) },
    );
  }
  return fc.oneof(fc.double({ min, max, noNaN: true, noDefaultInfinity: true }), fc.constantFrom(...edges));
}

/** Values the schema accepts. */
export function validValue(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || typeof schema !== 'object') return fc.constant(null);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches)) return fc.oneof(...branches.map((b: Schema) => validValue({ ...b }, depth)));
  if (Array.isArray(schema.allOf)) return validValue(Object.assign({}, ...schema.allOf), depth);
  const ts = types(schema);
  if (ts.length > 1) return fc.oneof(...ts.map((t) => validValue({ ...schema, type: t }, depth)));
  switch (ts[0]) {
    case 'string':
      return stringArb(schema);
    case 'integer':
      return numberArb(schema, true);
    case 'number':
      return numberArb(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 4, depth >= MAX_DEPTH ? minLength : 4));
      const item = validValue(schema.items ?? {}, depth + 1);
      return schema.uniqueItems ? fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) }) : fc.array(item, { minLength, maxLength });
    }
    case 'object':
      return objectArb(schema, depth);
    default:
      return fc.oneof(fc.constant(null), fc.integer(), fc.string({ maxLength: 8 }), fc.boolean());
  }
}

const matchesNothing = (schema: Schema) => typeof schema.not === 'object' && schema.not !== null && Object.keys(schema.not).length === 0;

function objectArb(schema: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties: Record<string, Schema> = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, sub] of Object.entries(properties)) {
    // Deep optional parts are left out past the depth budget; required ones are always built.
    if (depth >= MAX_DEPTH && !required.has(name)) continue;
    model[name] = validValue(sub, depth + 1);
  }
  const requiredKeys = Object.keys(model).filter((k) => required.has(k));
  let base: fc.Arbitrary<Record<string, unknown>> = fc.record(model, { requiredKeys });
  const pattern = schema.patternProperties ? Object.entries<Schema>(schema.patternProperties)[0] : undefined;
  // A closed object's additionalProperties is a schema nothing matches ({ not: {} }): it takes no extra keys.
  const open = typeof schema.additionalProperties === 'object' && !matchesNothing(schema.additionalProperties);
  const extra = pattern ?? (open ? ['^[a-z]{1,8}$', schema.additionalProperties] : undefined);
  if (extra && depth < MAX_DEPTH) {
    const [keyPattern, valueSchema] = extra as [string, Schema];
    const keys = fc.stringMatching(new RegExp(keyPattern)).filter((k) => k.length > 0 && k.length < 24 && !(k in properties));
    base = fc.tuple(base, fc.dictionary(keys, validValue(valueSchema, depth + 1), { maxKeys: 3 })).map(([a, b]) => ({ ...b, ...a }));
  }
  return base;
}

// Values that are wrong for almost any field: other JSON types, boundaries, hostile text.
const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\ud800',
  '\udfff\ud800',
  '💥🔥'.repeat(50),
  '\u202e\u0301\u200b',
  'Ω≈ç√∫',
  '../../etc/passwd',
  "'; DROP TABLE clients; --",
  '%00%ZZ',
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '__proto__',
  'constructor',
  'null',
  '1e309',
  '-0',
  'x'.repeat(10_000),
];
const HOSTILE_NUMBERS = [-1, 0, -0, 0.5, -2_147_483_649, 2_147_483_648, 2 ** 53 + 2, -(2 ** 53) - 2, 1e308, -1e308, 5e-324, 1e21, 99999999999999999999];

export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, [], {}, [null], { '': null }),
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** A value of a different kind than the schema wants, or one just past its bounds. */
export function invalidValue(schema: Schema): fc.Arbitrary<unknown> {
  const ts = types(schema);
  const near: unknown[] = [];
  if (ts.includes('integer') || ts.includes('number')) {
    if (schema.minimum !== undefined) near.push(schema.minimum - 1, schema.minimum - 0.5);
    if (schema.maximum !== undefined) near.push(schema.maximum + 1, schema.maximum + 0.5);
    if (schema.exclusiveMinimum !== undefined) near.push(schema.exclusiveMinimum);
    if (schema.exclusiveMaximum !== undefined) near.push(schema.exclusiveMaximum);
    if (ts.includes('integer')) near.push(1.5);
    near.push(String(schema.minimum ?? 1));
  }
  if (ts.includes('string')) {
    if (schema.maxLength !== undefined) near.push('y'.repeat(schema.maxLength + 1));
    if (schema.minLength) near.push('y'.repeat(schema.minLength - 1));
    if (Array.isArray(schema.enum)) near.push(`${schema.enum[0]}x`, String(schema.enum[0]).toUpperCase() + '_');
    near.push(12345);
  }
  if (ts.includes('array'))
    near.push(
      'not-an-array',
      [{ nested: [[[[]]]] }],
      Array.from({ length: (schema.maxItems ?? 2000) + 1 }, () => 1),
    );
  if (ts.includes('object')) near.push([], 'object', { __proto__x: 1, ['constructor']: { prototype: 1 } });
  if (ts.includes('boolean')) near.push('true', 1, 0);
  return near.length > 0 ? fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...near) }, { weight: 1, arbitrary: anyJson }) : anyJson;
}

/** Every (path, sub-schema) of an object schema, so a mutation can target a nested field. */
export function fieldPaths(
  schema: Schema,
  prefix: string[] = [],
  depth = 0,
  out: Array<{ path: string[]; schema: Schema }> = [],
): Array<{ path: string[]; schema: Schema }> {
  if (!schema || depth > 3) return out;
  const branch = schema.anyOf?.find((b: Schema) => types(b).includes('object')) ?? schema;
  for (const [name, sub] of Object.entries<Schema>(branch.properties ?? {})) {
    out.push({ path: [...prefix, name], schema: sub });
    fieldPaths(sub, [...prefix, name], depth + 1, out);
  }
  return out;
}
