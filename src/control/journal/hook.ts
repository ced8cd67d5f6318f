// Records every request in the journal: arrival (server clock) on onRequest, the rest on onResponse,
// which also runs for requests that failed authentication or validation.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../platform/clock.js';
import { scenarioOf } from '../faults/hook.js';
import { Journal, redactHeaders, redactQuery } from './service.js';

const UNRECORDED = /^\/_edgeplane\/journal(\/|$)/;

export function registerJournalHook(app: FastifyInstance, journal: Journal, clock: Clock): void {
  if (!journal.enabled) return;
  const arrivals = new WeakMap<FastifyRequest, { time: number; responseBody?: unknown }>();
  app.addHook('onRequest', async (request) => {
    arrivals.set(request, { time: clock.now() });
  });
  if (journal.options.bodies) {
    app.addHook('onSend', async (request, _reply, payload) => {
      const arrival = arrivals.get(request);
      // Streams (downloads) are not kept: only bodies already in memory as text.
      if (arrival && (typeof payload === 'string' || Buffer.isBuffer(payload))) arrival.responseBody = payload;
      return payload;
    });
  }
  app.addHook('onResponse', async (request, reply) => {
    const [path] = request.url.split('?');
    if (UNRECORDED.test(path)) return;
    const arrival = arrivals.get(request);
    journal.record({
      time: new Date(arrival?.time ?? clock.now()).toISOString(),
      requestId: String(request.id),
      clientId: request.principal && request.principal.kind !== 'operator' ? request.principal.clientId : null,
      operationId: request.is404 ? null : ((request.routeOptions.schema as { operationId?: string } | undefined)?.operationId ?? null),
      method: request.method,
      path,
      query: redactQuery(request.query),
      headers: redactHeaders(request.headers),
      scenario: scenarioOf(request.headers) ?? null,
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 1000) / 1000,
      requestBody: request.body,
      requestSize: Number(request.headers['content-length'] ?? 0),
      responseBody: arrival?.responseBody,
    });
  });
}
