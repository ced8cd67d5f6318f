// CORS, so a browser tool served from another origin (a front-end on localhost:3000, an API explorer)
// can call the API. By default only local origins are allowed: a page on the open web must not be able
// to drive a developer's server from the developer's own browser.
//
// The headers are those @fastify/cors sent with the same settings (it was used here before), written by
// one hook: the plugin's hook cost every request, with or without an Origin header, two builds of
// Fastify's routeOptions, a copy of its options and a parse of the Vary header, about 2 us in all
// (measured in-process, paired runs), for the one request in many that comes from a browser page.
import type { FastifyInstance } from 'fastify';

const LOCAL_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i;

// Browser code may read these from an answer (X-Request-Id to quote in a bug, Retry-After of a 429/503,
// the Deprecation of CDN ruleType 1, Allow of a 405).
const EXPOSED_HEADERS = ['x-request-id', 'retry-after', 'deprecation', 'allow', 'location'];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
// How long a browser may reuse a preflight answer.
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * Which origins `--cors` allows: `local`, `*`, `off`, or a comma-separated mix of `local` and exact origins.
 * Undefined means CORS is off. The setting's syntax is checked by the config schema.
 */
export function corsOriginCheck(setting: string): ((origin: string) => boolean) | undefined {
  const items = setting
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '' && item !== 'off');
  if (items.length === 0) return undefined;
  if (items.includes('*')) return () => true;
  const exact = new Set(items.filter((item) => item !== 'local').map((origin) => origin.toLowerCase()));
  const local = items.includes('local');
  return (origin) => exact.has(origin.toLowerCase()) || (local && LOCAL_ORIGIN.test(origin));
}

const EXPOSED = EXPOSED_HEADERS.join(', ');
const ALLOWED_METHODS = METHODS.join(', ');
const MAX_AGE = String(PREFLIGHT_MAX_AGE_SECONDS);

/**
 * Answers an allowed origin with itself; a request without Origin, or from another origin, gets no CORS
 * headers and no preflight handling (an OPTIONS request then gets the usual 404 or 405). An OPTIONS
 * request from an allowed origin is a preflight, with or without Access-Control-Request-Method. Every
 * answer varies by Origin (caches must not give one origin's answer to another).
 */
export function registerCors(app: FastifyInstance, setting: string): void {
  const allowed = corsOriginCheck(setting);
  if (!allowed) return;
  // Before authentication (the first onRequest hooks): a preflight carries no credentials.
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    if (origin === undefined || !allowed(origin)) {
      reply.header('vary', 'Origin');
      return done();
    }
    reply.header('access-control-allow-origin', origin);
    reply.header('access-control-expose-headers', EXPOSED);
    if (request.method !== 'OPTIONS') {
      reply.header('vary', 'Origin');
      return done();
    }
    reply.header('vary', 'Origin, Access-Control-Request-Headers');
    reply.header('access-control-allow-methods', ALLOWED_METHODS);
    const requested = request.headers['access-control-request-headers'];
    if (requested !== undefined) reply.header('access-control-allow-headers', requested);
    reply.header('access-control-max-age', MAX_AGE);
    // Safari waits for a body on a 204 without a length.
    reply.code(204).header('content-length', '0').send();
  });
}
