// Plausible, deterministic values for a schema: what the engine puts in a required field the request did
// not give, in a read-only catalogue entry, or in a generated report. The same seed always gives the same
// value, so a record reads the same every time and a report answers the same request the same way.
import { createHash } from 'node:crypto';
import RandExp from 'randexp';
import type { JsonSchema } from '../platform/catalogue/index.js';
import type { Schema, Schemas } from './schema.js';

export interface FillContext {
  schemas: Schemas;
  /** Server-clock time for timestamps. */
  now: number;
  /** Values known by name (path parameters, the record's key): a field of that name takes them. */
  known: Record<string, unknown>;
  /** Also fill optional fields (catalogue entries and reports look complete; records keep what was sent). */
  optional?: boolean;
  /** Reports: arrays of timed points hold one point per step of the requested range. */
  series?: Series;
}

export interface Series {
  from: number;
  to: number;
  stepMs: number;
}

/**
 * A generated report as a thread makes it (see CatalogueService.report): the response schema as JSON (and
 * a key it is kept under there), the seed, and the FillContext but for the schemas, which the thread reads
 * from its own catalogue. Reports fill their optional fields.
 */
export interface ReportCall {
  key: string;
  schema: string;
  seed: string;
  now: number;
  known: Record<string, unknown>;
  series: Series;
}

/** What makes ReportCalls' reports in a thread: the same fill, so the same values as the main thread's. */
export function reportMaker(schemas: () => Schemas): (call: ReportCall) => unknown {
  const parsed = new Map<string, JsonSchema>();
  return ({ key, schema, seed, now, known, series }) => {
    let node = parsed.get(key);
    if (node === undefined) parsed.set(key, (node = JSON.parse(schema) as JsonSchema));
    return fill(node, seed, { schemas: schemas(), now, known, optional: true, series });
  };
}

const TIME_FIELD = /^(timestamp|time|date|datetime|ts|period|start|start_time|time_from|interval|dt|bucket|hour|day|minute)$/;
// A report is built value by value (in the engine's thread, see CatalogueService.report): 200 points keep the largest under 50 ms.
const MAX_POINTS = 200;

/**
 * A number in [0, 1) from a text seed: cyrb53, a fast 53-bit string hash. A generated report asks for one
 * per value (tens of thousands for a long series); SHA-1 made that a third of the engine's CPU time.
 */
export function unit(seed: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < seed.length; i += 1) {
    const c = seed.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)) / 2 ** 53;
}

export function seededInt(seed: string, min: number, max: number): number {
  return min + Math.floor(unit(seed) * (max - min + 1));
}

/**
 * A short seed standing for a long text (a request's query and body). Every generated value hashes its
 * seed, so a report's seeds begin with this digest rather than the request: with the request itself, each
 * of a report's thousands of values hashed it again (an 8,000-character query: 154 ms a report).
 */
export function seedDigest(text: string): string {
  return createHash('sha1').update(text).digest('base64url');
}

