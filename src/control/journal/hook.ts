// Records every request in the journal: arrival (server clock) on onRequest, the rest on onResponse,
// which also runs for requests that failed authentication or validation.
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../platform/clock.js';
import type { Journal } from './service.js';
import { sentMethod } from '../../platform/http.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Server-clock arrival time, for the journal. */
    journalArrival: number;
    /** The response body as sent, when the journal keeps bodies. */
    journalResponseBody: unknown;
  }
}

/** Sent by the web console on its periodic refreshes: a person watching a page is not traffic to journal. */
export const CONSOLE_REFRESH_HEADER = 'x-edgeplane-console';

export function registerJournalHook(app: FastifyInstance, journal: Journal, clock: Clock): void {
  if (!journal.enabled) return;
  // Callback-style hooks and request slots declared up front: this runs on every request, so no promise
  // per hook, no side map, and no formatting here (the journal renders entries when they are read).
  app.decorateRequest('journalArrival', 0);
  app.decorateRequest('journalResponseBody', undefined);
  app.addHook('onRequest', (request, _reply, done) => {
    request.journalArrival = clock.now();
    done();
  });
  if (journal.options.bodies) {
    app.addHook('onSend', (request, _reply, payload, done) => {
      // Streams (downloads) are not kept: only bodies already in memory as text.
      if (typeof payload === 'string' || Buffer.isBuffer(payload)) request.journalResponseBody = payload;
      done(null, payload);
    });
  }
  app.addHook('onResponse', (request, reply, done) => {
    if (request.facts.unjournaled || request.internal || request.headers[CONSOLE_REFRESH_HEADER] === 'poll') return done();
    const principal = request.principal;
    journal.record({
      timeMs: request.journalArrival,
      requestId: request.id as string,
      clientId: principal && principal.kind !== 'operator' ? principal.clientId : null,
      operationId: request.facts.operationId ?? null,
      method: sentMethod(request),
      url: request.url,
      rawHeaders: request.raw.rawHeaders,
      status: reply.statusCode,
      elapsedMs: reply.elapsedTime,
      requestBody: request.body,
      responseBody: request.journalResponseBody,
    });
    done();
  });
}
