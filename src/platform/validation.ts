// Request validation: one Ajv for bodies (no type coercion: a string is not a number) and one for
// query strings, path parameters and headers (which are text on the wire and are coerced). Ajv errors
// become FieldErrors so every product reports them in its own envelope.
import { _, Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify';
import fastJson from 'fast-json-stringify';
import { type BodyShape, bodyShape, pruneUndeclared } from './body-shape.js';
import { type FieldError, type FieldLocation, invalid, type AppError } from './errors.js';
import { bodyTextOf } from './json-body-text.js';
import { type PlatformValidatorKind, type SchemaCode, schemaCodeKey, type Serialize, type ValidatorKind } from './schema-code.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

const KINDS: Record<PlatformValidatorKind, { coerceTypes: boolean | 'array'; dropUnknown: boolean }> = {
  // Bodies of the provider's API accept fields this server does not know (newer clients send them; the
  // reference leaves almost every object open) and drop them.
  'api-body': { coerceTypes: false, dropUnknown: true },
  // The control API (/_edgeplane) is Edgeplane's own: a misspelt fault or seed field is refused, not
  // silently ignored.
  'control-body': { coerceTypes: false, dropUnknown: false },
  // Query strings, path parameters and headers are text on the wire: coerced.
  text: { coerceTypes: 'array', dropUnknown: false },
};

/** Whether a validator kind is one of the platform's own (made by makeAjv), not a product's. */
export const isPlatformKind = (kind: string): kind is PlatformValidatorKind => Object.hasOwn(KINDS, kind);

/**
 * Where a validator written out as code (`code.source`) finds ajv-formats' formats: the package's own
 * module, required at run time from the pack (see platform/schema-code.ts).
 */
export const FULL_FORMATS_CODE = _`require("ajv-formats/dist/formats").fullFormats`;

// Ajv's code gathers the errors of a validator it calls (a `$ref`, a custom keyword) with
// `vErrors = vErrors.concat(errors)`: a copy of every error so far at each failing call. With `allErrors`,
// an array of 5,000 items failing a referenced schema took 1.4 s, 9,000 items 6.5 s (quadratic).
const CONCAT_ERRORS = /\bvErrors\.concat\(([\w$.]+)\)/g;
const APPEND_ERRORS = 'ajvAppendErrors';

/**
 * A validator's code with those copies made appends in place (linear). For Ajv's `code.process` (compiled
 * code) and for the build's standalone code: the helper is a function declaration at the end, hoisted.
 */
export function appendErrorsInPlace(code: string): string {
  if (!code.includes('vErrors.concat(')) return code;
  return `${code.replace(CONCAT_ERRORS, `${APPEND_ERRORS}(vErrors, $1)`)}
function ${APPEND_ERRORS}(all, more) { for (let i = 0; i < more.length; i++) all.push(more[i]); return all; }`;
}

/**
 * The Ajv of one kind of validator. `source` makes one whose validators can be written out as code
 * (the build's schema-code, see platform/schema-code.ts): the same options, so the same validation.
 */
export function makeAjv(kind: PlatformValidatorKind, source = false): Ajv {
  const { coerceTypes, dropUnknown } = KINDS[kind];
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes,
    useDefaults: true,
    // Unknown fields of an object with `additionalProperties: false` dropped, not refused (see
    // platform/schema.ts: CLOSED and ReadOnlyField refuse fields by name or by object).
    removeAdditional: dropUnknown,
    // Errors carry their schema, so a refused read-only field can say so.
    verbose: true,
    strict: false,
    discriminator: false,
    // Compiling is done on a route's first call, so it must be quick: the schemas are
    // TypeBox's and checked by the tests, so checking them against the meta-schema (which compiles the
    // meta-schema first: about 50 ms per instance) buys nothing; and Ajv's optimisation pass over the
    // generated code cost a third of the compile time of the large bodies (CDN options: 150 ms), for
    // validators no faster on requests this size.
    validateSchema: false,
    code: { optimize: false, process: appendErrorsInPlace, ...(source ? { source: true, formats: FULL_FORMATS_CODE } : {}) },
  });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'x-deprecated' });
  return ajv;
}

