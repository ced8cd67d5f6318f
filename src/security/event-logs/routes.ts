import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/auth/plugin.js';
import { ErrorBody } from '../../platform/schema.js';
import { EventLogDetailSchema, type EventLogListQuery, EventLogListQuerySchema, EventLogPageSchema, EventLogParamsSchema } from './schemas.js';
import type { EventLogService } from './service.js';

const tags = ['Security'];

export function eventLogRoutes(app: FastifyInstance, service: EventLogService): void {
  app.get<{ Querystring: EventLogListQuery }>(
    '/security/notifier/v1/event_logs',
    {
      schema: {
        operationId: 'security.eventLogs.list',
        tags,
        summary: "List the account's DDoS event logs",
        querystring: EventLogListQuerySchema,
        response: { 200: EventLogPageSchema, 422: ErrorBody },
      },
    },
    async (request) => service.list(principalOf(request), request.query),
  );

  app.get<{ Params: { event_log_id: string } }>(
    '/security/notifier/v1/event_logs/:event_log_id',
    {
      schema: {
        operationId: 'security.eventLogs.get',
        tags,
        summary: 'Get one DDoS event log with its attack breakdown',
        params: EventLogParamsSchema,
        response: { 200: EventLogDetailSchema, 404: ErrorBody, 422: ErrorBody },
      },
    },
    async (request) => service.get(principalOf(request), request.params.event_log_id),
  );
}