export function seededUuid(seed: string): string {
  const hex = createHash('sha1').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${'89ab'[parseInt(hex[16], 16) % 4]}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

// Values a status-like field takes when the record is ready to use.
const READY = [
  'ACTIVE',
  'active',
  'Active',
  'READY',
  'ready',
  'available',
  'AVAILABLE',
  'enabled',
  'ENABLED',
  'ONLINE',
  'online',
  'running',
  'RUNNING',
  'provisioned',
  'ok',
  'OK',
  'success',
  'succeeded',
  'FINISHED',
  'finished',
  'done',
  'created',
  'deployed',
  'healthy',
  'live',
  'normal',
  'approved',
  'valid',
];
const STATUS_FIELD = /(^|_)(status|state)$|Status$/;
const MAX_DEPTH = 12;

export function fill(schema: JsonSchema | undefined, seed: string, ctx: FillContext, name = '', depth = 0): unknown {
  const { schemas } = ctx;
  const node = schemas.flat(schema);
  if (name && name in ctx.known && fits(ctx.known[name], node, schemas)) return ctx.known[name];
  if (node.const !== undefined) return node.const;
  if (Array.isArray(node.enum) && node.enum.length > 0) return pickEnum(node.enum, name, seed);
  if (node.default !== undefined && node.default !== null && !/(_id|^id)$/.test(name)) return node.default;
  const union = (node.oneOf ?? node.anyOf) as JsonSchema[] | undefined;
  if (Array.isArray(union)) {
    const branches = union.filter((b) => schemas.flat(b).type !== 'null');
    if (branches.length === 0) return null;
    if (depth >= MAX_DEPTH && branches.length < union.length) return null;
    return fill(branches[0], seed, ctx, name, depth + 1);
  }
  const types = schemas.types(node);
  const type = ['object', 'array', 'string', 'integer', 'number', 'boolean'].find((t) => types.includes(t)) ?? (types.includes('null') ? 'null' : 'object');
  switch (type) {
    case 'object':
      return fillObject(node, seed, ctx, depth);
    case 'array':
      return fillArray(node, seed, ctx, name, depth);
    case 'string':
      return fillString(node, seed, ctx, name);
    case 'integer':
    case 'number':
      return fillNumber(node, seed, name, type === 'integer');
    case 'boolean':
      return /(^|_)(enabled|active|is_active)$|^(enabled|active)$/.test(name);
    default:
      return null;
  }
}

function fillObject(node: Schema, seed: string, ctx: FillContext, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const minProperties = Number(node.minProperties ?? 0);
  if (depth >= MAX_DEPTH && minProperties === 0) return out;
  const required = new Set<string>((node.required as string[]) ?? []);
  for (const [key, property] of Object.entries((node.properties ?? {}) as Record<string, JsonSchema>)) {
    const flat = ctx.schemas.flat(property);
    if (flat.writeOnly === true && !required.has(key)) continue;
    if (required.has(key) || (ctx.optional && depth < 3) || key in ctx.known) out[key] = fill(property, `${seed}.${key}`, ctx, key, depth + 1);
  }
  // `minProperties`: optional properties next, then entries of an open map.
  for (const [key, property] of Object.entries((node.properties ?? {}) as Record<string, JsonSchema>)) {
    if (Object.keys(out).length >= minProperties) break;
    if (!(key in out)) out[key] = fill(property, `${seed}.${key}`, ctx, key, depth + 1);
  }
  for (let i = 1; Object.keys(out).length < minProperties && i < 50; i += 1) {
    const extra = typeof node.additionalProperties === 'object' ? node.additionalProperties : {};
    out[`key${i}`] = fill(extra as JsonSchema, `${seed}.key${i}`, ctx, `key${i}`, depth + 1);
  }
  return out;
}

function fillArray(node: Schema, seed: string, ctx: FillContext, name: string, depth: number): unknown[] {
  const points = ctx.series && seriesOf(node, seed, ctx, name, depth);
  if (points) return points;
  const min = Number(node.minItems ?? 0);
  const count = Math.min(Math.max(min, ctx.optional && depth < 3 ? 2 : 0), Number(node.maxItems ?? Infinity));
  const items: unknown[] = [];
  for (let i = 0; i < count; i += 1) items.push(fill(node.items, `${seed}[${i}]`, ctx, singularName(name), depth + 1));
  return node.uniqueItems ? [...new Map(items.map((v) => [JSON.stringify(v), v])).values()] : items;
}

const singularName = (name: string) => name.replace(/s$/, '');

/** One point per step of the range when the array's items carry a time field (or are [time, value] pairs). */
function seriesOf(node: Schema, seed: string, ctx: FillContext, name: string, depth: number): unknown[] | undefined {
  const series = ctx.series!;
  const item = ctx.schemas.flat(node.items);
  const properties = (item.properties ?? {}) as Record<string, JsonSchema>;
  const timeField = Object.keys(properties).find((key) => TIME_FIELD.test(key));
  const pair = ctx.schemas.types(item).includes('array') && !timeField;
  if (!timeField && !pair) return undefined;
  const out: unknown[] = [];
  const start = Math.ceil(series.from / series.stepMs) * series.stepMs;
  const max = Math.min(MAX_POINTS, Number(node.maxItems ?? MAX_POINTS));
  for (let at = start; at <= series.to && out.length < max; at += series.stepMs) {
    const pointSeed = `${seed}@${at}`;
    if (pair) {
      out.push([Math.floor(at / 1000), seededInt(pointSeed, 0, 1000)]);
      continue;
    }
    const point = fill(item, pointSeed, { ...ctx, series: undefined, optional: true }, singularName(name), depth + 1) as Record<string, unknown>;
    const time = ctx.schemas.flat(properties[timeField!]);
    point[timeField!] = ctx.schemas.types(time).includes('string')
      ? new Date(at).toISOString()
      : time.format === 'int64' && /ms$/.test(timeField!)
        ? at
        : Math.floor(at / 1000);
    out.push(point);
  }
  return out;
}

function pickEnum(values: unknown[], name: string, seed: string): unknown {
  const present = values.filter((v) => v !== null);
  if (present.length === 0) return null;
  if (STATUS_FIELD.test(name)) {
    const ready = READY.find((r) => present.includes(r));
    if (ready !== undefined) return ready;
  }
  return present[seededInt(seed, 0, present.length - 1)];
}

function fillNumber(node: Schema, seed: string, name: string, integer: boolean): number {
  const exclusiveMin = typeof node.exclusiveMinimum === 'number' ? node.exclusiveMinimum + (integer ? 1 : 0.01) : undefined;
  const exclusiveMax = typeof node.exclusiveMaximum === 'number' ? node.exclusiveMaximum - (integer ? 1 : 0.01) : undefined;
  let min = Number(node.minimum ?? exclusiveMin ?? (/(_id|^id|count|port|size)$/.test(name) ? 1 : 0));
  let max = Number(node.maximum ?? exclusiveMax ?? (/(_id|^id)$/.test(name) ? 99_999 : Math.max(min, 100)));
  if (max < min) [min, max] = [max, min];
  const value = min + unit(seed) * (max - min);
  if (integer) {
    const rounded = Math.min(max, Math.max(min, Math.round(value)));
    const step = Number(node.multipleOf ?? 1);
    return Math.floor(rounded / step) * step >= min ? Math.floor(rounded / step) * step : Math.ceil(rounded / step) * step;
  }
  return Math.round(value * 100) / 100;
}

function fillString(node: Schema, seed: string, ctx: FillContext, name: string): string {
  const format = node.format as string | undefined;
  const text = byFormat(format, seed, ctx) ?? byPattern(node.pattern as string | undefined, seed) ?? byName(name, seed);
  return fitLength(text, node, seed);
}

function byFormat(format: string | undefined, seed: string, ctx: FillContext): string | undefined {
  const n = seededInt(seed, 1, 250);
  switch (format) {
    case 'date-time':
      return new Date(ctx.now).toISOString();
    case 'date':
      return new Date(ctx.now).toISOString().slice(0, 10);
    case 'time':
      return new Date(ctx.now).toISOString().slice(11, 19);
    case 'uuid':
    case 'uuid4':
      return seededUuid(seed);
    case 'ipv4':
    case 'ipvanyaddress':
      return `10.${seededInt(`${seed}a`, 0, 255)}.${seededInt(`${seed}b`, 0, 255)}.${n}`;
    case 'ipv6':
      return `fd00::${n.toString(16)}`;
    case 'ipv4network':
    case 'ipvanynetwork':
    case 'ipv4interface':
    case 'ipvanyinterface':
    case 'ipv4net or ipv6net':
      return `10.${n}.0.0/24`;
    case 'ipv6network':
    case 'ipv6interface':
      return `fd00:${n.toString(16)}::/64`;
    case 'email':
      return `user${n}@example.com`;
    case 'uri':
    case 'url':
      return `https://example.com/${n}`;
    case 'hostname':
    case 'domain':
    case 'domain or wildcard':
      return `host${n}.example.com`;
    case 'nginx time':
      return `${n}s`;
    case 'country-code':
      return 'LU';
    default:
      return undefined;
  }
}

/**
 * RandExp expands a character class into its set of characters again at every character it generates
 * (`[a-z0-9-]+` up to nine times a value, a list fills hundreds of values): this one keeps each class of
 * its pattern expanded. The sets are only read (picked from), never changed, so they can be kept.
 */
class ExpandedOnce extends RandExp {
  private readonly sets = new WeakMap<object, unknown>();

  _expand(token: object): unknown {
    let set = this.sets.get(token);
    if (set === undefined)
      this.sets.set(token, (set = (RandExp.prototype as unknown as { _expand(this: RandExp, token: object): unknown })._expand.call(this, token)));
    return set;
  }
}

// One generator per pattern (the catalogue has 56), or null for one RandExp refuses.
const generators = new Map<string, ExpandedOnce | null>();
const MAX_GENERATORS = 2_000;
// RandExp numbers a pattern's groups as its first value meets them: with a back-reference, a kept
// generator's values could depend on the values made before. Such a pattern gets a new one each time.
const BACK_REFERENCE = /\\[1-9]/;

function generatorFor(pattern: string): ExpandedOnce | null {
  let generator = generators.get(pattern);
  if (generator !== undefined) return generator;
  try {
    generator = new ExpandedOnce(pattern);
    generator.max = 8;
  } catch {
    generator = null;
  }
  if (BACK_REFERENCE.test(pattern)) return generator;
  if (generators.size >= MAX_GENERATORS) generators.clear();
  generators.set(pattern, generator);
  return generator;
}

function byPattern(pattern: string | undefined, seed: string): string | undefined {
  if (!pattern) return undefined;
  const generator = generatorFor(pattern);
  if (!generator) return undefined;
  let state = seededInt(seed, 1, 2 ** 31 - 2);
  // A small linear congruential generator seeded from the field: the same seed, the same text. Set for
  // this value only: generating is synchronous, so one generator serves every value of its pattern.
  generator.randInt = (from: number, to: number) => {
    state = (state * 48271) % 2147483647;
    return from + (state % (to - from + 1));
  };
  try {
    return generator.gen();
  } catch {
    return undefined;
  }
}

function byName(name: string, seed: string): string {
  const n = seededInt(seed, 1, 9999);
  if (/(^|_)(id|uuid)$|Id$/.test(name)) return seededUuid(seed);
  if (/(created|updated|modified|deleted)(_at|_on)?$|(^|_)(date|time|timestamp)$/.test(name)) return new Date(0).toISOString();
  if (/(^|_)(ip|address)$/.test(name)) return `10.0.${n % 256}.${(n >> 8) + 1}`;
  if (/(url|uri|link|href)$/.test(name)) return `https://example.com/${n}`;
  if (/(email)$/.test(name)) return `user${n}@example.com`;
  if (/(cname|domain|host|hostname|fqdn)$/.test(name)) return `host${n}.example.com`;
  if (/(region)$/.test(name)) return 'Luxembourg';
  if (/(currency|currency_code)$/.test(name)) return 'EUR';
  return `${name || 'value'}-${n}`.replace(/[^A-Za-z0-9._-]/g, '-');
}

function fitLength(text: string, node: Schema, seed: string): string {
  const min = Number(node.minLength ?? 0);
  const max = node.maxLength === undefined ? Infinity : Number(node.maxLength);
  let out = text;
  while (out.length < min) out += seededInt(`${seed}${out.length}`, 0, 9);
  if (out.length > max) out = out.slice(0, max);
  return out;
}

/** Whether a value has one of the schema's types (enough to keep a value the caller sent or a known one). */
export function fits(value: unknown, node: Schema, schemas: Schemas): boolean {
  if (node.const !== undefined) return value === node.const;
  if (Array.isArray(node.enum)) return node.enum.includes(value as never);
  const types = schemas.types(node);
  if (types.length === 0) return true;
  if (value === null) return types.includes('null');
  if (Array.isArray(value)) return types.includes('array');
  switch (typeof value) {
    case 'string':
      return types.includes('string');
    case 'number':
      return types.includes('number') || (types.includes('integer') && Number.isInteger(value));
    case 'boolean':
      return types.includes('boolean');
    case 'object':
      return types.includes('object');
    default:
      return false;
  }
}
