// Abuse limits of the HTTP server: how long a client may take, how big its request line and headers may
// be, and where the router's own refusals (malformed or over-long path segments) are answered. Given to
// Fastify({...}) in app.ts; the values come from the config so operators can change them.
import type { FastifyError, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { Config } from '../config.js';

type Limits = Pick<Config, 'requestTimeout' | 'connectionTimeout' | 'keepAliveTimeout' | 'maxHeaderSize'>;

export function serverLimits(config: Limits): Partial<FastifyServerOptions> {
  return {
    // Receiving the whole request (headers and body) must finish in time: a slowloris client is cut off.
    requestTimeout: config.requestTimeout,
    // An idle socket (nothing sent either way) is destroyed; long analytic answers still write within it.
    connectionTimeout: config.connectionTimeout,
    keepAliveTimeout: config.keepAliveTimeout,
    http: {
      maxHeaderSize: config.maxHeaderSize,
      // Node refuses headersTimeout > requestTimeout; both bound the slow-header attack.
      headersTimeout: config.requestTimeout,
      // How often Node checks the two timeouts above (default 30 s would let a slow client stay 30 s longer).
      connectionsCheckingInterval: Math.min(1000, config.requestTimeout),
    },
    // Without this, Fastify answers a malformed (%ZZ) or over-long path segment itself, in its own body
    // and with 414; passing the error on puts it through the one error handler and the product envelope.
    // The handler is looked up per call: it is installed after the server options are read.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => request.server.errorHandler(error, request, reply),
  } as Partial<FastifyServerOptions>;
}
