// The one error handler. Every failure, thrown by a service, raised by validation or by Fastify itself,
// becomes an AppError and is answered in the envelope of the product that owns the URL.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode, fitToDeclared } from './errors.js';
import { type ErrorEnvelope, plainEnvelope } from './envelopes.js';
import { fromFastifyValidation } from './validation.js';
import { sentMethod } from './http.js';

export interface Surface {
  prefix: string;
  envelope: ErrorEnvelope;
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'bad_request',
  FST_ERR_CTP_INVALID_JSON_BODY: 'bad_request',
  FST_ERR_BAD_URL: 'bad_request',
  FST_ERR_ASYNC_CONSTRAINT: 'bad_request',
};

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed',
  429: 'rate_limited',
  503: 'service_unavailable',
};

// Failures of the database itself (down, locked, full) are the client's cue to retry, not a bug.
const UNAVAILABLE =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Connection terminated|connection timeout|SQLITE_BUSY|SQLITE_LOCKED|SQLITE_FULL|SQLITE_IOERR|database is locked|database or disk is full|the database system is (starting|shutting) up|terminating connection|Cannot use a pool after calling end|driver has already been destroyed|database connection is not open|not queryable/i;

// A statement that waited for a lock another session holds until its time ran out: PostgreSQL's SQLSTATE
// past lock_timeout (db/index.ts), SQLite's busy codes past the wait of db/sqlite-busy.ts.
const HELD_ELSEWHERE = /^(55P03$|SQLITE_BUSY)/;

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const fe = error as FastifyError & { validation?: unknown[]; validationContext?: string };
  if (fe && Array.isArray(fe.validation)) return fromFastifyValidation(fe.validation as never, fe.validationContext);
  const mapped = fe?.code ? FASTIFY_CODES[fe.code] : undefined;
  if (mapped) return new AppError(mapped, cleanMessage(fe.message), { cause: error });
  const text = `${fe?.code ?? ''} ${fe?.message ?? ''}`;
  if (typeof fe?.code === 'string' && HELD_ELSEWHERE.test(fe.code)) {
    return new AppError('service_unavailable', 'What this request writes is held by another database session; retry shortly.', {
      headers: { 'retry-after': '1' },
      cause: error,
    });
  }
  if (UNAVAILABLE.test(text)) {
    return new AppError('service_unavailable', 'The database is unavailable; retry shortly.', { headers: { 'retry-after': '1' }, cause: error });
  }
  const status = typeof fe?.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) return new AppError(STATUS_CODES[status] ?? 'bad_request', cleanMessage(fe.message), { cause: error });
  return new AppError('internal', 'An unexpected error occurred.', { cause: error });
}

function cleanMessage(message: string): string {
  return message.replace(/^FST_\w+: /, '');
}

export function registerErrorHandling(app: FastifyInstance, surfaces: Surface[], allowedMethods: (request: FastifyRequest) => string[]): void {
  const ordered = [...surfaces].sort((a, b) => b.prefix.length - a.prefix.length);
  const envelopeFor = (url: string): ErrorEnvelope => {
    const path = url.split('?')[0];
    return ordered.find((s) => path === s.prefix || path.startsWith(`${s.prefix}/`))?.envelope ?? plainEnvelope;
  };

  const send = (request: FastifyRequest, reply: FastifyReply, raised: AppError) => {
    const error = fitToDeclared(raised, request.facts?.declaredErrors);
    // A fault rule's answer is what the test asked for: one info line, not an error with a stack.
    if (error.injected) request.log.info({ url: request.url, method: sentMethod(request), status: error.status }, error.message);
    else if (error.status >= 500 && error.code !== 'service_unavailable') {
      request.log.error({ err: error.cause ?? error, url: request.url, method: sentMethod(request) }, 'request failed');
    }
    const body = envelopeFor(request.url)(error, { requestId: String(request.id) });
    return reply.status(error.status).headers(error.headers).type('application/json; charset=utf-8').send(JSON.stringify(body));
  };

  app.setErrorHandler((error, request, reply) => send(request, reply, toAppError(error)));

  app.setNotFoundHandler((request, reply) => {
    const allowed = allowedMethods(request);
    if (allowed.length > 0) {
      return send(
        request,
        reply,
        new AppError('method_not_allowed', `Method "${sentMethod(request)}" not allowed.`, { headers: { allow: allowed.join(', ') } }),
      );
    }
    return send(request, reply, new AppError('not_found', `No route for ${sentMethod(request)} ${request.url.split('?')[0]}`));
  });
}