/** A route schema as the validator of its kind compiles it (a copy; the route keeps its own). */
export function prepareSchema(kind: PlatformValidatorKind, schema: unknown): object {
  const bounded = boundStrings(safeIntegers(withoutAnnotations(schema)));
  return kind === 'api-body' ? closeUnionObjects(bounded) : bounded;
}

// Keywords that say something to a reader of the schema (the OpenAPI document keeps them) and nothing
// to a validator or serialiser.
const ANNOTATIONS = new Set(['description', 'title', 'examples', 'example', '$comment']);
// Keywords whose value is a schema, a list of schemas, or a map of names to schemas.
const SUBSCHEMA = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
]);
const SUBSCHEMA_LISTS = new Set(['anyOf', 'allOf', 'oneOf', 'prefixItems']);
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/**
 * A copy of a schema without its annotations (descriptions above all): they made the compiled code of
 * the larger bodies twice the size (Ajv's verbose errors embed their schemas), and compiling slower.
 * Values of data keywords (enum, const, default) and property names are left alone.
 */
export function withoutAnnotations(schema: unknown): unknown {
  if (!isNode(schema)) return Array.isArray(schema) ? schema.map(withoutAnnotations) : schema;
  const copy: SchemaNode = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    if (SUBSCHEMA.has(key)) copy[key] = withoutAnnotations(value);
    else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) copy[key] = value.map(withoutAnnotations);
    else if (SUBSCHEMA_MAPS.has(key) && isNode(value))
      copy[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, withoutAnnotations(sub)]));
    else copy[key] = value;
  }
  return copy;
}

/**
 * Fastify's validator compiler. Each validator is compiled on first use; when `ahead` has its code,
 * compiled by the build (platform/schema-code.ts), that code is loaded instead. `thread`: where the
 * provider API's JSON bodies that kept their text (large ones, or of many items: see MANY_ITEMS) are
 * checked first.
 */
export function createSchemaCompiler(ahead?: SchemaCode, thread?: BodyThread): FastifySchemaCompiler<unknown> {
  const ajvs = { 'api-body': makeAjv('api-body'), 'control-body': makeAjv('control-body'), text: makeAjv('text') };
  // One validator per schema object and kind: a HEAD route shares its GET route's schemas, and many
  // routes share one parameter or body schema (a cloud project and region, a CDN resource id).
  const made = {
    'api-body': new WeakMap<object, ValidateFunction>(),
    'control-body': new WeakMap<object, ValidateFunction>(),
    text: new WeakMap<object, ValidateFunction>(),
  };
  const validatorFor = (kind: PlatformValidatorKind, schema: unknown): ValidateFunction => {
    let prepared: object | undefined;
    const compile = () => {
      prepared ??= prepareSchema(kind, schema);
      return ahead?.validator(kind, prepared) ?? (ajvs[kind].compile(prepared) as ValidateFunction);
    };
    // The build's collector sees every schema now, not just those of the routes it happens to call.
    if (ahead?.collects) compile();
    const validate = finiteOnly(compile, kind === 'text' ? numberSyntax(schema) : undefined);
    if (kind !== 'api-body') return validate;
    const toPrune = undeclaredToPrune(schema);
    const pruning = pruningFirst(validate, toPrune);
    return thread ? inThreadFirst(pruning, () => (prepared ??= prepareSchema(kind, schema)), toPrune, thread) : pruning;
  };
  // Compiled on first use, not at start: compiling every route's schemas up front took most of a second.
  return ({ schema, httpPart, url }) => {
    const kind: PlatformValidatorKind = httpPart !== 'body' ? 'text' : url.startsWith('/_edgeplane') ? 'control-body' : 'api-body';
    if (!schema || typeof schema !== 'object') return validatorFor(kind, schema);
    let validate = made[kind].get(schema);
    if (!validate) made[kind].set(schema, (validate = validatorFor(kind, schema)));
    return validate;
  };
}

/**
 * A JSON body checked in a thread: its validator's key (the build pack's, so the thread finds the same
 * code) and schema as the validator compiles it (JSON), the body's text, and the members to drop first
 * (what the main thread drops before validating, see pruningFirst). The answer: the failing fields.
 */
export interface BodyCheck {
  key: string;
  schema: string;
  body: string;
  prune?: BodyShape;
}

/**
 * How long a body's check in a thread may take (its first compiles the validator when the build's pack
 * lacks it) before the thread is replaced and the body checked on the main thread.
 */
