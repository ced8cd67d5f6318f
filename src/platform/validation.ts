// Request validation: one Ajv for bodies (no type coercion: a string is not a number) and one for
// query strings, path parameters and headers (which are text on the wire and are coerced). Ajv errors
// become FieldErrors so every product reports them in its own envelope.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify';
import fastJson from 'fast-json-stringify';
import { type FieldError, type FieldLocation, invalid, type AppError } from './errors.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerceTypes: boolean | 'array'): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
    discriminator: false,
  });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'x-deprecated' });
  return ajv;
}

export function createSchemaCompiler(): FastifySchemaCompiler<unknown> {
  const bodyAjv = makeAjv(false);
  const textAjv = makeAjv('array');
  // Compiled on first use, not at start: compiling every route's schemas up front took most of a second.
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? bodyAjv : textAjv;
    return finiteOnly(() => ajv.compile(safeIntegers(schema)) as ValidateFunction);
  };
}

/**
 * Integers are bounded to the safe range (2^53 - 1) unless the schema bounds them already: beyond it
 * a number is no longer exact, and `99999999999999999999999` reaches SQL as "1e+23" (a 500 on PostgreSQL).
 * Works on a copy: the route keeps its schema for serialization and the OpenAPI document.
 */
function safeIntegers(schema: unknown): object {
  if (Array.isArray(schema)) return schema.map(safeIntegers);
  if (!schema || typeof schema !== 'object') return schema as object;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = typeof value === 'object' ? safeIntegers(value) : value;
  const type = copy.type;
  if (type === 'integer' || (Array.isArray(type) && type.includes('integer'))) {
    if (copy.maximum === undefined && copy.exclusiveMaximum === undefined) copy.maximum = Number.MAX_SAFE_INTEGER;
    if (copy.minimum === undefined && copy.exclusiveMinimum === undefined) copy.minimum = -Number.MAX_SAFE_INTEGER;
  }
  return copy;
}

/**
 * Ajv counts Infinity as an integer, and "1e400" (a query string coerced, or a JSON number) parses to it:
 * such a value would pass validation and fail later in serialization or SQL as a 500. Likewise a NUL
 * character (%00, \u0000), which PostgreSQL text cannot hold. Refuse both here, on both engines.
 */
function finiteOnly(compile: () => ValidateFunction): ValidateFunction {
  let validate: ValidateFunction | undefined;
  const wrapped = ((data: unknown) => {
    validate ??= compile();
    if (!validate(data)) {
      wrapped.errors = validate.errors;
      return false;
    }
    const where = unstorable(data, '', 0);
    if (where === null) return true;
    wrapped.errors = [
      where.nul
        ? { keyword: 'pattern', instancePath: where.path, schemaPath: '#', params: { pattern: '^[^\\u0000]*$' }, message: 'must not contain a NUL character' }
        : { keyword: 'type', instancePath: where.path, schemaPath: '#', params: { type: 'finite number' }, message: 'must be a finite number' },
    ];
    return false;
  }) as ValidateFunction;
  return wrapped;
}

