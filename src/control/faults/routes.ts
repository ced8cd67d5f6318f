import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { FaultCreateSchema, type FaultCreate, FaultListQuerySchema, FaultParamsSchema, FaultSchema } from './schemas.js';
import type { FaultService } from './service.js';

const tags = ['Edgeplane control'];
const config = { access: 'operator' as const };

export function faultRoutes(app: FastifyInstance, faults: FaultService): void {
  app.post<{ Body: FaultCreate }>(
    '/_edgeplane/faults',
    {
      config,
      schema: {
        operationId: 'control.faults.create',
        tags,
        summary: 'Declare a fault (status, latency or task failure) for matching requests',
        body: FaultCreateSchema,
        response: { 201: FaultSchema },
      },
    },
    async (request, reply) => reply.status(201).send(faults.create(request.body)),
  );

  app.get<{ Querystring: { scenario?: string } }>(
    '/_edgeplane/faults',
    {
      config,
      schema: {
        operationId: 'control.faults.list',
        tags,
        summary: 'List faults with how often each matched and fired',
        querystring: FaultListQuerySchema,
        response: { 200: Type.Array(FaultSchema) },
      },
    },
    async (request) => faults.list(request.query.scenario),
  );

  app.get<{ Params: { faultId: number } }>(
    '/_edgeplane/faults/:faultId',
    { config, schema: { operationId: 'control.faults.get', tags, summary: 'Inspect one fault', params: FaultParamsSchema, response: { 200: FaultSchema } } },
    async (request) => faults.get(request.params.faultId),
  );

  app.delete<{ Params: { faultId: number } }>(
    '/_edgeplane/faults/:faultId',
    { config, schema: { operationId: 'control.faults.delete', tags, summary: 'Delete one fault', params: FaultParamsSchema } },
    async (request, reply) => {
      faults.delete(request.params.faultId);
      return reply.status(204).send();
    },
  );

  app.delete<{ Querystring: { scenario?: string } }>(
    '/_edgeplane/faults',
    {
      config,
      schema: {
        operationId: 'control.faults.clear',
        tags,
        summary: 'Delete every fault, or those of one scenario',
        querystring: FaultListQuerySchema,
        response: { 200: Type.Object({ deleted: Type.Integer() }) },
      },
    },
    async (request) => ({ deleted: faults.clear(request.query.scenario) }),
  );
}
