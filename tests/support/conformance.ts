// Conformance harness: checks a response against the response schema the provider's API declares for
// that operation, read from the committed reference catalogue (reference/catalogue.json).
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import { type CatalogueOperation, readCatalogue } from '../../src/platform/catalogue/index.js';
import { loosenAnyValue } from '../../src/catalogue-engine/validate.js';
import { normaliseSchema, PROVIDER_FORMATS } from '../../src/catalogue-engine/schema.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

type Json = Record<string, unknown>;
type Operation = CatalogueOperation;

let cached: { ajv: Ajv2020; operations: Operation[] } | undefined;

/** The reference's `nullable` as JSON-schema unions (the engine's own reading). */
const normalise = (node: unknown) => normaliseSchema(node);

function load() {
  if (cached) return cached;
  const catalogue = readCatalogue();
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, inlineRefs: false, unicodeRegExp: false, code: { optimize: false } });
  addFormats(ajv);
  for (const [name, format] of Object.entries(PROVIDER_FORMATS)) ajv.addFormat(name, format as never);
  // A bare `{"type": "object"}` is the provider's Go services' "any JSON value" (see the engine's validator).
  ajv.addSchema({ $id: 'reference', components: loosenAnyValue(normalise(catalogue.components)) } as Json);
  cached = { ajv, operations: catalogue.operations };
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
  const schema = declared.content['application/json'];
  if (!schema) return response.body === '' || status === '204' ? [] : [];
  const key = `${op.method} ${op.path} ${status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = load().ajv.compile(retarget(normalise(schema)) as Json);
    validators.set(key, validate);
  }
  const body = response.body === '' ? undefined : JSON.parse(response.body);
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}

/** Throws with every problem when the response does not conform. */
export function expectConforms(method: string, referencePath: string, response: LightMyRequestResponse): void {
  const problems = conformanceProblems(method, referencePath, response);
  if (problems.length > 0)
    throw new Error(
      `${method} ${referencePath} -> ${response.statusCode} does not conform:\n  ${problems.join('\n  ')}\nbody: ${response.body.slice(0, 2000)}`,
    );
}
