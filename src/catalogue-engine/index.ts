// The catalogue engine: serves every operation of the reference catalogue that no modelled product
// serves, with the same platform as everything else (auth and roles, tenancy, the product's error
// envelope, journal, faults, metrics, the clock, state export/import/reset, both databases). It is
// registered last: an operation a modelled product registered is left to it, with no list to keep.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerOf } from '../platform/auth/caller.js';
import { principalOf } from '../platform/auth/plugin.js';
import { readCatalogue } from '../platform/catalogue/index.js';
import { existenceBy, type ExistenceCheck } from '../platform/existence.js';
import { plainEnvelope } from '../platform/envelopes.js';
import type { DispatchedOperation } from '../platform/openapi.js';
import { type InternalRequests, operationKey, type RouteCatalogue } from '../platform/http.js';
import { type Access, isAllowed, OPERATOR, type Principal } from '../platform/auth/principal.js';
import type { PlatformDeps, Product } from '../platform/product.js';
import type { SchemaCode } from '../platform/schema-code.js';
import type { TaskEngine } from '../platform/tasks/engine.js';
import type { FieldError } from '../platform/errors.js';
import { moduleWorker, WorkerPool } from '../platform/workers.js';
import { BODY_CHECK_MS } from '../platform/validation.js';
import { ENGINE_SURFACES } from './envelopes.js';
import { Inference } from './infer.js';
import { readRouteIndex, type RouteEntry } from '../platform/catalogue/routes.js';
import { accessOf, ENGINE_TAG, engineOperationId, engineRoutes, type EngineRequest } from './routes.js';
import { CatalogueService } from './service.js';
import { engineTaskType } from './tasks.js';
import { RequestValidator } from './validate.js';
import { fillPath, isParam, paramName, segmentsOf } from './words.js';

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
  /** Whether the catalogue has been read and the tables made (by a first request, or the warm-up). */
  loaded(): boolean;
}

/** How a parent's existence is answered in process: what its read needs of the caller, and the check. */
interface InProcessCheck {
  access: Access;
  onBehalf: boolean;
  check(request: FastifyRequest, principal: Principal, ids: readonly string[]): ReturnType<ExistenceCheck>;
}

/** The parts of a request an engine operation reads. */
interface RequestParts {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  contentType: string | undefined;
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
  /** The GET operations the engine serves, by operationKey: parents it answers itself. */
  const servedGets = new Map<string, RouteEntry>();
  const taskNames = new Map<string, string>();
  // The engine's thread (thread.ts): bodies of many items are checked there, reports generated. Started by
  // the first call; a call past its time (a body check's, see BODY_CHECK_MS) is done on the main thread.
  let thread: WorkerPool | undefined;
  const inThread = <R>(message: Record<string, unknown>) => {
    thread ??= new WorkerPool(() => moduleWorker(import.meta.url, './thread.ts', 'engine-worker.cjs', null), 1);
    return thread.call<R>(message, { timeoutMs: BODY_CHECK_MS });
  };
  // The build's collector only gathers schemas: it checks no body and makes no report.
  const threaded = !deps.schemaCode?.collects;
  // The catalogue (1.4 MB) is read, and its plans made, by the first request an engine route answers.
  let runtime: Runtime | undefined;
  const load = (): Runtime => {
    if (runtime) return runtime;
    const catalogue = readCatalogue();
    const inference = new Inference(catalogue);
    const validator = new RequestValidator(catalogue, deps.schemaCode, threaded ? (check) => inThread<FieldError[]>({ check }) : undefined);
    const service = new CatalogueService(
      deps.db,
      deps.clock,
      inference,
      deps.tasks,
      (plan) => validator.codeFor(plan.op),
      (name) => taskNames.get(name) ?? name,
      threaded ? (report) => inThread<unknown>({ report }) : undefined,
    );
    runtime = { inference, validator, service };
    return runtime;
  };

  const handle = (entry: RouteEntry, request: EngineRequest) =>
    answer(entry, request, { params: request.params, query: request.query, body: request.body, contentType: request.headers['content-type'] });

  /** The answer to `entry` with these parts of a request, asked by `request`'s caller. */
  const answer = async (entry: RouteEntry, request: FastifyRequest, parts: RequestParts) => {
    const { inference, validator, service } = load();
    const plan = inference.plan(inference.operation(entry.method, entry.path));
    // Copies, typed as validation leaves them: it coerces their text in place (numbers, booleans, lists).
    const params: Record<string, unknown> = { ...parts.params };
    const query: Record<string, unknown> = { ...parts.query };
    await validator.check(plan.op, { params, query, body: parts.body, contentType: parts.contentType });
    // Public operations answer without a token: an anonymous caller owns nothing.
    const principal = request.principal ?? (entry.public ? ANONYMOUS : principalOf(request));
    return service.handle({
      plan,
      caller: callerOf(request, principal),
      params,
      query,
      body: parts.body,
      exists: (template, ids) => exists(request, template, ids),
      adopt: (template, path) => adopt(request, template, path),
    });
  };

