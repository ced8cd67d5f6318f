// HTTP surface of health-check monitors (Prometheus text format).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/plugin.js';
import { ERRORS, VALIDATED } from '../common/http.js';
import type { MonitorService } from './service.js';
import { typed } from '../../platform/typed.js';

const Query = Type.Object({
  client_ids: Type.Optional(Type.Array(Type.Integer({ minimum: 0 }), { maxItems: 1000, description: 'Accepted; a client sees its own monitors' })),
  zone_names: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 1000, description: 'Accepted; a client sees its own monitors' })),
});

export function monitoringRoutes(fastify: FastifyInstance, monitors: MonitorService): void {
  const app = typed(fastify);
  app.get(
    '/dns/v2/monitor/metrics',
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.monitor.metrics',
        tags: ['DNS RRsets'],
        summary: 'Health-check monitors, Prometheus text format',
        querystring: Query,
        response: { 200: Type.String(), ...ERRORS },
      },
    },
    async (request, reply) => reply.type('text/plain; version=0.0.4; charset=utf-8').send(await monitors.metrics(principalOf(request))),
  );
}
