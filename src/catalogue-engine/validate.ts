// Request validation from the catalogue: path and query parameters (text on the wire, coerced to their
// declared types; arrays as repeated keys or comma lists) and bodies (no coercion). Each operation's
// validators are made on its first request: loaded from the build's schema-code pack when it has them
// (platform/schema-code.ts), else compiled. Every failing field is reported, with the status the
// reference declares for the operation (422 or 400), else the product's own habit.
import { _, Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { Catalogue, CatalogueOperation, JsonSchema } from '../platform/catalogue/index.js';
import { AppError, type ErrorCode, type FieldError, type FieldLocation } from '../platform/errors.js';
import { bodyTextOf } from '../platform/json-body-text.js';
import type { SchemaCode } from '../platform/schema-code.js';
import { readRouteIndex } from '../platform/catalogue/routes.js';
import {
  ajvErrorsToFields,
  appendErrorsInPlace,
  type BodyCheck,
  bodyChecker,
  type BodyThread,
  boundStrings,
  finiteOnly,
  foldNestedQuery,
  numberSyntax,
  safeIntegers,
  sentSchema,
  splitCommaLists,
} from '../platform/validation.js';
import { normaliseSchema, PROVIDER_FORMATS, type Schema, Schemas } from './schema.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

export interface RequestParts {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  contentType: string | undefined;
}

interface Compiled {
  params?: ValidateFunction;
  query?: ValidateFunction;
  arrayQuery: string[];
  objectQuery: string[];
  bodies: Map<string, ValidateFunction>;
  /** The JSON body's schema as its validator compiles it, and as a thread is sent it (made when first sent). */
  jsonBody?: { schema: object; sent?: Pick<BodyCheck, 'key' | 'schema'> };
  bodyRequired: boolean;
  code: ErrorCode;
}

/**
 * What answers BodyChecks in the engine's thread (thread.ts): validators made as the main
 * thread's (finiteOnly, from the pack or compiled). A body validator neither coerces nor fills in
 * defaults: the thread's verdict is all there is to it.
 */
export function engineBodyChecker(ahead?: SchemaCode): (check: BodyCheck) => FieldError[] {
  let ajv: Ajv2020 | undefined;
  return bodyChecker((schema) => finiteOnly(() => ahead?.validator('catalogue-body', schema) ?? (ajv ??= makeCatalogueAjv(false)).compile(schema)));
}

export class RequestValidator {
  private bodyAjvMade?: Ajv2020;
  private textAjvMade?: Ajv2020;
  private readonly compiled = new Map<CatalogueOperation, Compiled>();
  private readonly productCodes = new Map<string, ErrorCode>();

  /**
   * `ahead`: the build's compiled validators (or, while building, its collector of schemas). `thread`:
   * where JSON bodies that kept their text (large ones, or of many items: see MANY_ITEMS) are checked.
   */
  constructor(
    private readonly catalogue: Catalogue,
    private readonly ahead?: SchemaCode,
    private readonly thread?: BodyThread,
  ) {}

  // Two instances: bodies are not coerced, parameters (text on the wire) are. Each validator carries only
  // the components its schema reaches: adding all 1,969 to each instance took about 150 ms of the
  // engine's first request.
  private get bodyAjv(): Ajv2020 {
    return (this.bodyAjvMade ??= makeCatalogueAjv(false));
  }

  private get textAjv(): Ajv2020 {
    return (this.textAjvMade ??= makeCatalogueAjv('array'));
  }

  /**
   * A validator made on its first use: its code loaded from the build's pack when it is there, else
   * compiled. The build's collector is asked at once, so it sees every schema of every operation.
   */
  private validator(kind: 'catalogue-body' | 'catalogue-text', schema: object, before?: Parameters<typeof finiteOnly>[1]): ValidateFunction {
    if (this.ahead?.collects) this.ahead.validator(kind, schema);
    const ajv = () => (kind === 'catalogue-body' ? this.bodyAjv : this.textAjv);
    return finiteOnly(() => this.ahead?.validator(kind, schema) ?? ajv().compile(schema), before);
  }

  /** Parameters: the unstorable-value guard, and numbers only in decimal ("0x10" is not 16). */
  private textValidator(schema: object): ValidateFunction {
    return this.validator('catalogue-text', schema, numberSyntax(schema));
  }

  /**
   * Asks for every operation's validators now, not on its first request: what the build's collector
   * needs to write them all into the pack.
   */
  prepareAll(ops: Iterable<CatalogueOperation>): void {
    for (const op of ops) this.compile(op);
  }

  /**
   * Checks a request, coercing its parameters in place; throws every problem at once. A JSON body that
   * kept its text is checked in the thread (the answer is then a promise): what refusing 9,000 wrong
   * items cost was the main thread's, and every other client's wait.
   */
  check(op: CatalogueOperation, parts: RequestParts): void | Promise<void> {
    const compiled = this.compile(op);
    const fields: FieldError[] = [];
    if (compiled.params && !compiled.params(parts.params)) fields.push(...errors(compiled.params, 'path'));
    foldNestedQuery(parts.query, compiled.objectQuery);
    splitCommaLists(parts.query, compiled.arrayQuery);
    if (compiled.query && !compiled.query(parts.query)) fields.push(...errors(compiled.query, 'query'));
    const validate = this.bodyValidator(compiled, parts);
    const text = validate && validate === compiled.bodies.get('application/json') && this.thread ? bodyTextOf(parts.body) : undefined;
    if (text === undefined) {
      fields.push(...this.checkBody(compiled, validate, parts));
      return refuse(compiled, fields);
    }
    return this.thread!({ ...this.sent(compiled.jsonBody!), body: text }).then(
      (bodyFields) => refuse(compiled, [...fields, ...bodyFields]),
      // A thread that could not answer (replaced past its time, or stopped): the body is checked here.
      () => refuse(compiled, [...fields, ...this.checkBody(compiled, validate, parts)]),
    );
  }

  private sent(body: NonNullable<Compiled['jsonBody']>): Pick<BodyCheck, 'key' | 'schema'> {
    return (body.sent ??= sentSchema('catalogue-body', body.schema));
  }

  /** The error code a refused request of this operation gets. */
  codeFor(op: CatalogueOperation): ErrorCode {
    return this.compile(op).code;
  }

  /** The validator of a body by its media type (a parsed body of another type is JSON's); none for bytes. */
  private bodyValidator(compiled: Compiled, parts: RequestParts): ValidateFunction | undefined {
    if (parts.body === undefined || parts.body === null || Buffer.isBuffer(parts.body)) return undefined;
    const type = (parts.contentType ?? 'application/json').split(';')[0].trim().toLowerCase();
    return compiled.bodies.get(type) ?? compiled.bodies.get('application/json');
  }

  private checkBody(compiled: Compiled, validate: ValidateFunction | undefined, parts: RequestParts): FieldError[] {
    if (parts.body === undefined || parts.body === null) {
      return compiled.bodyRequired ? [{ location: 'body', path: [], message: 'A request body is required', type: 'missing' }] : [];
    }
    if (!validate) return [];
    return validate(parts.body) ? [] : errors(validate, 'body');
  }

  private compile(op: CatalogueOperation): Compiled {
    let compiled = this.compiled.get(op);
    if (compiled) return compiled;
    const path = op.parameters.filter((p) => p.in === 'path');
    const query = op.parameters.filter((p) => p.in === 'query');
    const bodies = new Map<string, ValidateFunction>();
    let jsonBody: Compiled['jsonBody'];
    const components = this.catalogue.components.schemas as Record<string, JsonSchema>;
    for (const [type, schema] of Object.entries(op.requestBody?.content ?? {})) {
      if (type === 'application/json') {
        jsonBody = { schema: withComponents(loosenAnyValue(prepare(schema)) as Schema, components, true) };
        bodies.set(type, this.validator('catalogue-body', jsonBody.schema));
      } else if (type === 'application/x-www-form-urlencoded')
        bodies.set(type, this.validator('catalogue-text', withComponents(prepare(schema) as Schema, components, false)));
    }
    compiled = {
      params: path.length > 0 ? this.textValidator(withComponents(objectOf(path), components, false)) : undefined,
      query: query.length > 0 ? this.textValidator(withComponents(objectOf(query), components, false)) : undefined,
      arrayQuery: query.filter((p) => isArraySchema(p.schema)).map((p) => p.name),
      objectQuery: query.filter((p) => this.isObjectSchema(p.schema)).map((p) => p.name),
      bodies,
      jsonBody,
      bodyRequired: op.requestBody?.required === true,
      code: this.codeOf(op),
    };
    this.compiled.set(op, compiled);
    return compiled;
  }

  /** Whether a parameter's schema (through its reference, or a branch of a union) is an object. */
  private isObjectSchema(schema: JsonSchema): boolean {
    const node = schema as Schema;
    const ref = typeof node.$ref === 'string' ? (this.catalogue.components.schemas as Record<string, Schema>)[node.$ref.split('/').pop()!] : undefined;
    if (ref) return this.isObjectSchema(ref as JsonSchema);
    return (
      node.type === 'object' ||
      [...((node.anyOf as Schema[]) ?? []), ...((node.oneOf as Schema[]) ?? [])].some(
        (b) => b.type === 'object' || (typeof b.$ref === 'string' && this.isObjectSchema(b as JsonSchema)),
      )
    );
  }

  /** 422 or 400 as the operation declares; else what most of its product's operations declare. */
  private codeOf(op: CatalogueOperation): ErrorCode {
    if (op.responses['422']) return 'validation_failed';
    if (op.responses['400']) return 'bad_request';
    let code = this.productCodes.get(op.product);
    if (!code) {
      // From the route index, which lists every operation's error statuses: reading the responses of
      // all the product's operations would parse all their lines of the catalogue (see catalogue/lazy.ts).
      const routes = readRouteIndex().filter((route) => route.product === op.product);
      const with422 = routes.filter((route) => route.errorStatuses.includes(422)).length;
      const with400 = routes.filter((route) => route.errorStatuses.includes(400)).length;
      code = with422 > with400 ? 'validation_failed' : 'bad_request';
      this.productCodes.set(op.product, code);
    }
    return code;
  }
}

/**
 * The name under which the build's pack code requires the engine's formats (see SchemaCodePack's
 * `modules`): the provider's own formats live in the server, not in a package it could require.
 */
export const CATALOGUE_FORMATS_MODULE = 'edgeplane:catalogue-formats';

/** Every format the engine's validators know, as makeCatalogueAjv adds them (ajv-formats', then the provider's). */
export const CATALOGUE_FORMATS: Record<string, unknown> = { ...fullFormats, ...PROVIDER_FORMATS };

/**
 * The engine's Ajv, bodies (`false`) or coerced text (`'array'`). `source` makes one whose validators can
 * be written out as code (the build's pack): the same options, so the same validation.
 */
export function makeCatalogueAjv(coerceTypes: false | 'array', source = false): Ajv2020 {
  // Referenced components are compiled once per validator and shared by its references (not inlined at each).
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    coerceTypes,
    useDefaults: false,
    validateFormats: true,
    inlineRefs: false,
    unicodeRegExp: false,
    code: { optimize: false, process: appendErrorsInPlace, ...(source ? { source: true, formats: _`require(${CATALOGUE_FORMATS_MODULE})` } : {}) },
    // The catalogue is derived by scripts/reference.ts and checked by its tests; checking its components
    // against the meta-schema again took about 35 ms of each instance's making.
    validateSchema: false,
  });
  addFormats(ajv);
  for (const [name, format] of Object.entries(PROVIDER_FORMATS)) ajv.addFormat(name, format as never);
  return ajv;
}