function unstorable(value: unknown, path: string, depth: number): { path: string; nul: boolean } | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : { path, nul: false };
  if (typeof value === 'string') return value.includes('\u0000') ? { path, nul: true } : null;
  // Validated data has the schema's depth; the bound only guards against pathological free-form JSON.
  if (value === null || typeof value !== 'object' || depth > 64) return null;
  for (const [key, item] of Object.entries(value)) {
    const child = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (key.includes('\u0000')) return { path: child, nul: true };
    const found = unstorable(item, child, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

const LOCATIONS: Record<string, FieldLocation> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

function pointerToPath(pointer: string): (string | number)[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

function describe(error: ErrorObject): { extra: string[]; message: string; type: string } {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { extra: [String(params.missingProperty)], message: 'Field required', type: 'missing' };
    case 'additionalProperties':
      return { extra: [String(params.additionalProperty)], message: 'Extra fields not permitted', type: 'extra_forbidden' };
    case 'type':
      return { extra: [], message: `Input should be of type ${String(params.type).replace(',', ' or ')}`, type: 'type_error' };
    case 'enum':
      return { extra: [], message: `Input should be one of: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`, type: 'enum' };
    case 'const':
      return { extra: [], message: `Input should be ${JSON.stringify(params.allowedValue)}`, type: 'enum' };
    case 'uniqueItems':
      return { extra: [], message: 'Items must be unique', type: 'value_error' };
    case 'anyOf':
    case 'oneOf':
      return { extra: [], message: 'Input does not match any allowed form', type: 'value_error' };
    default:
      return { extra: [], message: `Input ${error.message ?? 'is invalid'}`, type: 'value_error' };
  }
}

/**
 * Ajv reports every failed branch of an anyOf (e.g. "not a string" and "not null" for a nullable string)
 * as well as the anyOf itself. Keep one message per field: branch errors are dropped in favour of the
 * anyOf when a branch failed for its type, and kept when the input had the right shape but a wrong value.
 */
function collapseUnions(errors: ErrorObject[]): ErrorObject[] {
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  if (unions.length === 0) return errors;
  return errors.filter((error) => {
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') return true;
    const owner = unions.find((u) => error.schemaPath.startsWith(`${u.schemaPath}/`) && error.instancePath.startsWith(u.instancePath));
    return !owner;
  });
}

export function ajvErrorsToFields(errors: ErrorObject[], location: FieldLocation): FieldError[] {
  const seen = new Set<string>();
  const fields: FieldError[] = [];
  for (const error of collapseUnions(errors)) {
    const { extra, message, type } = describe(error);
    const path = [...pointerToPath(error.instancePath), ...extra];
    const key = `${path.join('.')}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    fields.push({ location, path, message, type });
  }
  return fields;
}

/** Fastify's schema-validation error (error.validation set) as an AppError. */
export function fromFastifyValidation(errors: ErrorObject[], context: string | undefined): AppError {
  return invalid(ajvErrorsToFields(errors, LOCATIONS[context ?? 'body'] ?? 'body'));
}

/**
 * Response serializers (fast-json-stringify), built on a route's first response rather than at start.
 * A frozen value (a cached record shared between requests, see platform/immutable.ts) cannot change, so
 * its JSON text is kept with it and written again as is while the value lives.
 */
export function createSerializerCompiler(): FastifySerializerCompiler<unknown> {
  return ({ schema }) => {
    let serialize: ((data: unknown) => string) | undefined;
    const texts = new WeakMap<object, string>();
    return (data: unknown) => {
      serialize ??= fastJson(nullableForSerializer(schema) as object);
      if (typeof data !== 'object' || data === null || !Object.isFrozen(data)) return serialize(data);
      let text = texts.get(data);
      if (text === undefined) texts.set(data, (text = serialize(data)));
      return text;
    };
  };
}

type SchemaNode = Record<string, unknown>;
const isNode = (value: unknown): value is SchemaNode => typeof value === 'object' && value !== null && !Array.isArray(value);
const COMBINATORS = ['anyOf', 'oneOf', 'allOf', '$ref', 'if'];

/**
 * A copy of a response schema in which every `anyOf: [T, {type: 'null'}]` (how `Nullable(T)` is
 * written, and how OpenAPI 3.1 says "T or null") becomes `T` with `nullable: true`. fast-json-stringify
 * serialises the first form by running a schema validator on the value for each branch on every
 * response; the second it serialises with a plain `=== null` check. Same JSON either way.
 */
export function nullableForSerializer(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(nullableForSerializer);
  if (!isNode(schema)) return schema;
  const copy: SchemaNode = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = nullableForSerializer(value);
  const branches = copy.anyOf;
  if (!Array.isArray(branches) || branches.length !== 2) return copy;
  const nullIndex = branches.findIndex((branch) => isNode(branch) && branch.type === 'null');
  const other = branches[1 - nullIndex];
  if (nullIndex < 0 || !isNode(other) || typeof other.type !== 'string' || COMBINATORS.some((k) => k in other)) return copy;
  const { anyOf: _anyOf, ...siblings } = copy;
  return { ...siblings, ...other, nullable: true };
}

/** Names of the query parameters a querystring schema declares as arrays. */
export function arrayQueryKeys(querySchema: unknown): string[] {
  const properties = (querySchema as { properties?: Record<string, { type?: unknown; anyOf?: { type?: unknown }[] }> })?.properties;
  if (!properties) return [];
  return Object.entries(properties)
    .filter(([, s]) => s.type === 'array' || (s.anyOf ?? []).some((branch) => branch.type === 'array'))
    .map(([name]) => name);
}

/**
 * Official clients repeat keys for arrays (`decision=a&decision=b`); browsers and hand-written scripts
 * often join them with commas (`decision=a,b`). Accept both by splitting comma lists before validation.
 */
export function splitCommaLists(query: Record<string, unknown>, keys: string[]): void {
  for (const key of keys) {
    const value = query[key];
    if (value === undefined) continue;
    const items = Array.isArray(value) ? value : [value];
    query[key] = items.flatMap((item) => (typeof item === 'string' ? item.split(',').map((s) => s.trim()).filter((s) => s !== '') : [item]));
  }
}

/** Adds comma-list splitting to every route whose query schema has array parameters. */
export function registerQueryArrays(app: import('fastify').FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const keys = arrayQueryKeys(route.schema?.querystring);
    if (keys.length === 0) return;
    const split = async (request: import('fastify').FastifyRequest) => {
      splitCommaLists(request.query as Record<string, unknown>, keys);
    };
    const existing = route.preValidation;
    route.preValidation = existing ? [split, ...(Array.isArray(existing) ? existing : [existing])] : [split];
  });
}
