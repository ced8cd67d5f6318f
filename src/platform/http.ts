// HTTP plumbing shared by every route: request ids, route facts, the JSON body parser, and 405 detection.
import { randomUUID } from 'node:crypto';
import { errorCodes, type FastifyContextConfig, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { ExistenceCheck } from './existence.js';
import type { Access } from './auth/principal.js';
import FindMyWay from 'find-my-way';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readRouteIndex } from './catalogue/routes.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:\-]{1,128}$/;

/** Echo a well-formed `X-Request-Id`, otherwise make one. */
export function requestIdFor(raw: IncomingMessage): string {
  const given = raw.headers['x-request-id'];
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * What the per-request hooks (auth, faults, journal, metrics) need to know about the matched route,
 * worked out once when the route is added. Fastify's `request.routeOptions` builds a fresh object on
 * every access, which the hooks would otherwise pay for several times per request.
 */
export interface RouteFacts {
  /** The route's operationId; undefined for unnamed routes and when no route matched. */
  operationId: string | undefined;
  /** Label for metrics: the operationId, `unnamed`, or `unknown` when no route matched. */
  metricName: string;
  /** Configured access (`config.access`); undefined means "by method". */
  access: Access | undefined;
  onBehalf: boolean;
  /** A path of the /_edgeplane control API. */
  control: boolean;
  /** A path the request journal leaves out (its own routes: reading the journal must not fill it). */
  unjournaled: boolean;
  /** A route serving the server's own files (the web console): not an API call, never journaled or faulted. */
  serverFiles: boolean;
  /** The 4xx and 5xx statuses the reference declares for this operation (undefined: not a reference operation). */
  declaredErrors: readonly number[] | undefined;
  /** No operation matched (the answer is a 404 or 405): no credentials asked, no fault applied. */
  unmatched: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Facts about the matched route (set by the first onRequest hook). */
    facts: RouteFacts;
    /**
     * A request the server made to itself (the catalogue engine asking whether a parent record exists):
     * authenticated as its caller, but left out of the journal, faults, metrics and rate limits.
     */
    internal: boolean;
  }
  interface FastifyContextConfig {
    facts?: RouteFacts;
    /**
     * For a route that answers several operations (the catalogue engine's wildcard): the facts of the
     * operation a request reaches, or undefined when it reaches none.
     */
    factsOf?: (request: FastifyRequest) => RouteFacts | undefined;
    /** The route serves the server's own files (see RouteFacts.serverFiles). */
    serverFiles?: boolean;
  }
}

const CONTROL_PATH = /^\/_edgeplane(\/|$)/;
const JOURNAL_PATH = /^\/_edgeplane\/journal(\/|$)/;

export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/** The options of the server's router, shared by the routers that must match paths as it does. */
export const ROUTER_OPTIONS = { ignoreTrailingSlash: true, maxParamLength: 500 } as const;

export function factsFor(
  url: string,
  operationId: string | undefined,
  config: FastifyContextConfig | undefined,
  declaredErrors?: readonly number[],
): RouteFacts {
  return {
    operationId,
    metricName: operationId ?? 'unnamed',
    access: config?.access,
    onBehalf: config?.onBehalf === true,
    control: CONTROL_PATH.test(url),
    unjournaled: JOURNAL_PATH.test(url) || config?.serverFiles === true,
    serverFiles: config?.serverFiles === true,
    declaredErrors,
    unmatched: false,
  };
}

/** Facts for a request no route matched (404 and 405 answers), from its own path. */
function unmatchedFacts(request: FastifyRequest): RouteFacts {
  return { ...factsFor(pathOf(request.url), undefined, undefined), metricName: 'unknown', unmatched: true };
}

/** Every reference operation's declared error statuses, by operationKey. */
function declaredErrorStatuses(): Map<string, readonly number[]> {
  return new Map(readRouteIndex().map((entry) => [operationKey(entry.method, entry.path), entry.errorStatuses]));
}

const INTERNAL_HEADER = 'x-edgeplane-internal';