function prepare(schema: JsonSchema): object {
  return boundStrings(safeIntegers(normaliseSchema(schema)));
}

/** The names of the components a schema reaches through `$ref`s, directly or through other components. */
function reachable(schema: unknown, components: Record<string, JsonSchema>): string[] {
  const names = new Set<string>();
  const stack = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (node && typeof node === 'object') {
      const name = Schemas.refName(node as JsonSchema);
      if (name !== undefined && !names.has(name) && components[name]) {
        names.add(name);
        stack.push(components[name]);
      }
      stack.push(...Object.values(node));
    }
  }
  return [...names];
}

/**
 * A schema with the components it reaches beside it, where its `#/components/schemas/...` references
 * point: strings the reference leaves unbounded get the server's default bound, as in every modelled
 * route, and a body's bare objects accept any value (see loosenAnyValue).
 */
function withComponents(schema: Schema, components: Record<string, JsonSchema>, body: boolean): Schema {
  const names = reachable(schema, components);
  if (names.length === 0) return schema;
  const schemas: Schema = {};
  for (const name of names) {
    const normalised = normaliseSchema(components[name]);
    schemas[name] = boundStrings(body ? loosenAnyValue(normalised) : normalised) as Schema;
  }
  return { ...schema, components: { schemas } };
}

