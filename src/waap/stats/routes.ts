import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/auth/plugin.js';
import { SimpleStats, StatsParams, StatsQuery, TrafficQuery, TrafficSeries, type StatDimension } from './schemas.js';
import type { StatsService } from './service.js';

export function statsRoutes(app: FastifyInstance, stats: StatsService): void {
  app.get<{ Params: { dimension: StatDimension }; Querystring: Record<string, unknown> }>(
    '/waap/v1/analytics/stats/:dimension',
    {
      schema: {
        operationId: 'waap.analytics.stats',
        tags: ['WAAP'],
        summary: 'Top values of one request dimension, split by decision',
        params: StatsParams,
        querystring: StatsQuery,
        response: { 200: SimpleStats },
      },
    },
    async (request) => stats.simple(principalOf(request).clientId, request.params.dimension, request.query),
  );

  app.get<{ Querystring: Record<string, unknown> & { resolution: 'daily' | 'hourly' | 'minutely'; bucket_size?: number } }>(
    '/waap/v1/analytics/traffic',
    {
      schema: {
        operationId: 'waap.analytics.traffic',
        tags: ['WAAP'],
        summary: 'Traffic counters per time bucket',
        querystring: TrafficQuery,
        response: { 200: TrafficSeries },
      },
    },
    async (request, reply) => {
      // The response schema's JSON (compact, keys in its order), made by the service: all its bytes from
      // a reader thread, or its pieces streamed a time slice at a time as they are made on the main
      // thread (a minute's resolution over 30 days is about 12 MB, which serialised at once held the
      // event loop for a tenth of a second and more).
      const json = await stats.trafficJson(principalOf(request).clientId, request.query);
      const body = Buffer.isBuffer(json) ? json : Readable.from(json, { objectMode: false, highWaterMark: 1 });
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );
}
