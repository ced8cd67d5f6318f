// One Fastify route per catalogue operation the engine serves, registered from the compact route index.
// Routes are thin: they hand the request's parts to the engine and send what it answers.
import { parse as parseQueryString } from 'node:querystring';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Access } from '../platform/auth/principal.js';
import type { RouteEntry } from '../platform/catalogue/routes.js';

export const ENGINE_TAG = 'Catalogue engine';

/** The operation id engine routes carry in logs, metrics, the journal, faults and /openapi.json. */
export const engineOperationId = (entry: RouteEntry) => `catalogue.${entry.operationId}`;

/**
 * The parts of an engine route's request as Fastify makes them: the routes declare no schema (the engine
 * validates against the catalogue), so their types are the router's path parameters and the parsed query.
 */
export interface EngineParts {
  Params: Record<string, string>;
  Querystring: Record<string, unknown>;
}
export type EngineRequest = FastifyRequest<EngineParts>;

export type EngineHandler = (entry: RouteEntry, request: EngineRequest) => Promise<{ status: number; body?: unknown }>;

/** The Fastify form of a reference path: `{param}` becomes `:param`. */
export const fastifyPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

// Purge and prefetch have a role of their own (the "Purge and Prefetch only" groups).
const PURGE = /\/(purge|prefetch)$/;

function accessOf(entry: RouteEntry): Access {
  if (entry.public) return 'public';
  if (entry.method === 'GET') return 'read';
  return PURGE.test(entry.path) ? 'purge' : 'write';
}

/**
 * Registers the routes inside their own scope, which also parses the non-JSON bodies a few operations
 * take (form-encoded, multipart uploads, raw binaries) without changing what the modelled routes accept.
 */
export async function engineRoutes(app: FastifyInstance, entries: RouteEntry[], handle: EngineHandler): Promise<void> {
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      done(null, { ...parseQueryString(body as string) });
    });
    scope.addContentTypeParser(['multipart/form-data', 'application/octet-stream'], { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    for (const entry of entries) {
      scope.route<EngineParts>({
        method: entry.method as 'GET',
        url: fastifyPath(entry.path),
        config: { access: accessOf(entry) },
        schema: { operationId: engineOperationId(entry), tags: [ENGINE_TAG] },
        handler: async (request, reply) => {
          const answer = await handle(entry, request);
          reply.code(answer.status);
          if (answer.body === undefined) return reply.send();
          return reply.type('application/json; charset=utf-8').send(JSON.stringify(answer.body));
        },
      });
    }
  });
}