/** How the server marks a request it makes to itself (`app.inject`): a header with a per-process secret. */
export interface InternalRequests {
  headers(authorization: string | undefined): Record<string, string>;
}

/**
 * Sets `request.facts` and echoes the request id; install before the other request hooks and before
 * any route is registered.
 */
export function registerRequestContext(app: FastifyInstance): InternalRequests {
  const secret = randomUUID();
  app.decorateRequest('facts', null as unknown as RouteFacts);
  app.decorateRequest('internal', false);
  const declared = declaredErrorStatuses();
  app.addHook('onRoute', (route) => {
    if (route.config?.factsOf) return;
    const operationId = (route.schema as { operationId?: string } | undefined)?.operationId;
    // OPTIONS is answered only as a CORS preflight (which browsers send without credentials) or as a
    // 404/405: it never needs a token.
    const config = route.method === 'OPTIONS' ? { ...route.config, access: 'public' as const } : route.config;
    const method = Array.isArray(route.method) ? route.method[0] : route.method;
    route.config = { ...route.config, facts: factsFor(route.url, operationId, config, declared.get(operationKey(method, route.url))) };
  });
  // Callback style: hooks that run on every request should not allocate a promise each time.
  app.addHook('onRequest', (request, reply, done) => {
    const config = request.is404 ? undefined : request.routeOptions.config;
    request.facts = config?.facts ?? config?.factsOf?.(request) ?? unmatchedFacts(request);
    if (request.headers[INTERNAL_HEADER] !== undefined) request.internal = request.headers[INTERNAL_HEADER] === secret;
    reply.header('x-request-id', request.id);
    done();
  });
  return {
    headers: (authorization) => ({ [INTERNAL_HEADER]: secret, ...(authorization ? { authorization } : {}) }),
  };
}

/** Set on a HEAD request answered as its GET (see answerHeadAsGet): the journal, metrics and error answers say HEAD. */
const HEAD = Symbol('edgeplane.head');

/** The method the client sent: HEAD for a request answered as its GET. */
export function sentMethod(request: FastifyRequest): string {
  return (request.raw as IncomingMessage & { [HEAD]?: true })[HEAD] ? 'HEAD' : request.method;
}

/**
 * HEAD is answered by the GET route of the same path, for every route, without a HEAD route per GET:
 * Fastify's own (`exposeHeadRoutes`) doubled the GET routes the router and Fastify prepare at start-up,
 * about 200 ms of a 1.1 s start on a 2-core machine (bench/README.md). The request reaches Fastify as a
 * GET; Node's response already knows it answers a HEAD (it decided when it was made) and sends the
 * headers, Content-Length included, without the body, as HTTP asks. In-process requests (`inject`)
 * have no socket to do that for them: they keep Fastify's answer to HEAD (404 or 405).
 */
export function answerHeadAsGet(app: FastifyInstance): void {
  const server = app.server;
  const handlers = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  if (handlers.length !== 1) throw new Error(`answerHeadAsGet: the server has ${handlers.length} request handlers, expected Fastify's one`);
  const [fastify] = handlers;
  server.removeListener('request', fastify);
  server.on('request', (req: IncomingMessage & { [HEAD]?: true }, res: ServerResponse) => {
    if (req.method === 'HEAD') {
      req.method = 'GET';
      req[HEAD] = true;
    }
    fastify(req, res);
  });
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const METHODS: Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export interface OperationEntry {
  method: string;
  path: string;
  operationId: string;
}

/** `/cdn/resources/:id` and `/cdn/resources/{resource_id}` are the same operation: parameter names differ. */
export function operationKey(method: string, path: string): string {
  const normal = path
    .replace(/\{[^}]+\}/g, '{}')
    .replace(/:[A-Za-z0-9_]+/g, '{}')
    .replace(/\/+$/, '');
  return `${method.toUpperCase()} ${normal}`;
}

