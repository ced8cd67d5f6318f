// Records and answers. A request body becomes a record by field name on the record's schema (nested
// objects included); what the schema requires and the request did not say is filled once, at creation,
// so reads answer exactly what was stored. An answer is the record seen through the operation's declared
// response schema: its fields where they fit, generated values for required fields it lacks.
import type { JsonSchema } from '../platform/catalogue/index.js';
import { fill, type FillContext, fits } from './fill.js';
import type { Schema, Schemas } from './schema.js';

export type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The fields of `body` that the record schema has, converted where the request form differs from the
 * record form by structure alone: a `{key: value}` map where the record lists `[{key, value}]`, and a
 * body wrapping the record in one field (`{"broadcast": {...}}`).
 */
export function fromBody(body: unknown, record: JsonSchema | undefined, schemas: Schemas): Json {
  if (!isObject(body)) return {};
  let node = schemas.objectOf(record);
  // A record schema that wraps the record in one field: the body maps onto the inner object.
  const only = Object.keys(node?.properties ?? {});
  if (node && only.length === 1 && !(only[0] in body)) {
    const inner = schemas.objectOf((node.properties as Record<string, JsonSchema>)[only[0]]);
    if (inner?.properties) node = inner;
  }
  const properties = (node?.properties ?? {}) as Record<string, JsonSchema>;
  const names = Object.keys(properties);
  const unwrapped = unwrap(body, names);
  const out: Json = {};
  for (const [key, value] of Object.entries(unwrapped)) {
    const property = properties[key];
    if (property === undefined) {
      if (node?.additionalProperties !== undefined && node.additionalProperties !== false && names.length === 0) out[key] = value;
      continue;
    }
    const converted = convert(value, property, schemas);
    if (converted !== undefined) out[key] = converted;
  }
  return out;
}

function unwrap(body: Json, names: string[]): Json {
  const keys = Object.keys(body);
  if (keys.length !== 1 || names.includes(keys[0])) return body;
  const inner = body[keys[0]];
  return isObject(inner) && Object.keys(inner).some((k) => names.includes(k)) ? inner : body;
}

function convert(value: unknown, property: JsonSchema, schemas: Schemas): unknown {
  const node = schemas.flat(property);
  const branches = schemas.branches(node);
  if (value === null)
    return schemas.types(node).includes('null') || branches.length < ((node.anyOf ?? node.oneOf) as unknown[] | undefined)?.length! ? null : undefined;
  const objectBranch = branches.find((b) => b.properties);
  if (isObject(value) && objectBranch && objectBranch.additionalProperties === undefined) {
    const nested = fromBody(value, objectBranch, schemas);
    return nested;
  }
  const items = schemas.arrayItems(node);
  if (isObject(value) && items?.properties?.key && items.properties.value) {
    return Object.entries(value).map(([key, v]) => ({
      key,
      value: typeof v === 'string' ? v : JSON.stringify(v),
      ...(items.properties.read_only ? { read_only: false } : {}),
    }));
  }
  if (Array.isArray(value) && items?.properties) return value.map((v) => (isObject(v) ? { ...v, ...fromBody(v, items, schemas) } : v));
  return branches.some((b) => fits(value, b, schemas)) || branches.length === 0 ? value : undefined;
}

/** A record built from its request fields, completed with every required field of its schema. */
export function completeRecord(fields: Json, record: JsonSchema | undefined, seed: string, ctx: FillContext): Json {
  const node = ctx.schemas.objectOf(record);
  if (!node) return { ...fields };
  const filled = fill(node, seed, { ...ctx, known: { ...ctx.known, ...fields } }) as Json;
  return { ...filled, ...fields };
}

/**
 * The answer of an operation about one record: each property of the response schema from the record
 * when it fits, else (when required) a generated value; an open object passes the record through.
 */
