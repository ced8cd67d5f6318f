// The derivation behind scripts/reference.ts: OpenAPI document in, prose-free catalogue out. Kept apart
// from the script so the catalogue test can run the same code on the source document when it is present.
// Works by allowlist: a key is kept only when it is a known fact-bearing keyword in its position, so a
// new kind of documentation field in a future document is dropped without anyone listing it.
import { createHash } from 'node:crypto';
import type { Catalogue, CatalogueOperation, CatalogueParameter, Json, JsonSchema } from '../../src/platform/catalogue/types.js';
import { CATALOGUE_FORMAT, CATALOGUE_VERSION } from '../../src/platform/catalogue/types.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** JSON Schema keywords whose value is a plain fact, copied as they are. */
const VALUE_KEYWORDS = new Set([
  'type',
  'format',
  'enum',
  'const',
  'default',
  'nullable',
  'required',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minProperties',
  'maxProperties',
  'readOnly',
  'writeOnly',
  'deprecated',
  'contentMediaType',
  'contentEncoding',
  'dependentRequired',
  '$ref',
]);
/** Keywords holding one schema. */
const SCHEMA_KEYWORDS = new Set(['additionalProperties', 'propertyNames', 'items', 'not', 'contentSchema', 'if', 'then', 'else', 'unevaluatedProperties']);
/** Keywords holding a list of schemas. */
const SCHEMA_LIST_KEYWORDS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
/** Keywords holding a map from a name to a schema. */
const SCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties', 'dependentSchemas']);

/** Every keyword a catalogue schema may hold. */
export const FACT_KEYWORDS = new Set([...VALUE_KEYWORDS, ...SCHEMA_KEYWORDS, ...SCHEMA_LIST_KEYWORDS, ...SCHEMA_MAP_KEYWORDS, 'discriminator']);

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A schema with its prose removed; `$ref`s to other components stay as they are. */
export function stripSchema(node: unknown): JsonSchema {
  if (typeof node === 'boolean') return node;
  if (!isObject(node)) return {};
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(node)) {
    if (VALUE_KEYWORDS.has(key)) {
      // `required` is a list in a schema; a stray boolean (an OpenAPI 2 habit) carries no schema meaning.
      if (key === 'required' && !Array.isArray(value)) continue;
      out[key] = value as Json;
    } else if (SCHEMA_KEYWORDS.has(key)) {
      out[key] = Array.isArray(value) ? value.map(stripSchema) : stripSchema(value);
    } else if (SCHEMA_LIST_KEYWORDS.has(key) && Array.isArray(value)) {
      out[key] = value.map(stripSchema);
    } else if (SCHEMA_MAP_KEYWORDS.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, stripSchema(schema)]));
    } else if (key === 'discriminator' && isObject(value)) {
      const discriminator: Record<string, Json> = { propertyName: String(value.propertyName) };
      if (isObject(value.mapping)) discriminator.mapping = value.mapping as Json;
      out[key] = discriminator;
    }
  }
  return out;
}

interface Document {
  openapi: string;
  info?: { version?: string };
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
}