export interface RouteCatalogue {
  /** Methods the request's path answers to (for 405 and `Allow`). */
  allowedMethods(request: FastifyRequest): string[];
  /** Whether a route is registered for this method and path pattern (`{param}` or `:param`, any names). */
  serves(method: string, path: string): boolean;
  /** Every named operation, sorted by path then method. */
  operations(): OperationEntry[];
  /** Records an operation a route answers through a router of its own (the catalogue engine's wildcard). */
  adopt(method: string, url: string, operationId: string): void;
  /**
   * Fastify's refusal of a request target, as an error for the error handler: a parameter of some route
   * over the length limit (Fastify's router refuses it only when no other route, a wildcard, matches).
   */
  refusalOf(method: string, url: string): Error | undefined;
  /** The routes registered and operations adopted so far (Fastify's form, `:param`), one per method and pattern. */
  registered(): readonly { method: string; url: string }[];
  /** The existence check of the GET route of this path pattern (`config.exists`), with the access the route needs. */
  existenceCheck(path: string): RegisteredExistenceCheck | undefined;
}

export interface RegisteredExistenceCheck {
  check: ExistenceCheck;
  access: Access;
  onBehalf: boolean;
}

// Fastify's router refuses a path it cannot decode (%ZZ) or a parameter over its length limit with an
// error for the error handler (see frameworkErrors in limits.ts). The catalogue's router is given these
// for the same cases: its answer for such a path is a handler that, called, gives back the error.
const REFUSALS = {
  onBadUrl: (path: string) => new errorCodes.FST_ERR_BAD_URL(path),
  onMaxParamLength: (path: string) => new errorCodes.FST_ERR_MAX_PARAM_LENGTH(path),
};
/** What each route of the catalogue's router stores: anything but null, which marks a refusal. */
const ROUTE = Object.freeze({});

/** Records every route as it is added; install before any route is registered. */
export function trackRoutes(app: FastifyInstance): RouteCatalogue {
  const routes: Array<{ method: Method; url: string }> = [];
  const operations: OperationEntry[] = [];
  const keys = new Set<string>();
  const existenceChecks = new Map<string, RegisteredExistenceCheck>();
  const record = (method: Method, url: string, operationId: string | undefined) => {
    const key = operationKey(method, url);
    if (!keys.has(key)) routes.push({ method, url });
    keys.add(key);
    if (operationId) operations.push({ method, path: url, operationId });
  };
  app.addHook('onRoute', (route) => {
    // A route with a router of its own records the operations it answers (adopt), not its pattern.
    if (route.config?.factsOf) return;
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m): m is Method => METHODS.includes(m as Method));
    const operationId = (route.schema as { operationId?: string } | undefined)?.operationId;
    for (const method of methods) record(method, route.url, operationId);
    const check = route.config?.exists;
    if (check && methods.includes('GET')) {
      existenceChecks.set(operationKey('GET', route.url), { check, access: route.config?.access ?? 'read', onBehalf: route.config?.onBehalf === true });
    }
  });
  // Built on the first request that asks which methods a path has (a 404 or 405), not at start: a second
  // router over every route took about 190 ms of each start-up (find-my-way compiles each static node),
  // and still takes 30 ms. The options are those of Fastify's own, so paths match the same way.
  let router: ReturnType<typeof FindMyWay<never>> | undefined;
  const routerOf = () => {
    if (router) return router;
    router = FindMyWay<never>({ ...ROUTER_OPTIONS, ...(REFUSALS as object) });
    // `routes` holds one route per method and pattern (parameter names aside): none is added twice.
    for (const { method, url } of routes) router.on(method, url, () => {}, ROUTE as never);
    return router;
  };
  return {
    allowedMethods(request) {
      const path = request.url.split('?')[0];
      const methods = routerOf();
      return METHODS.filter((method) => methods.find(method, path)?.store);
    },
    serves: (method, path) => keys.has(operationKey(method, path)),
    operations: () => [...operations].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method)),
    adopt: (method, url, operationId) => {
      if (METHODS.includes(method as Method)) record(method as Method, url, operationId);
    },
    refusalOf(method, url) {
      const found = routerOf().find(method as Method, url);
      return found && !found.store ? (found.handler as unknown as () => Error)() : undefined;
    },
    registered: () => routes,
    existenceCheck: (path) => existenceChecks.get(operationKey('GET', path)),
  };
}
