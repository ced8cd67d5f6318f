// The catalogue engine: serves every operation of the reference catalogue that no modelled product
// serves, with the same platform as everything else (auth and roles, tenancy, the product's error
// envelope, journal, faults, metrics, the clock, state export/import/reset, both databases). It is
// registered last: an operation a modelled product registered is left to it, with no list to keep.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerOf } from '../platform/auth/caller.js';
import { principalOf } from '../platform/auth/plugin.js';
import { readCatalogue } from '../platform/catalogue/index.js';
import { plainEnvelope } from '../platform/envelopes.js';
import type { DispatchedOperation } from '../platform/openapi.js';
import { type InternalRequests, operationKey, type RouteCatalogue } from '../platform/http.js';
import { isAllowed, OPERATOR, type Principal } from '../platform/auth/principal.js';
import type { PlatformDeps, Product } from '../platform/product.js';
import type { SchemaCode } from '../platform/schema-code.js';
import type { TaskEngine } from '../platform/tasks/engine.js';
import { ENGINE_SURFACES } from './envelopes.js';
import { Inference } from './infer.js';
import { readRouteIndex, type RouteEntry } from '../platform/catalogue/routes.js';
import { ENGINE_TAG, engineOperationId, engineRoutes, type EngineRequest } from './routes.js';
import { CatalogueService } from './service.js';
import { engineTaskType } from './tasks.js';
import { RequestValidator } from './validate.js';
import { fillPath } from './words.js';

const ANONYMOUS: Principal = { ...OPERATOR, kind: 'client' };

export interface CatalogueEngineDeps extends PlatformDeps {
  routes: RouteCatalogue;
  internal: InternalRequests;
  /** The cloud's durable task engine: operations answering task lists run through it. */
  tasks?: TaskEngine;
  /** Validators compiled by the build (see platform/schema-code.ts), or the build's collector. */
  schemaCode?: SchemaCode;
}

export interface CatalogueEngine extends Product {
  /** The operations this engine serves (known once registered). */
  served(): RouteEntry[];
  /**
   * Every operation it answers, for /openapi.json: those it serves, and those answered by a route of
   * another path spelling (the CDN resource PATCHes).
   */
  documented(): DispatchedOperation[];
}

interface Runtime {
  inference: Inference;
  validator: RequestValidator;
  service: CatalogueService;
}

export function createCatalogueEngine(deps: CatalogueEngineDeps): CatalogueEngine {
  let served: RouteEntry[] = [];
  let documented: DispatchedOperation[] = [];
  const servedKeys = new Set<string>();
  const taskNames = new Map<string, string>();
  // The catalogue (1.4 MB) is read, and its plans made, by the first request an engine route answers.
  let runtime: Runtime | undefined;
  const load = (): Runtime => {
    if (runtime) return runtime;
    const catalogue = readCatalogue();
    const inference = new Inference(catalogue);
    const validator = new RequestValidator(catalogue, deps.schemaCode);
    const service = new CatalogueService(
      deps.db,
      deps.clock,
      inference,
      deps.tasks,
      (plan) => validator.codeFor(plan.op),
      (name) => taskNames.get(name) ?? name,
    );
    runtime = { inference, validator, service };
    return runtime;
  };

  const handle = async (entry: RouteEntry, request: EngineRequest) => {
    const { inference, validator, service } = load();
    const plan = inference.plan(inference.operation(entry.method, entry.path));
    // Copies, typed as validation leaves them: it coerces their text in place (numbers, booleans, lists).
    const params: Record<string, unknown> = { ...request.params };
    const query: Record<string, unknown> = { ...request.query };
    validator.check(plan.op, { params, query, body: request.body, contentType: request.headers['content-type'] });
    // Public operations answer without a token: an anonymous caller owns nothing.
    const principal = request.principal ?? (entry.public ? ANONYMOUS : principalOf(request));
    return service.handle({
      plan,
      caller: callerOf(request, principal),
      params,
      query,
      body: request.body,
      exists: (template, ids) => exists(request, template, ids),
      adopt: (template, path) => adopt(request, template, path),
    });
  };

  let app: FastifyInstance | undefined;
  /**
   * Whether the record at `template` with `ids` exists for the caller, whoever serves it: the GET route's
   * own check when it has one (no request: a project or a region is checked by most engine operations),
   * otherwise the route asked by a request the server makes to itself as the caller. Either way a role
   * that may change but not read (purge-only) cannot ask: the operation's own rules then decide.
   */
  const exists = async (request: FastifyRequest, template: string, ids: readonly string[]): Promise<boolean> => {
    const principal = request.principal;
    const direct = principal && deps.routes.existenceCheck(template);
    if (principal && direct) {
      if (!isAllowed(principal, direct.access, direct.onBehalf)) return true;
      const known = await direct.check(callerOf(request, principal), ids);
      if (known !== undefined) return known;
    }
    const answer = await app!.inject({ method: 'GET', url: fillPath(template, ids), headers: deps.internal.headers(request.headers.authorization) });
    return answer.statusCode < 300 || answer.statusCode === 403;
  };

  /** The record a modelled product's read answers at `path` (the engine's own reads are not asked). */
  const adopt = async (request: FastifyRequest, template: string, path: string) => {
    if (servedKeys.has(operationKey('GET', template))) return undefined;
    const answer = await app!.inject({ method: 'GET', url: path, headers: deps.internal.headers(request.headers.authorization) });
    if (answer.statusCode >= 300) return undefined;
    const body = answer.json() as unknown;
    return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  };

  return {
    name: 'catalogue',
    prefixes: [],
    envelope: plainEnvelope,
    surfaces: ENGINE_SURFACES,
    tags: [{ name: ENGINE_TAG, description: 'Operations of the reference API served from its catalogue: inferred resources, validation and records' }],
    served: () => served,
    documented: () => documented,
    async register(instance) {
      app = instance;
      // Everything registered before this point is a modelled product: it keeps its operations.
      // Operations one route answers (three PATCHes of /cdn/resources/{...}): the last, most general, serves.
      const byRoute = new Map<string, RouteEntry>();
      const unserved = readRouteIndex().filter((entry) => !deps.routes.serves(entry.method, entry.path));
      for (const entry of unserved) byRoute.set(`${entry.method} ${entry.path.replace(/\{[^}]+\}/g, '{}')}`, entry);
      served = [...byRoute.values()];
      documented = unserved.map((e) => ({ method: e.method, path: e.path, operationId: engineOperationId(e), tag: ENGINE_TAG }));
      for (const entry of served) servedKeys.add(operationKey(entry.method, entry.path));
      registerTaskTypes(deps.tasks, served, taskNames);
      await engineRoutes(instance, deps.routes, served, handle);
      // The build's collector writes every served operation's validators into its pack now.
      if (deps.schemaCode?.collects) {
        const { inference, validator } = load();
        validator.prepareAll(served.map((entry) => inference.operation(entry.method, entry.path)));
      }
    },
  };
}

/**
 * One task type per name the served operations carry. A name a modelled product already runs (its module
 * would not understand the engine's task data) gets the `catalogue_` prefix instead.
 */
function registerTaskTypes(tasks: TaskEngine | undefined, served: RouteEntry[], names: Map<string, string>): void {
  if (!tasks) return;
  for (const name of new Set(served.map((e) => e.taskType).filter((t): t is string => t !== undefined))) {
    const effective = tasks.registry.has(name) ? `catalogue_${name}` : name;
    names.set(name, effective);
    if (!tasks.registry.has(effective)) tasks.registry.add(engineTaskType(effective));
  }
}