export const BODY_CHECK_MS = 10_000;

/** Checks bodies in a thread; rejects when the thread could not answer (the body is then checked here). */
export type BodyThread = (check: BodyCheck) => Promise<FieldError[]>;

/** What a thread is sent of a validator's schema: made once per validator, when first sent. */
export function sentSchema(kind: ValidatorKind, prepared: object): Pick<BodyCheck, 'key' | 'schema'> {
  return { key: schemaCodeKey(kind, prepared), schema: JSON.stringify(prepared) };
}

/**
 * What answers BodyChecks in a thread: each validator made on its first body by `make` (from the pack or
 * compiled, wrapped as the main thread's are), so the fields are those the main thread would name.
 */
export function bodyChecker(make: (schema: object) => ValidateFunction): (check: BodyCheck) => FieldError[] {
  const made = new Map<string, ValidateFunction>();
  return ({ key, schema, body, prune }) => {
    let validate = made.get(key);
    if (!validate) made.set(key, (validate = make(JSON.parse(schema) as object)));
    const value: unknown = JSON.parse(body);
    if (prune) pruneUndeclared(value, prune);
    return validate(value) ? [] : ajvErrorsToFields(validate.errors ?? [], 'body');
  };
}

/**
 * A body validator that checks a body which kept its text in the thread first (Fastify awaits a
 * validator's promise): refusing 9,000 wrong items held the main thread 6-20 ms, every other client's
 * wait. A body the thread refuses gets its fields as the thread named them; one it accepts is validated
 * here as well, since validation also fills in defaults and drops unknown members of closed objects.
 */
function inThreadFirst(
  validate: ValidateFunction,
  prepared: () => object,
  toPrune: (data: unknown) => BodyShape | undefined,
  thread: BodyThread,
): ValidateFunction {
  let sent: Pick<BodyCheck, 'key' | 'schema'> | undefined;
  const here = (data: unknown) => {
    const valid = validate(data);
    wrapped.errors = validate.errors;
    return valid;
  };
  const wrapped = ((data: unknown) => {
    const body = bodyTextOf(data);
    if (body === undefined) return here(data);
    sent ??= sentSchema('api-body', prepared());
    // Dropped first where the main thread drops them (see pruningFirst); the text is the body as parsed.
    return thread({ ...sent, body, prune: toPrune(data) }).then(
      (fields) => {
        if (fields.length === 0) return here(data);
        wrapped.errors = mappedErrors(fields);
        return false;
      },
      // A thread that could not answer (replaced past its time, or stopped): the body is checked here.
      () => here(data),
    );
  }) as ValidateFunction;
  return wrapped;
}

/**
 * Integers are bounded to the safe range (2^53 - 1) unless the schema bounds them already: beyond it
 * a number is no longer exact, and `99999999999999999999999` reaches SQL as "1e+23" (a 500 on PostgreSQL).
 * Works on a copy: the route keeps its schema for serialization and the OpenAPI document.
 */
export function safeIntegers(schema: unknown): object {
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
 * The length a string may have where its schema sets none (docs/reliability.md). Without one, a client
 * could store megabytes in a name and make every later list of its objects slow or too large to answer.
 * Fields that carry documents (certificates, keys, cloud-init data) declare their own, larger bounds.
 */
export const DEFAULT_MAX_STRING_LENGTH = 16_384;

/** A copy of a schema in which every string without a maxLength (or a format or enum that bounds it) gets the default. */
export function boundStrings(schema: unknown): object {
  if (Array.isArray(schema)) return schema.map(boundStrings);
  if (!schema || typeof schema !== 'object') return schema as object;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = typeof value === 'object' ? boundStrings(value) : value;
  const type = copy.type;
  const isString = type === 'string' || (Array.isArray(type) && type.includes('string'));
  if (isString && copy.maxLength === undefined && copy.enum === undefined && copy.const === undefined) copy.maxLength = DEFAULT_MAX_STRING_LENGTH;
  return copy;
}

/**
 * Unknown fields are dropped by Ajv (removeAdditional) as it checks an object; inside an anyOf or oneOf it
 * would drop them while trying the first form, and the next forms would check what is left. So objects
 * under a union refuse unknown fields instead (which form a stray field belongs to would be a guess).
 */
export function closeUnionObjects(schema: unknown, underUnion = false): object {
  if (Array.isArray(schema)) return schema.map((item) => closeUnionObjects(item, underUnion));
  if (!schema || typeof schema !== 'object') return schema as object;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    copy[key] = typeof value === 'object' ? closeUnionObjects(value, underUnion || key === 'anyOf' || key === 'oneOf') : value;
  }
  if (underUnion && copy.additionalProperties === false) copy.additionalProperties = { not: {}, 'x-closed': true };
  return copy;
}

