// The catalogue engine's routes: one Fastify route, a wildcard tried after every route of the modelled
// products, that finds the served operation with a path matcher of its own (platform/path-matcher.ts).
// Routes are thin: they hand the request's parts to the engine and send what it answers.
//
// Why not one Fastify route per operation: Fastify prepares each route at start-up (its context, an avvio
// step, a ready listener, every hook bound again); for the engine's 650-odd operations that was about
// 150 ms of a 0.5 s start-up on a 2-core machine, and their memory for the process's life.
//
// The wildcard is reached only when no other route matches, so an operation that some request could
// reach both through it and through a modelled route (`GET .../instances/{p}/{r}/available_names`
// against the modelled `.../instances/:p/:r/:instance_id`) keeps a Fastify route of its own, where the
// router's precedence (static segments first) decides between them as it always did. See splitByOverlap.
import { parse as parseQueryString } from 'node:querystring';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Access } from '../platform/auth/principal.js';
import { fastifyPath, type RouteEntry } from '../platform/catalogue/routes.js';
import { factsFor, ROUTER_OPTIONS, type RouteCatalogue, type RouteFacts } from '../platform/http.js';
import { type PathMatch, PathMatcher, PatternTree } from '../platform/path-matcher.js';

export const ENGINE_TAG = 'Catalogue engine';

/** The operation id engine routes carry in logs, metrics, the journal, faults and /openapi.json. */
export const engineOperationId = (entry: RouteEntry) => `catalogue.${entry.operationId}`;

/**
 * The parts of an engine route's request: the path parameters of the operation the engine's router
 * found, and the query as Fastify parsed it (the engine validates both against the catalogue).
 */
export interface EngineParts {
  Params: Record<string, string>;
  Querystring: Record<string, unknown>;
}
export type EngineRequest = FastifyRequest<EngineParts>;

export type EngineHandler = (entry: RouteEntry, request: EngineRequest) => Promise<{ status: number; body?: unknown }>;

// Purge and prefetch have a role of their own (the "Purge and Prefetch only" groups).
const PURGE = /\/(purge|prefetch)$/;

/** What an engine operation needs of its caller (see Access). */
export function accessOf(entry: RouteEntry): Access {
  if (entry.public) return 'public';
  if (entry.method === 'GET') return 'read';
  return PURGE.test(entry.path) ? 'purge' : 'write';
}

/** A served operation as the engine's matcher keeps it: the entry and its facts for the request hooks. */
interface Served {
  entry: RouteEntry;
  facts: RouteFacts;
}

type Answer = PathMatch<Served> | { refusal: Error } | null;

/**
 * The operation a request reaches, for the handler. The facts hook matches the request too: a match
 * costs about a microsecond, less than remembering it per request (a WeakMap keyed by requests is work
 * for every collection of the young generation).
 * A request no operation matches may still be one Fastify's router refuses (a parameter of a modelled
 * route over the length limit, which lets the router fall through to the wildcard): that 400 is kept.
 */
function dispatcher(matcher: PathMatcher<Served>, routes: RouteCatalogue) {
  return (request: FastifyRequest): Answer => {
    const match = matcher.match(request.method, request.url);
    if (match) return match;
    const refusal = routes.refusalOf(request.method, request.url);
    return refusal ? { refusal } : null;
  };
}

/** One tree per method. */
function treesOf(routes: readonly { method: string; url: string }[]): Map<string, PatternTree> {
  const trees = new Map<string, PatternTree>();
  for (const { method, url } of routes) {
    const tree = trees.get(method) ?? new PatternTree();
    tree.add(url);
    trees.set(method, tree);
  }
  return trees;
}

/**
 * Which operations need a Fastify route of their own: those some request could reach through a route
 * registered before them, and (until nothing changes) those that overlap an operation so moved, so that
 * any request matching one of them finds every route it matches in Fastify's router. The rest go through
 * the wildcard: a request matching one of them matches no Fastify route.
 */
export function splitByOverlap(entries: RouteEntry[], registered: readonly { method: string; url: string }[]) {
  const routed: RouteEntry[] = [];
  let dispatched = entries;
  let against = treesOf(registered);
  for (;;) {
    const moved = dispatched.filter((entry) => against.get(entry.method)?.overlaps(entry.path));
    if (moved.length === 0) break;
    routed.push(...moved);
    dispatched = dispatched.filter((entry) => !moved.includes(entry));
    against = treesOf(moved.map((entry) => ({ method: entry.method, url: entry.path })));
  }
  return { routed, dispatched };
}

/**
 * Registers the wildcard inside its own scope, which also parses the non-JSON bodies a few operations
 * take (form-encoded, multipart uploads, raw binaries) without changing what the modelled routes accept;
 * and tells the route catalogue which operations it serves (405 answers, /_edgeplane/info).
 */
export async function engineRoutes(app: FastifyInstance, routes: RouteCatalogue, entries: RouteEntry[], handle: EngineHandler): Promise<void> {
  const { routed, dispatched } = splitByOverlap(entries, routes.registered());
  const matcher = new PathMatcher<Served>(ROUTER_OPTIONS.maxParamLength);
  for (const entry of dispatched) {
    const url = fastifyPath(entry.path);
    matcher.add(entry.method, url, { entry, facts: factsFor(url, engineOperationId(entry), { access: accessOf(entry) }, entry.errorStatuses) });
    routes.adopt(entry.method, url, engineOperationId(entry));
  }
  const dispatch = dispatcher(matcher, routes);
  const send = async (entry: RouteEntry, request: EngineRequest, reply: FastifyReply) => {
    const answer = await handle(entry, request);
    reply.code(answer.status);
    if (answer.body === undefined) return reply.send();
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(answer.body));
  };
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      done(null, { ...parseQueryString(body as string) });
    });
    scope.addContentTypeParser(['multipart/form-data', 'application/octet-stream'], { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    for (const entry of routed) {
      scope.route<EngineParts>({
        method: entry.method as 'GET',
        url: fastifyPath(entry.path),
        config: { access: accessOf(entry) },
        schema: { operationId: engineOperationId(entry), tags: [ENGINE_TAG] },
        handler: (request, reply) => send(entry, request, reply),
      });
    }
    if (dispatched.length === 0) return;
    scope.route<EngineParts>({
      method: [...new Set(dispatched.map((entry) => entry.method))] as 'GET'[],
      url: '/*',
      // What /openapi.json lists are the operations, added by the engine (see registerOpenApi).
      schema: { hide: true },
      // A request no served operation matches gets the facts of an unmatched request: no credentials
      // asked, no fault applied, and the server's 404 or 405 below.
      config: {
        factsOf: (request) => matcher.match(request.method, request.url)?.value.facts,
      },
      handler: async (request, reply) => {
        const answer = dispatch(request);
        if (answer === null) return reply.callNotFound();
        if ('refusal' in answer) throw answer.refusal;
        request.params = answer.params;
        return send(answer.value.entry, request, reply);
      },
    });
  });
}
