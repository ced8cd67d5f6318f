// Operator routes that put DDoS event logs in: one record, a batch, or a deterministic generated set.
import type { FastifyInstance } from 'fastify';
import {
  CreatedSchema,
  type EventLogBulk,
  EventLogBulkSchema,
  EventLogDetailSchema,
  type EventLogInput,
  EventLogInputSchema,
  type GenerateRequest,
  GenerateSchema,
} from './schemas.js';
import type { EventLogService } from './service.js';

const tags = ['Edgeplane control'];
const config = { access: 'operator' as const };

export function eventLogControlRoutes(app: FastifyInstance, service: EventLogService): void {
  app.post<{ Body: EventLogInput }>(
    '/_edgeplane/security/event-logs',
    {
      config,
      schema: {
        operationId: 'control.security.eventLogs.create',
        tags,
        summary: 'Add one DDoS event log',
        body: EventLogInputSchema,
        response: { 201: EventLogDetailSchema },
      },
    },
    async (request, reply) => reply.status(201).send(await service.create(request.body)),
  );

  app.post<{ Body: EventLogBulk }>(
    '/_edgeplane/security/event-logs/bulk',
    {
      config,
      schema: {
        operationId: 'control.security.eventLogs.bulk',
        tags,
        summary: 'Add DDoS event logs in one transaction',
        body: EventLogBulkSchema,
        response: { 201: CreatedSchema },
      },
    },
    async (request, reply) => reply.status(201).send(await service.createMany(request.body.records)),
  );

  app.post<{ Body: GenerateRequest }>(
    '/_edgeplane/security/event-logs/generate',
    {
      config,
      schema: {
        operationId: 'control.security.eventLogs.generate',
        tags,
        summary: 'Generate plausible DDoS event logs deterministically from a seed',
        body: GenerateSchema,
        response: { 201: CreatedSchema },
      },
    },
    async (request, reply) => reply.status(201).send(await service.generate(request.body)),
  );
}