/**
 * Ajv counts Infinity as an integer, and "1e400" (a query string coerced, or a JSON number) parses to it:
 * such a value would pass validation and fail later in serialization or SQL as a 500. Likewise a NUL
 * character (%00, \u0000), which PostgreSQL text cannot hold. Refuse both here, on both engines.
 */
export function finiteOnly(compile: () => ValidateFunction, before?: (data: unknown) => ErrorObject[] | null): ValidateFunction {
  let validate: ValidateFunction | undefined;
  const wrapped = ((data: unknown) => {
    validate ??= compile();
    const malformed = before?.(data) ?? null;
    if (malformed !== null) {
      wrapped.errors = [...malformed, ...otherErrors(validate, data, malformed)];
      return false;
    }
    if (!validate(data)) {
      wrapped.errors = validate.errors;
      return false;
    }
    const problems = isMarkedStorable(data) ? null : unstorableErrors(data);
    if (problems === null) return true;
    wrapped.errors = problems;
    return false;
  }) as ValidateFunction;
  return wrapped;
}

/**
 * What of a body to drop before validating it: the members the route does not declare (see body-shape.ts),
 * unless the thread did (a large body) or the value may hold what validation refuses anywhere, declared or
 * not (a NUL character, a non-finite number: not marked storable).
 */
function undeclaredToPrune(schema: unknown): (data: unknown) => BodyShape | undefined {
  // Worked out on first use, like the validator: most routes are never called in a process.
  let shape: BodyShape | null | undefined;
  return (data) => {
    if (shape === undefined) shape = bodyShape(schema);
    return shape && isMarkedStorable(data) && !isMarkedPruned(data) ? shape : undefined;
  };
}

/** A body validator that first drops what `toPrune` says. */
function pruningFirst(validate: ValidateFunction, toPrune: (data: unknown) => BodyShape | undefined): ValidateFunction {
  const wrapped = ((data: unknown) => {
    const shape = toPrune(data);
    if (shape) pruneUndeclared(data, shape);
    const valid = validate(data);
    wrapped.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return wrapped;
}

/**
 * The errors of the fields a syntax check did not already refuse, so one answer names every failing
 * field: the rest of the data is validated without the refused parameters (whose absence is no error).
 */
function otherErrors(validate: ValidateFunction, data: unknown, refused: ErrorObject[]): ErrorObject[] {
  const names = new Set(refused.map((e) => e.instancePath.split('/')[1]));
  const rest = Object.fromEntries(Object.entries(data as Record<string, unknown>).filter(([name]) => !names.has(name)));
  if (validate(rest)) return [];
  return (validate.errors ?? []).filter((e) => !(e.keyword === 'required' && names.has((e.params as { missingProperty?: string }).missingProperty ?? '')));
}

const INTEGER_TEXT = /^[+-]?\d+$/;
const NUMBER_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** The numeric kind of a parameter schema (its own type, its items', or a union branch's), if any. */
function numericKind(schema: unknown): 'integer' | 'number' | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  const node = schema as Record<string, unknown>;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes('integer')) return 'integer';
  if (types.includes('number')) return 'number';
  if (node.items) return numericKind(node.items);
  for (const branch of [...((node.anyOf as unknown[]) ?? []), ...((node.oneOf as unknown[]) ?? [])]) {
    const kind = numericKind(branch);
    if (kind) return kind;
  }
  return undefined;
}

/**
 * Path and query values are text, and Ajv turns any text JavaScript reads as a number into one: "0x10"
 * became the id 16, " 7 " and "1e3" became 7 and 1000. Numeric parameters must be written in decimal.
 */