/**
 * Request bodies: a bare `{"type": "object"}` (no properties, no map, nothing required) is how the
 * provider's Go services write "any JSON value" (DNS record contents are strings and numbers on the
 * wire): it accepts any value. The components get the same reading, so it holds through `$ref`s.
 */
export function loosenAnyValue(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(loosenAnyValue);
  if (!node || typeof node !== 'object') return node;
  const schema = node as Schema;
  const keys = Object.keys(schema);
  if (schema.type === 'object' && keys.every((k) => k === 'type' || k === 'nullable')) return {};
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) out[key] = loosenAnyValue(value);
  return out;
}

function objectOf(params: CatalogueOperation['parameters']): object {
  const properties: Record<string, unknown> = {};
  for (const p of params) properties[p.name] = prepare(p.schema);
  return { type: 'object', properties, required: params.filter((p) => p.required).map((p) => p.name) };
}

function isArraySchema(schema: JsonSchema): boolean {
  const node = schema as Schema;
  return node.type === 'array' || (Array.isArray(node.anyOf) && node.anyOf.some((b: Schema) => b.type === 'array'));
}

/** Throws the refusal of a request with these failing fields, if any. */
function refuse(compiled: Compiled, fields: FieldError[]): void {
  if (fields.length === 0) return;
  const summary = fields.map((f) => `${[f.location, ...f.path].join('.')}: ${f.message}`).join('; ');
  throw new AppError(compiled.code, summary, { fields });
}

function errors(validate: ValidateFunction, location: FieldLocation): FieldError[] {
  return ajvErrorsToFields((validate.errors ?? []) as ErrorObject[], location);
}