export function project(record: Json, response: JsonSchema | undefined, seed: string, ctx: FillContext, depth = 0): unknown {
  const { schemas } = ctx;
  const node = schemas.flat(response);
  const union = (node.oneOf ?? node.anyOf) as JsonSchema[] | undefined;
  if (Array.isArray(union)) {
    const branches = union.map((b) => schemas.flat(b)).filter((b) => b.type !== 'null');
    const best = bestBranch(record, branches);
    return best ? project(record, best, seed, ctx, depth) : fill(node, seed, ctx);
  }
  if (!node.properties) {
    if (schemas.types(node).includes('object') || node.additionalProperties !== undefined) return { ...record };
    return fill(node, seed, ctx);
  }
  const out: Json = {};
  const required = new Set<string>((node.required as string[]) ?? []);
  const wrapper = wrapperOf(record, node, schemas);
  if (wrapper) return { [wrapper]: project(record, (node.properties as Record<string, JsonSchema>)[wrapper], seed, ctx, depth + 1) };
  for (const [key, property] of Object.entries(node.properties as Record<string, JsonSchema>)) {
    const flat = schemas.flat(property);
    if (flat.writeOnly === true && !required.has(key)) continue;
    const value = record[key];
    if (value !== undefined && fitsDeep(value, flat, schemas)) out[key] = shape(value, flat, `${seed}.${key}`, ctx, depth);
    else if (required.has(key) || key in ctx.known) out[key] = fill(property, `${seed}.${key}`, { ...ctx, known: { ...ctx.known, ...record } }, key);
  }
  return out;
}

/**
 * An answer that wraps the record in one field (`{"directory": {...}}`) while the record is stored flat:
 * the one property is an object and the record has none of the answer's fields but some of the inner one's.
 */
function wrapperOf(record: Json, node: Schema, schemas: Schemas): string | undefined {
  const names = Object.keys(node.properties ?? {});
  if (names.length !== 1 || names[0] in record) return undefined;
  const inner = schemas.objectOf((node.properties as Record<string, JsonSchema>)[names[0]]);
  return inner?.properties && Object.keys(inner.properties).some((k) => k in record) ? names[0] : undefined;
}

/** Nested objects of a kept value are seen through their own schema too (extra fields dropped). */
function shape(value: unknown, node: Schema, seed: string, ctx: FillContext, depth: number): unknown {
  if (depth > 6) return value;
  if (Array.isArray(value)) {
    const items = ctx.schemas.arrayItems(node);
    if (items && (items.properties || items.oneOf || items.anyOf)) return value.map((v, i) => shape(v, items, `${seed}[${i}]`, ctx, depth + 1));
    return value;
  }
  if (isObject(value) && (node.properties || node.oneOf || node.anyOf)) {
    const objectish = ctx.schemas.branches(node).find((b) => b.properties);
    if (objectish && objectish.additionalProperties === undefined) return project(value, node, seed, { ...ctx, known: {} }, depth + 1);
  }
  return value;
}

function fitsDeep(value: unknown, node: Schema, schemas: Schemas): boolean {
  const branches = schemas.branches(node);
  if (value === null)
    return schemas.types(node).includes('null') || ((node.anyOf ?? node.oneOf) as Schema[] | undefined)?.some((b) => schemas.flat(b).type === 'null') === true;
  return branches.length === 0 || branches.some((b) => fits(value, b, schemas));
}

function bestBranch(record: Json, branches: Schema[]): Schema | undefined {
  let best: Schema | undefined;
  let score = -1;
  for (const branch of branches) {
    const properties = Object.keys(branch.properties ?? {});
    const required = (branch.required as string[]) ?? [];
    const matched = properties.filter((p) => p in record).length - required.filter((r) => !(r in record)).length * 2;
    if (matched > score) [best, score] = [branch, matched];
  }
  return best;
}

/** RFC 7386-style merge: objects merge key by key, anything else replaces. */
export function mergeRecords(target: Json, patch: Json): Json {
  const out: Json = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    out[key] = isObject(value) && isObject(out[key]) ? mergeRecords(out[key] as Json, value) : value;
  }
  return out;
}