export function numberSyntax(schema: unknown): ((data: unknown) => ErrorObject[] | null) | undefined {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  if (!properties) return undefined;
  const numeric = Object.entries(properties).flatMap(([name, property]) => {
    const kind = numericKind(property);
    return kind ? [[name, kind === 'integer' ? INTEGER_TEXT : NUMBER_TEXT] as const] : [];
  });
  if (numeric.length === 0) return undefined;
  return (data) => {
    const errors: ErrorObject[] = [];
    for (const [name, syntax] of numeric) {
      const value = (data as Record<string, unknown>)[name];
      const items = Array.isArray(value) ? value : [value];
      items.forEach((item, i) => {
        if (typeof item !== 'string' || syntax.test(item)) return;
        const instancePath = Array.isArray(value) ? `/${name}/${i}` : `/${name}`;
        errors.push({
          keyword: 'type',
          instancePath,
          schemaPath: '#',
          params: { type: syntax === INTEGER_TEXT ? 'integer' : 'number' },
          message: `must be a ${syntax === INTEGER_TEXT ? 'whole' : 'decimal'} number written in decimal digits`,
        });
      });
    }
    return errors.length > 0 ? errors : null;
  };
}

/** A mark set on a parsed body: a symbol-keyed property, not enumerable, so never copied, serialised or validated. */
function valueMark(name: string): { set(value: unknown): void; on(value: unknown): boolean } {
  const key = Symbol(name);
  return {
    set: (value) => {
      if (value !== null && typeof value === 'object') Object.defineProperty(value, key, { value: true });
    },
    on: (value) => value !== null && typeof value === 'object' && (value as Record<symbol, unknown>)[key] === true,
  };
}

/** On a value parsed from text that holds no NUL escape and no number long enough to overflow (see scanJson). */
const STORABLE = valueMark('storable');
/** On a body already pruned (by the thread that checks large bodies), so validation does not walk it again. */
const PRUNED = valueMark('pruned');

export const markStorable = STORABLE.set;
const isMarkedStorable = STORABLE.on;
export const markPruned = PRUNED.set;
export const isMarkedPruned = PRUNED.on;

/** Infinity or a NUL character anywhere in validated data, as an Ajv error (null when there is none). */
export function unstorableErrors(data: unknown): ErrorObject[] | null {
  const trail: string[] = [];
  const nul = unstorable(data, 0, trail);
  if (nul === null) return null;
  const path = trail
    .reverse()
    .map((key) => `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`)
    .join('');
  return [
    nul
      ? { keyword: 'pattern', instancePath: path, schemaPath: '#', params: { pattern: '^[^\\u0000]*$' }, message: 'must not contain a NUL character' }
      : { keyword: 'type', instancePath: path, schemaPath: '#', params: { type: 'finite number' }, message: 'must be a finite number' },
  ];
}

/**
 * Null when the value holds neither; otherwise whether the first one found is a NUL character (true)
 * or a non-finite number (false), with the keys leading to it pushed on `trail`, innermost first.
 * Runs on every validated body and every ingested WAAP line: no path is built unless something is found
 * (building one per key visited was a quarter of the WAAP NDJSON ingestion's CPU time).
 */
function unstorable(value: unknown, depth: number, trail: string[]): boolean | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : false;
  if (typeof value === 'string') return value.includes('\u0000') ? true : null;
  // Validated data has the schema's depth; the bound only guards against pathological free-form JSON.
  if (value === null || typeof value !== 'object' || depth > 64) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      if (!(i in value)) continue;
      const found = unstorable(value[i], depth + 1, trail);
      if (found !== null) {
        trail.push(String(i));
        return found;
      }
    }
    return null;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (key.includes('\u0000')) {
      trail.push(key);
      return true;
    }
    const found = unstorable(record[key], depth + 1, trail);
    if (found !== null) {
      trail.push(key);
      return found;
    }
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
    case 'not': {
      const schema = error.parentSchema as Record<string, unknown> | undefined;
      if (schema?.['x-read-only']) return { extra: [], message: 'This field is read-only and cannot be set', type: 'read_only' };
      if (schema?.['x-closed']) return { extra: [], message: 'Extra fields not permitted', type: 'extra_forbidden' };
      return { extra: [], message: `Input ${error.message ?? 'is invalid'}`, type: 'value_error' };
    }
    case 'type':
      return { extra: [], message: `Input should be of type ${String(params.type).replace(',', ' or ')}`, type: 'type_error' };
    case 'enum':
      return { extra: [], message: `Input should be one of: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`, type: 'enum' };
    case 'const':
      return { extra: [], message: `Input should be ${JSON.stringify(params.allowedValue)}`, type: 'enum' };
    case 'uniqueItems':
      return { extra: [], message: 'Items must be unique', type: 'value_error' };
    case 'anyOf':
    case 'oneOf': {
      const failed = (error as UnionError).inside;
      const closest = failed && closestForm(error, failed);
      return { extra: [], message: `Input does not match any allowed form${closest ? ` (closest: ${closest})` : ''}`, type: 'value_error' };
    }
    default:
      return { extra: [], message: `Input ${error.message ?? 'is invalid'}`, type: 'value_error' };
  }
}

