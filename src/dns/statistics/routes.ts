// HTTP surface of zone statistics.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/plugin.js';
import { ERRORS, VALIDATED } from '../common/http.js';
import { ZoneParams } from '../zones/schemas.js';
import type { StatisticsService } from './service.js';
import { typed } from '../../platform/typed.js';

/** 9999-12-31T23:59:59Z: periods end before the year 10000. */
const LAST_SECOND = 253_402_300_799;

const Query = Type.Object({
  from: Type.Optional(Type.Integer({ minimum: 0, maximum: LAST_SECOND, description: 'Start of the period, Unix seconds (default: a day before `to`)' })),
  to: Type.Optional(Type.Integer({ minimum: 0, maximum: LAST_SECOND, description: 'End of the period, Unix seconds (default: now)' })),
  record_type: Type.Optional(Type.String({ maxLength: 16, description: 'Only queries of this type (A, AAAA, MX, ...)' })),
  granularity: Type.Optional(Type.String({ maxLength: 32, description: 'Slot length as a duration, whole minutes (5m, 1h, 1h30m); default 1h' })),
});

const Result = Type.Object({
  requests: Type.Record(Type.String(), Type.Integer(), { description: 'Queries per slot, keyed by the slot start in Unix milliseconds' }),
  total: Type.Integer(),
});

export function statisticsRoutes(fastify: FastifyInstance, statistics: StatisticsService): void {
  const app = typed(fastify);
  app.get(
    '/dns/v2/zones/:name/statistics',
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.zones.statistics',
        tags: ['DNS zones'],
        summary: "Queries answered for a zone (name 'all': every zone)",
        params: ZoneParams,
        querystring: Query,
        response: { 200: Result, ...ERRORS },
      },
    },
    async (request) => statistics.zone(principalOf(request), request.params.name, request.query),
  );
}
