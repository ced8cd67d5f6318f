// Conformance harness: checks a response against the response schema the provider's published OpenAPI
// document gives for that operation. The reference is read from ../shared/reference beside the checkout
// (never copied into the repo), or from EDGEPLANE_REFERENCE_DIR.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import { testReferenceDir } from '../../src/config.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

const here = path.dirname(fileURLToPath(import.meta.url));
export const REFERENCE_PATH = path.join(testReferenceDir() ?? path.resolve(here, '../../../shared/reference'), 'openapi.json');

type Json = Record<string, unknown>;
interface Operation {
  method: string;
  path: string;
  operationId: string;
  responses: Record<string, { content?: Record<string, { schema?: Json }> }>;
}

let cached: { spec: Json; ajv: Ajv2020; operations: Operation[] } | undefined;

/**
 * The reference mixes OpenAPI 3.0 habits into a 3.1 document (`nullable: true`, `example`). Rewrite
 * `nullable` into a JSON-schema type union so Ajv judges null the way the document means it.
 */
function normalise(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalise);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (key === 'nullable' || key === 'discriminator' || key === 'xml') continue;
    out[key] = normalise(value);
  }
  const schema = node as Json;
  if (schema.nullable === true) {
    if (typeof schema.type === 'string') out.type = [schema.type, 'null'];
    else if (Array.isArray(schema.type)) out.type = [...new Set([...(schema.type as string[]), 'null'])];
    else if (schema.$ref || schema.allOf || schema.anyOf || schema.oneOf) return { anyOf: [{ type: 'null' }, out] };
    if (Array.isArray(out.enum) && !(out.enum as unknown[]).includes(null)) out.enum = [...(out.enum as unknown[]), null];
  }
  return out;
}

function load() {
  if (cached) return cached;
  if (!fs.existsSync(REFERENCE_PATH)) {
    throw new Error(`the provider's OpenAPI document is not at ${REFERENCE_PATH}: the conformance checks read it from shared/reference beside the checkout; set EDGEPLANE_REFERENCE_DIR to its folder`);
  }
  const spec = normalise(JSON.parse(fs.readFileSync(REFERENCE_PATH, 'utf8'))) as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'reference', components: spec.components } as Json);
  const operations: Operation[] = [];
  for (const [p, item] of Object.entries(spec.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      const operation = op as Json;
      if (!operation || typeof operation !== 'object' || !operation.responses) continue;
      operations.push({ method: method.toUpperCase(), path: p, operationId: String(operation.operationId), responses: operation.responses as Operation['responses'] });
    }
  }
  cached = { spec, ajv, operations };
  return cached;
}

function retarget(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(retarget);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    out[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `reference${value}` : retarget(value);
  }
  return out;
}

export function findOperation(method: string, referencePath: string): Operation {
  const op = load().operations.find((o) => o.method === method.toUpperCase() && o.path === referencePath);
  if (!op) throw new Error(`no operation ${method} ${referencePath} in the reference`);
  return op;
}

const validators = new Map<string, ReturnType<Ajv2020['compile']>>();

/**
 * Validates a response against the reference's schema for (method, path, status). Returns the list of
 * problems (empty when it conforms). Throws if the reference has no JSON schema for that status.
 */
export function conformanceProblems(method: string, referencePath: string, response: LightMyRequestResponse): string[] {
  const op = findOperation(method, referencePath);
  const status = String(response.statusCode);
  const declared = op.responses[status] ?? op.responses[`${status[0]}XX`] ?? op.responses.default;
  if (!declared) return [`status ${status} is not declared for ${method} ${referencePath} (declared: ${Object.keys(op.responses).join(', ')})`];
  const schema = declared.content?.['application/json']?.schema;
  if (!schema) return response.body === '' || status === '204' ? [] : [];
  const key = `${op.method} ${op.path} ${status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = load().ajv.compile(retarget(schema) as Json);
    validators.set(key, validate);
  }
  const body = response.body === '' ? undefined : JSON.parse(response.body);
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}

/** Throws with every problem when the response does not conform. */
export function expectConforms(method: string, referencePath: string, response: LightMyRequestResponse): void {
  const problems = conformanceProblems(method, referencePath, response);
  if (problems.length > 0) throw new Error(`${method} ${referencePath} -> ${response.statusCode} does not conform:\n  ${problems.join('\n  ')}\nbody: ${response.body.slice(0, 2000)}`);
}