/**
 * Ajv reports every failed branch of an anyOf (e.g. "not a string" and "not null" for a nullable string)
 * as well as the anyOf itself. Keep one message per field: branch errors are dropped in favour of the
 * anyOf when a branch failed for its type, and kept when the input had the right shape but a wrong value.
 *
 * The kept errors come one at a time, in Ajv's order, so a refusal that names its first 100 fields stops
 * there: 9,000 wrong items made 27,000-36,000 errors, and placing them all was most of the refusal's
 * main-thread time, for a hundred of them named. Stopping early changes nothing of what is named: Ajv
 * reports a union after the errors of its forms (it tries them first), so when a union comes, every
 * error it owns has been seen.
 */
function* collapseUnions(errors: ErrorObject[]): Generator<ErrorObject> {
  // Unions by the place they judge; each error is then matched against the unions at its own place and
  // above (at most the nesting depth), not against every union: an array of 4,000 wrong items (a union
  // each) took 13 s when every error was compared with every union.
  const unionsAt = new Map<string, { union: ErrorObject; prefix: string }[]>();
  // A union's schema path and its prefix (`path/`): the paths are the schema's few, the unions many.
  const prefixOf = new Map<string, string>();
  for (const error of errors) {
    if (!isUnion(error)) continue;
    // Gathered afresh: the same errors may be mapped again.
    (error as UnionError).inside = undefined;
    let prefix = prefixOf.get(error.schemaPath);
    if (prefix === undefined) prefixOf.set(error.schemaPath, (prefix = `${error.schemaPath}/`));
    listAt(unionsAt, error.instancePath).push({ union: error, prefix });
  }
  const prefixes = new Set(prefixOf.values());
  if (unionsAt.size === 0) return yield* errors;
  // Only an error whose schema lies under some union's can be that union's; its place is looked at only
  // then. Schema paths are few (the schema's), places many (the body's): most of the errors of 9,000 wrong
  // items come from referenced schemas, and looking up their places was most of the refusal's time.
  const underUnion = new Map<string, boolean>();
  const mayBeOwned = (schemaPath: string) => {
    let under = underUnion.get(schemaPath);
    if (under === undefined) {
      under = false;
      for (let at = schemaPath.indexOf('/'); at !== -1 && !under; at = schemaPath.indexOf('/', at + 1)) under = prefixes.has(schemaPath.slice(0, at + 1));
      underUnion.set(schemaPath, under);
    }
    return under;
  };
  for (const error of errors) {
    let owned = false;
    if (mayBeOwned(error.schemaPath)) {
      for (const place of placesAbove(error.instancePath)) {
        for (const { union, prefix } of unionsAt.get(place) ?? []) {
          if (union === error || !error.schemaPath.startsWith(prefix)) continue;
          owned = true;
          ((union as UnionError).inside ??= []).push(error);
        }
      }
    }
    // Its closest form is worked out when the union is named (see describe).
    if (isUnion(error) || !owned) yield error;
  }
}

const isUnion = (error: ErrorObject) => error.keyword === 'anyOf' || error.keyword === 'oneOf';

