// Reading the catalogue's JSON schemas: following `$ref`s, flattening `allOf`, and the OpenAPI 3.0 habit
// (`nullable: true`) the provider's 3.1 document keeps. Pure functions over the committed catalogue.
import type { Catalogue, JsonSchema } from '../platform/catalogue/index.js';

export type Schema = Record<string, any>;

const REF_PREFIX = '#/components/schemas/';

export class Schemas {
  constructor(private readonly catalogue: Catalogue) {}

  /** The named component a `$ref` points at. */
  component(name: string): Schema {
    const found = this.catalogue.components.schemas[name];
    if (found === undefined) throw new Error(`catalogue: no schema component ${name}`);
    return asSchema(found);
  }

  /** Follows `$ref`s until a schema with content (a `$ref` with siblings keeps them). */
  deref(schema: JsonSchema | undefined): Schema {
    let current = asSchema(schema);
    for (let depth = 0; typeof current.$ref === 'string' && depth < 32; depth += 1) {
      const { $ref, ...siblings } = current;
      current = { ...this.component(($ref as string).slice(REF_PREFIX.length)), ...siblings };
    }
    return current;
  }

  /** The component name of a `$ref` schema, if it is one. */
  static refName(schema: JsonSchema | undefined): string | undefined {
    const ref = (schema as Schema | undefined)?.$ref;
    return typeof ref === 'string' && ref.startsWith(REF_PREFIX) ? ref.slice(REF_PREFIX.length) : undefined;
  }

  /**
   * The object view of a schema: `allOf` members merged (properties, required), `$ref`s followed. A
   * union (`anyOf`/`oneOf`) is left to the caller, which knows which branch it wants.
   */
  flat(schema: JsonSchema | undefined): Schema {
    const node = this.deref(schema);
    if (!Array.isArray(node.allOf)) return node;
    const { allOf, ...rest } = node;
    let merged: Schema = { ...rest };
    for (const member of allOf as JsonSchema[]) {
      const part = this.flat(member);
      merged = {
        ...part,
        ...merged,
        properties: { ...(part.properties ?? {}), ...(merged.properties ?? {}) },
        required: [...new Set([...((part.required as string[]) ?? []), ...((merged.required as string[]) ?? [])])],
      };
      if (part.type && !merged.type) merged.type = part.type;
    }
    if (Object.keys(merged.properties).length === 0) delete merged.properties;
    return merged;
  }

  /** The non-null branches of a union (or the schema itself). */
  branches(schema: JsonSchema | undefined): Schema[] {
    const node = this.flat(schema);
    const union = (node.anyOf ?? node.oneOf) as JsonSchema[] | undefined;
    if (!Array.isArray(union)) return [node];
    return union.map((branch) => this.flat(branch)).filter((branch) => branch.type !== 'null');
  }

  /** The object branch of a schema (first one with properties), or undefined. */
  objectOf(schema: JsonSchema | undefined): Schema | undefined {
    return this.branches(schema).find((b) => b.properties || b.type === 'object');
  }

  /** The item schema when the schema is an array (or a union holding one). */
  arrayItems(schema: JsonSchema | undefined): Schema | undefined {
    const array = this.branches(schema).find((b) => b.type === 'array');
    return array ? this.flat(array.items) : undefined;
  }

  /** Type names of a schema (`type` may be a list; a union contributes its branches'). */
  types(schema: JsonSchema | undefined): string[] {
    const node = this.flat(schema);
    const nullable = node.nullable === true ? ['null'] : [];
    if (Array.isArray(node.type)) return [...node.type, ...nullable];
    if (typeof node.type === 'string') return [node.type, ...nullable];
    if (node.properties) return ['object'];
    const union = (node.anyOf ?? node.oneOf) as JsonSchema[] | undefined;
    if (Array.isArray(union)) return [...new Set(union.flatMap((b) => this.types(b)))];
    if (node.enum) return [...new Set((node.enum as unknown[]).map((v) => (v === null ? 'null' : typeof v === 'number' ? 'number' : typeof v)))];
    if (node.const !== undefined) return [typeof node.const];
    return [];
  }
}

export function asSchema(schema: JsonSchema | undefined): Schema {
  if (schema === undefined || schema === true) return {};
  if (schema === false) return { not: {} };
  return schema as Schema;
}

/**
 * The reference mixes OpenAPI 3.0 habits into a 3.1 document (`nullable: true`): rewritten into JSON-schema
 * type unions so a validator judges null as the document means it. `discriminator` is dropped (the
 * `oneOf` it annotates still decides). `$ref`s are retargeted with `refBase` (the id the components were
 * added under in the validator).
 */
export function normaliseSchema(node: unknown, refBase = ''): unknown {
  if (Array.isArray(node)) return node.map((n) => normaliseSchema(n, refBase));
  if (!node || typeof node !== 'object') return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node as Schema)) {
    if (key === 'nullable' || key === 'discriminator') continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/')) out.$ref = `${refBase}${value}`;
    else out[key] = key === 'properties' ? mapValues(value as Schema, (v) => normaliseSchema(v, refBase)) : normaliseSchema(value, refBase);
  }
  const schema = node as Schema;
  if (schema.nullable === true) {
    if (typeof schema.type === 'string') out.type = [schema.type, 'null'];
    else if (Array.isArray(schema.type)) out.type = [...new Set([...(schema.type as string[]), 'null'])];
    else if (schema.$ref || schema.allOf || schema.anyOf || schema.oneOf) return { anyOf: [{ type: 'null' }, out] };
    if (Array.isArray(out.enum) && !(out.enum as unknown[]).includes(null)) out.enum = [...(out.enum as unknown[]), null];
  }
  return out;
}

function mapValues(object: Schema, map: (value: unknown) => unknown): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(object ?? {})) out[key] = map(value);
  return out;
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const isIp = (text: string) => IPV4.test(text) || (text.includes(':') && /^[0-9a-fA-F:.]+$/.test(text));
const isNetwork = (text: string) => {
  const [address, prefix, ...rest] = text.split('/');
  return rest.length === 0 && isIp(address) && (prefix === undefined || /^\d{1,3}$/.test(prefix));
};

/**
 * The provider's own format names (pydantic's and Go's): the ones that constrain a value are checked,
 * the purely descriptive ones (sizes of integers, free-text hints) accept anything of the right type.
 */
export const PROVIDER_FORMATS: Record<string, RegExp | ((text: string) => boolean) | true> = {
  uuid4: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  ipvanyaddress: isIp,
  ipvanynetwork: isNetwork,
  ipv4network: isNetwork,
  ipv6network: isNetwork,
  ipvanyinterface: isNetwork,
  ipv4interface: isNetwork,
  ipv6interface: isNetwork,
  uint64: true,
  uint32: true,
  uint8: true,
  int: true,
  int32: true,
  int64: true,
  double: true,
  float: true,
  decimal: true,
  string: true,
  password: true,
  binary: true,
  domain: true,
  Rule: true,
  'nginx time': /^\d+(ms|s|m|h|d|w|M|y)?$/,
  'country-code': /^[A-Z]{2}$/,
  'domain or wildcard': true,
  http_header: true,
  'ipv4net or ipv6net': isNetwork,
  timezone: true,
  user_agent: true,
  '{status_code or any}: {nginx time}': true,
  'P(n)Y(n)M(n)DT(n)H(n)M)': true,
  'attachment; filename=<from>_<to>_<format>.zip': true,
};
