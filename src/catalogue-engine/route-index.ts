// Derives the compact route index (src/platform/catalogue/routes.ts, reference/catalogue-routes.json) from
// the catalogue: run by scripts/catalogue-routes.ts; a test fails when the committed file and the
// catalogue disagree. Also the inference of which operations start tasks, and their task types.
import type { Catalogue, CatalogueOperation } from '../platform/catalogue/index.js';
import type { RouteEntry } from '../platform/catalogue/routes.js';
import { Schemas } from './schema.js';
import { isParam, isVersion, paramName, SCOPE_PARAMS, segmentsOf, singular, snake } from './words.js';

export function deriveRouteIndex(catalogue: Catalogue): RouteEntry[] {
  const schemas = new Schemas(catalogue);
  return catalogue.operations.map((op) => ({
    method: op.method,
    path: op.path,
    operationId: op.operationId,
    product: op.product,
    public: op.public === true,
    errorStatuses: Object.keys(op.responses)
      .map(Number)
      .filter((status) => status >= 400)
      .sort((a, b) => a - b),
    ...(answersTasks(schemas, op) ? { taskType: taskTypeName(op.method, op.path) } : {}),
  }));
}

/** The operation answers `{tasks: [...]}`: it starts asynchronous work (the cloud's task engine). */
export function answersTasks(schemas: Schemas, op: CatalogueOperation): boolean {
  const status = Object.keys(op.responses).find((s) => s.startsWith('2'));
  const schema = status ? op.responses[status].content['application/json'] : undefined;
  if (!schema) return false;
  const tasks = schemas.objectOf(schema)?.properties?.tasks;
  return tasks !== undefined && schemas.types(tasks).includes('array');
}

/**
 * The task type an operation's tasks carry, named like the provider's (`create_loadbalancer`,
 * `delete_lbpool`, `failover_loadbalancer`): the verb is the method, or the action word ending the
 * path; the noun is the singular of the collection word.
 */
export function taskTypeName(method: string, path: string): string {
  const segments = segmentsOf(path)
    .slice(1)
    .filter((s) => !isVersion(s) && !(isParam(s) && SCOPE_PARAMS.has(paramName(s))));
  const last = segments.at(-1) ?? '';
  const words = segments.filter((s) => !isParam(s));
  const noun = (word: string | undefined) => snake(singular(word ?? 'resource'));
  if (isParam(last)) {
    const verb = method === 'DELETE' ? 'delete' : method === 'POST' ? 'create' : 'update';
    return `${verb}_${noun(words.at(-1))}`;
  }
  const beforeLast = segments.at(-2);
  if (beforeLast !== undefined && isParam(beforeLast)) {
    // An action on one item (`.../{id}/failover`) or a nested collection (`.../{pool_id}/member`).
    const collectionWord = words.at(-2);
    if (method === 'POST' && /s$/.test(last)) return `create_${noun(last)}`;
    if (method === 'DELETE') return `delete_${noun(last)}`;
    return `${snake(last)}_${noun(collectionWord)}`;
  }
  return `${method === 'DELETE' ? 'delete' : method === 'POST' || method === 'PUT' ? 'create' : 'update'}_${noun(last)}`;
}