function listAt<K, V>(map: Map<K, V[]>, key: K): V[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

/** A JSON pointer and every pointer above it, the document's root ("") first. */
function placesAbove(pointer: string): string[] {
  const places = [''];
  for (let at = pointer.indexOf('/', 1); at !== -1; at = pointer.indexOf('/', at + 1)) places.push(pointer.slice(0, at));
  if (pointer !== '') places.push(pointer);
  return places;
}

/** A union's error, with the errors of its forms (see closestForm). */
type UnionError = ErrorObject & { inside?: ErrorObject[] };

/**
 * Which form of a union the input came closest to, and what failed in it (`inside`: the errors at or below
 * the union's place and under its schema): the form with the fewest errors
 * among those whose shape the input had (a form refused only for its type at the union's own place is not
 * close). "form 2, where name: Field required; port: Input must be <= 65535".
 */
function closestForm(union: ErrorObject, inside: ErrorObject[]): string | undefined {
  const prefix = `${union.schemaPath}/`;
  const byForm = new Map<string, ErrorObject[]>();
  for (const error of inside) listAt(byForm, error.schemaPath.slice(prefix.length).split('/')[0]).push(error);
  const shaped = [...byForm].filter(([, failed]) => !failed.every((e) => e.keyword === 'type' && e.instancePath === union.instancePath));
  if (shaped.length === 0) return undefined;
  const [form, failed] = shaped.reduce((best, next) => (next[1].length < best[1].length ? next : best));
  const problems = failed
    .filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf')
    .slice(0, 5)
    .map((e) => {
      const { extra, message } = describe(e);
      const path = [...pointerToPath(e.instancePath.slice(union.instancePath.length)), ...extra].join('.');
      return path ? `${path}: ${message}` : message;
    });
  return `form ${Number(form) + 1}, where ${problems.join('; ')}`;
}

/** Fields a thread named (see inThreadFirst), carried as a validator's errors to ajvErrorsToFields. */
const MAPPED = Symbol('fields named in a thread');
type MappedErrors = ErrorObject[] & { [MAPPED]?: FieldError[] };

function mappedErrors(fields: FieldError[]): ErrorObject[] {
  // One error per field, for whatever reads them as errors; the fields themselves ride along.
  const errors: MappedErrors = fields.map((f) => ({
    keyword: f.type,
    instancePath: f.path.map((part) => `/${String(part).replace(/~/g, '~0').replace(/\//g, '~1')}`).join(''),
    schemaPath: '#',
    params: {},
    message: `${f.path.join('.')}: ${f.message}`,
  }));
  errors[MAPPED] = fields;
  return errors;
}

export function ajvErrorsToFields(errors: ErrorObject[], location: FieldLocation): FieldError[] {
  const named = (errors as MappedErrors)[MAPPED];
  if (named) return named.map((field) => ({ ...field, location }));
  const seen = new Set<string>();
  const fields: FieldError[] = [];
  for (const error of collapseUnions(errors)) {
    const { extra, message, type } = describe(error);
    const path = [...pointerToPath(error.instancePath), ...extra];
    const key = `${path.join('.')}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    // Stops the errors' collapse too: the rest are not looked at.
    if (fields.push({ location, path, message, type }) === MAX_FIELD_ERRORS) break;
  }
  return fields;
}

/**
 * The failing fields one refusal names, at most (the first ones, in the order validation found them). A
 * list of 400,000 wrong items made 400,000 messages: a 69 MB answer, and seconds of the event loop.
 */
const MAX_FIELD_ERRORS = 100;

/** Fastify's schema-validation error (error.validation set) as an AppError. */
export function fromFastifyValidation(errors: ErrorObject[], context: string | undefined): AppError {
  return invalid(ajvErrorsToFields(errors, LOCATIONS[context ?? 'body'] ?? 'body'));
}

/**
 * Response serializers (fast-json-stringify), built on a route's first response rather than at start
 * (or loaded from the code the build compiled, see platform/schema-code.ts).
 * A frozen value (a cached record shared between requests, see platform/immutable.ts) cannot change, so
 * its JSON text is kept with it and written again as is while the value lives.
 */
export function createSerializerCompiler(ahead?: SchemaCode): FastifySerializerCompiler<unknown> {
  // One serialiser per schema object: a HEAD route shares its GET route's, and routes share schemas.
  const made = new WeakMap<object, Serialize>();
  return ({ schema }) => {
    if (!schema || typeof schema !== 'object') return serializerFor(schema, ahead);
    let serializer = made.get(schema);
    if (!serializer) made.set(schema, (serializer = serializerFor(schema, ahead)));
    return serializer;
  };
}

/** The schema fast-json-stringify compiles for a route's response schema (see nullableForSerializer). */
export function prepareResponseSchema(schema: unknown): object {
  return nullableForSerializer(withoutAnnotations(schema)) as object;
}

function serializerFor(schema: unknown, ahead: SchemaCode | undefined): Serialize {
  let serialize: Serialize | undefined;
  const texts = new WeakMap<object, string>();
  const compile = () => {
    const prepared = prepareResponseSchema(schema);
    return ahead?.serializer(prepared) ?? fastJson(prepared);
  };
  if (ahead?.collects) compile();
  return (data: unknown) => {
    serialize ??= compile();
    if (typeof data !== 'object' || data === null || !Object.isFrozen(data)) return serialize(data);
    let text = texts.get(data);
    if (text === undefined) texts.set(data, (text = serialize(data)));
    return text;
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
 * Likewise a union of an array and an object (a list, or a page of it) becomes one schema with both
 * types, told apart by `Array.isArray` instead of validating the whole list against the array branch.
 */
export function nullableForSerializer(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(nullableForSerializer);
  if (!isNode(schema)) return schema;
  const copy: SchemaNode = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = nullableForSerializer(value);
  const branches = copy.anyOf;
  if (!Array.isArray(branches)) return copy;
  const { anyOf: _anyOf, ...siblings } = copy;
  const nullIndex = branches.length === 2 ? branches.findIndex((branch) => isNode(branch) && branch.type === 'null') : -1;
  const other = branches[1 - nullIndex];
  if (nullIndex >= 0 && isNode(other) && typeof other.type === 'string' && !COMBINATORS.some((k) => k in other))
    return { ...siblings, ...other, nullable: true };
  const typed = typedUnion(branches);
  return typed ? { ...siblings, ...typed } : copy;
}

const JSON_TYPE_SEPARABLE = new Set(['array', 'object', 'null']);

/**
 * Branches of distinct types among array, object and null, none with a combinator and no keyword in
 * two of them, as one schema with a list of types (undefined when the branches are not so).
 */
function typedUnion(branches: unknown[]): SchemaNode | undefined {
  if (branches.length < 2 || !branches.every(isNode)) return undefined;
  const nodes = branches as SchemaNode[];
  const types = nodes.map((b) => b.type);
  if (!types.every((t) => typeof t === 'string' && JSON_TYPE_SEPARABLE.has(t)) || new Set(types).size !== types.length) return undefined;
  if (nodes.some((b) => COMBINATORS.some((k) => k in b) || 'nullable' in b)) return undefined;
  const merged: SchemaNode = {};
  for (const node of nodes) {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'type') continue;
      if (key in merged) return undefined;
      merged[key] = value;
    }
  }
  return { ...merged, type: types };
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
    query[key] = items.flatMap((item) =>
      typeof item === 'string'
        ? item
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s !== '')
        : [item],
    );
  }
}

/**
 * Object-valued query parameters arrive as one key per field: `created_at.gte=...` (the official clients'
 * dotted form) or `created_at[gte]=...` (the bracket form the reference's examples use). Each is folded
 * into `query[name]` as an object, repeated keys as lists, so the parameter validates as declared.
 */
export function foldNestedQuery(query: Record<string, unknown>, names: string[]): void {
  if (names.length === 0) return;
  const wanted = new Set(names);
  for (const key of Object.keys(query)) {
    const match = /^([^.[\]]+)(?:\.([^.[\]]+)|\[([^\]]*)\])$/.exec(key);
    if (!match || !wanted.has(match[1])) continue;
    const [, name, dotted, bracketed] = match;
    const current = query[name];
    const target = (current && typeof current === 'object' && !Array.isArray(current) ? current : {}) as Record<string, unknown>;
    target[dotted ?? bracketed] = query[key];
    query[name] = target;
    delete query[key];
  }
}

/** Adds comma-list splitting to every route whose query schema has array parameters. */
export function registerQueryArrays(app: import('fastify').FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const keys = arrayQueryKeys(route.schema?.querystring);
    if (keys.length === 0) return;
    const split = async (request: import('fastify').FastifyRequest) => {
      // Fastify's parsed query is always an object: the check types it for any route, whatever its schema.
      if (isNode(request.query)) splitCommaLists(request.query, keys);
    };
    const existing = route.preValidation;
    route.preValidation = existing ? [split, ...(Array.isArray(existing) ? existing : [existing])] : [split];
  });
}
