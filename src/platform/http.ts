// HTTP plumbing shared by every route: request ids, the JSON body parser, and 405 detection.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import type { IncomingMessage } from 'node:http';
import { AppError } from './errors.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:\-]{1,128}$/;

/** Echo a well-formed `X-Request-Id`, otherwise make one. */
export function requestIdFor(raw: IncomingMessage): string {
  const given = raw.headers['x-request-id'];
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
}

export function registerRequestId(app: FastifyInstance): void {
  // Callback style: hooks that run on every request should not allocate a promise each time.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
}

/**
 * JSON bodies: official clients send `Content-Type: application/json` on DELETE with no body, so an empty
 * body is "no body", not an error. Prototype-poisoning keys are refused (Fastify's own parser does that).
 */
export function registerJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // Only JSON is accepted by default; a route that takes another type adds its own parser.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    parseJson(request, text, (error: Error | null, value?: unknown) => {
      if (error) return done(new AppError('bad_request', `JSON parse error - ${error.message}`), undefined);
      done(null, value);
    });
  });
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const METHODS: Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export interface OperationEntry {
  method: string;
  path: string;
  operationId: string;
}

export interface RouteCatalogue {
  /** Methods the request's path answers to (for 405 and `Allow`). */
  allowedMethods(request: FastifyRequest): string[];
  /** Every named operation, sorted by path then method. */
  operations(): OperationEntry[];
}

/** Records every route as it is added; install before any route is registered. */
export function trackRoutes(app: FastifyInstance): RouteCatalogue {
  const router = FindMyWay<never>({ ignoreTrailingSlash: true });
  const operations: OperationEntry[] = [];
  app.addHook('onRoute', (route) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m): m is Method => METHODS.includes(m as Method));
    const operationId = (route.schema as { operationId?: string } | undefined)?.operationId;
    for (const method of methods) {
      if (!router.find(method, route.url)) router.on(method, route.url, () => {});
      if (operationId) operations.push({ method, path: route.url, operationId });
    }
  });
  return {
    allowedMethods(request) {
      const path = request.url.split('?')[0];
      return METHODS.filter((method) => router.find(method, path) !== null);
    },
    operations: () => [...operations].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method)),
  };
}