  let app: FastifyInstance | undefined;
  /**
   * Whether the record at `template` with `ids` exists for the caller, whoever serves it: answered in
   * process where it can be (existsInProcess: most engine operations name a project and a region),
   * otherwise by the route, asked by a request the server makes to itself as the caller. Either way a
   * role that may change but not read (purge-only) cannot ask: the operation's own rules then decide.
   */
  const exists = async (request: FastifyRequest, template: string, ids: readonly string[]): Promise<boolean> => {
    const principal = request.principal;
    const known = principal ? await existsInProcess(request, principal, template, ids) : undefined;
    if (known !== undefined) return known;
    const asked = await app!.inject({ method: 'GET', url: fillPath(template, ids), headers: deps.internal.headers(request.headers.authorization) });
    return asked.statusCode < 300 || asked.statusCode === 403;
  };

  /** `exists` without a request, when the parent's pattern has an in-process check; undefined otherwise. */
  const existsInProcess = async (request: FastifyRequest, principal: Principal, template: string, ids: readonly string[]) => {
    const found = inProcessCheckOf(template);
    if (!found) return undefined;
    if (!isAllowed(principal, found.access, found.onBehalf)) return true;
    return found.check(request, principal, ids);
  };

  // Found once per parent pattern (a few dozen, all from the catalogue's plans), not at every request.
  const inProcessChecks = new Map<string, InProcessCheck | null>();
  const inProcessCheckOf = (template: string): InProcessCheck | undefined => {
    let found = inProcessChecks.get(template);
    if (found === undefined) inProcessChecks.set(template, (found = findInProcessCheck(template) ?? null));
    return found ?? undefined;
  };

  /**
   * The engine's own GET operation, answered here (the record the pattern names, not whatever route its
   * filled path would reach), or the modelled GET route's own check (`config.exists`).
   */
  const findInProcessCheck = (template: string): InProcessCheck | undefined => {
    const own = servedGets.get(operationKey('GET', template));
    if (own) {
      const names = segmentsOf(own.path).filter(isParam).map(paramName);
      return {
        access: accessOf(own),
        onBehalf: false,
        check: (request, _principal, ids) => {
          const params = Object.fromEntries(names.map((name, i) => [name, ids[i] ?? '']));
          return existenceBy(() => answer(own, request, { params, query: {}, body: undefined, contentType: undefined }));
        },
      };
    }
    const direct = deps.routes.existenceCheck(template);
    if (!direct) return undefined;
    return { ...direct, check: (request, principal, ids) => direct.check({ principal, caller: callerOf(request, principal) }, ids) };
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
    loaded: () => runtime !== undefined,
    // The first engine request of a process read the catalogue and made the tables: 10-15 ms on a 2-core VM.
    warmUp: [
      {
        name: 'the reference catalogue',
        run: () => {
          if (served.length > 0) readCatalogue();
        },
      },
      {
        name: "the catalogue engine's tables",
        run: () => {
          if (served.length > 0) load();
        },
      },
      {
        name: "the catalogue engine's indexes over every operation",
        run: () => {
          if (served.length > 0) load().inference.prepareIndexes();
        },
      },
    ],
    async register(instance) {
      app = instance;
      instance.addHook('onClose', async () => thread?.close());
      // Everything registered before this point is a modelled product: it keeps its operations.
      // Operations one route answers (three PATCHes of /cdn/resources/{...}): the last, most general, serves.
      const byRoute = new Map<string, RouteEntry>();
      const unserved = readRouteIndex().filter((entry) => !deps.routes.serves(entry.method, entry.path));
      for (const entry of unserved) byRoute.set(`${entry.method} ${entry.path.replace(/\{[^}]+\}/g, '{}')}`, entry);
      served = [...byRoute.values()];
      documented = unserved.map((e) => ({ method: e.method, path: e.path, operationId: engineOperationId(e), tag: ENGINE_TAG }));
      for (const entry of served) servedKeys.add(operationKey(entry.method, entry.path));
      for (const entry of served) if (entry.method === 'GET') servedGets.set(operationKey('GET', entry.path), entry);
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
