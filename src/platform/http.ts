// HTTP plumbing shared by every route: request ids, the JSON body parser, and 405 detection.
import { randomUUID } from 'node:crypto';
import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify';
import type { Access } from './auth/principal.js';
import FindMyWay from 'find-my-way';
import type { IncomingMessage } from 'node:http';
import { AppError } from './errors.js';

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
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Facts about the matched route (set by the first onRequest hook). */
    facts: RouteFacts;
  }
  interface FastifyContextConfig {
    facts?: RouteFacts;
  }
}

const CONTROL_PATH = /^\/_edgeplane(\/|$)/;
const JOURNAL_PATH = /^\/_edgeplane\/journal(\/|$)/;

export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

function factsFor(url: string, operationId: string | undefined, config: FastifyContextConfig | undefined): RouteFacts {
  return {
    operationId,
    metricName: operationId ?? 'unnamed',
    access: config?.access,
    onBehalf: config?.onBehalf === true,
    control: CONTROL_PATH.test(url),
    unjournaled: JOURNAL_PATH.test(url),
  };
}

/** Facts for a request no route matched (404 and 405 answers), from its own path. */
function unmatchedFacts(request: FastifyRequest): RouteFacts {
  return { ...factsFor(pathOf(request.url), undefined, undefined), metricName: 'unknown' };
}

/**
 * Sets `request.facts` and echoes the request id; install before the other request hooks and before
 * any route is registered.
 */
export function registerRequestContext(app: FastifyInstance): void {
  app.decorateRequest('facts', null as unknown as RouteFacts);
  app.addHook('onRoute', (route) => {
    const operationId = (route.schema as { operationId?: string } | undefined)?.operationId;
    route.config = { ...route.config, facts: factsFor(route.url, operationId, route.config) };
  });
  // Callback style: hooks that run on every request should not allocate a promise each time.
  app.addHook('onRequest', (request, reply, done) => {
    request.facts = (request.is404 ? undefined : request.routeOptions.config.facts) ?? unmatchedFacts(request);
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

