// Records every request in the journal: arrival (server clock) on onRequest, the rest on onResponse,
// which also runs for requests that failed authentication or validation.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../platform/clock.js';
import { scenarioOf } from '../faults/hook.js';
import type { Journal } from './service.js';

const UNRECORDED = /^\/_edgeplane\/journal(\/|$)/;

export function registerJournalHook(app: FastifyInstance, journal: Journal, clock: Clock): void {
  if (!journal.enabled) return;
  // Callback-style hooks and a plain map keyed by request: this runs on every request, so no promise
  // per hook and no formatting here (the journal renders entries when they are read).
  const arrivals = new WeakMap<FastifyRequest, { time: number; responseBody?: unknown }>();
  app.addHook('onRequest', (request, _reply, done) => {
    arrivals.set(request, { time: clock.now() });
    done();
  });
  if (journal.options.bodies) {
    app.addHook('onSend', async (request, _reply, payload) => {
      const arrival = arrivals.get(request);
      // Streams (downloads) are not kept: only bodies already in memory as text.
      if (arrival && (typeof payload === 'string' || Buffer.isBuffer(payload))) arrival.responseBody = payload;
      return payload;
    });
  }
  app.addHook('onResponse', (request, reply, done) => {
    const query = request.url.indexOf('?');
    const path = query < 0 ? request.url : request.url.slice(0, query);
    if (UNRECORDED.test(path)) return done();
    const arrival = arrivals.get(request);
    journal.record({
      timeMs: arrival?.time ?? clock.now(),
      requestId: String(request.id),
      clientId: request.principal && request.principal.kind !== 'operator' ? request.principal.clientId : null,
      operationId: request.is404 ? null : ((request.routeOptions.schema as { operationId?: string } | undefined)?.operationId ?? null),
      method: request.method,
      path,
      query: request.query,
      headers: request.headers,
      scenario: scenarioOf(request.headers) ?? null,
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 1000) / 1000,
      requestBody: request.body,
      requestSize: Number(request.headers['content-length'] ?? 0),
      responseBody: arrival?.responseBody,
    });
    done();
  });
}