/** Follows `#/components/<kind>/<name>` references between non-schema components (parameters, bodies, responses). */
function resolve(document: Document, node: unknown): Record<string, unknown> {
  let current = node;
  for (let depth = 0; isObject(current) && typeof current.$ref === 'string' && depth < 16; depth++) {
    const parts = current.$ref.replace(/^#\//, '').split('/');
    current = parts.reduce<unknown>((at, part) => (isObject(at) ? at[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), document);
  }
  if (!isObject(current)) throw new Error(`unresolvable reference ${JSON.stringify(node)}`);
  return current;
}

function parameterOf(document: Document, raw: unknown): CatalogueParameter {
  const parameter = resolve(document, raw);
  const out: CatalogueParameter = {
    in: String(parameter.in) as CatalogueParameter['in'],
    name: String(parameter.name),
    required: parameter.required === true || parameter.in === 'path',
    schema: stripSchema(parameter.schema),
  };
  if (parameter.deprecated === true) out.deprecated = true;
  if (typeof parameter.style === 'string') out.style = parameter.style;
  if (typeof parameter.explode === 'boolean') out.explode = parameter.explode;
  return out;
}

function contentOf(content: unknown): Record<string, JsonSchema> {
  if (!isObject(content)) return {};
  return Object.fromEntries(Object.entries(content).map(([type, media]) => [type, stripSchema(isObject(media) ? media.schema : undefined)]));
}

function operationOf(document: Document, method: string, opPath: string, raw: Record<string, unknown>, shared: unknown[]): CatalogueOperation {
  const parameters = [...shared, ...((raw.parameters as unknown[]) ?? [])].map((p) => parameterOf(document, p));
  // An operation's own parameter replaces a path-level one of the same name and place.
  const unique = new Map(parameters.map((p) => [`${p.in} ${p.name}`, p]));
  const operation: CatalogueOperation = {
    method: method.toUpperCase(),
    path: opPath,
    operationId: String(raw.operationId),
    product: opPath.split('/')[1],
    tags: Array.isArray(raw.tags) ? raw.tags.map(String) : [],
    parameters: [...unique.values()],
    responses: {},
  };
  if (raw.deprecated === true) operation.deprecated = true;
  if (Array.isArray(raw.security) && raw.security.length === 0) operation.public = true;
  if (raw.requestBody !== undefined) {
    const body = resolve(document, raw.requestBody);
    operation.requestBody = { required: body.required === true, content: contentOf(body.content) };
  }
  for (const [status, value] of Object.entries(resolve(document, raw.responses))) {
    const response = resolve(document, value);
    const entry: CatalogueOperation['responses'][string] = { content: contentOf(response.content) };
    if (isObject(response.headers)) {
      entry.headers = Object.fromEntries(Object.entries(response.headers).map(([name, header]) => [name, stripSchema(resolve(document, header).schema)]));
    }
    operation.responses[status] = entry;
  }
  return operation;
}

/** Names of the schema components a value refers to, directly. */
function refsIn(node: unknown, found: Set<string>): void {
  if (Array.isArray(node)) for (const item of node) refsIn(item, found);
  else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) found.add(value.slice('#/components/schemas/'.length));
      else if (key === 'mapping' && isObject(value)) for (const target of Object.values(value)) refsIn({ $ref: target }, found);
      else refsIn(value, found);
    }
  }
}

export function buildCatalogue(document: Document, sourceText?: string): Catalogue {
  const operations: CatalogueOperation[] = [];
  for (const [opPath, item] of Object.entries(document.paths)) {
    const shared = (item.parameters as unknown[]) ?? [];
    for (const method of METHODS) {
      const raw = item[method];
      if (isObject(raw)) operations.push(operationOf(document, method, opPath, raw, shared));
    }
  }
  operations.sort((a, b) => (a.path === b.path ? a.method.localeCompare(b.method) : a.path < b.path ? -1 : 1));

  // Only the schemas the operations reach, transitively.
  const sourceSchemas = (document.components?.schemas ?? {}) as Record<string, unknown>;
  const schemas: Record<string, JsonSchema> = {};
  const pending = new Set<string>();
  refsIn(operations, pending);
  while (pending.size > 0) {
    const [name] = pending;
    pending.delete(name);
    if (name in schemas) continue;
    if (!(name in sourceSchemas)) throw new Error(`schema ${name} is referenced but not defined`);
    schemas[name] = stripSchema(sourceSchemas[name]);
    const next = new Set<string>();
    refsIn(schemas[name], next);
    for (const ref of next) if (!(ref in schemas)) pending.add(ref);
  }

  return {
    format: CATALOGUE_FORMAT,
    version: CATALOGUE_VERSION,
    source: {
      openapi: document.openapi,
      apiVersion: String(document.info?.version ?? ''),
      ...(sourceText === undefined ? {} : { sha256: createHash('sha256').update(sourceText).digest('hex') }),
    },
    operations,
    components: { schemas },
  };
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys(value[key])]),
  );
}

/**
 * Sorted keys everywhere; one operation per line and one schema component per line, so a change of
 * the source document shows in `git diff` as the operations and schemas it touched.
 */
export function serialiseCatalogue(catalogue: Catalogue): string {
  const { operations, components, ...head } = catalogue;
  const lines = ['{'];
  for (const [key, value] of Object.entries(sortKeys(head) as Record<string, unknown>)) lines.push(`${JSON.stringify(key)}: ${JSON.stringify(value)},`);
  lines.push('"components": {"schemas": {');
  const names = Object.keys(components.schemas).sort();
  names.forEach((name, i) => lines.push(`${JSON.stringify(name)}: ${JSON.stringify(sortKeys(components.schemas[name]))}${i < names.length - 1 ? ',' : ''}`));
  lines.push('}},', '"operations": [');
  operations.forEach((op, i) => lines.push(`${JSON.stringify(sortKeys(op))}${i < operations.length - 1 ? ',' : ''}`));
  lines.push(']', '}');
  return `${lines.join('\n')}\n`;
}
