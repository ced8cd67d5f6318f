// Operator routes that manage each client's edge-function networks.
import type { FastifyInstance } from 'fastify';
import {
  type NetworkAdd,
  NetworkAddSchema,
  NetworkListSchema,
  NetworkParamsSchema,
  type NetworkReplace,
  NetworkReplaceSchema,
  ClientParamsSchema,
} from './schemas.js';
import type { NetworkService } from './service.js';

const tags = ['Edgeplane control'];
const config = { access: 'operator' as const };
const PATH = '/_edgeplane/edge/clients/:client_id/networks';
type ClientParams = { client_id: number };

export function networkControlRoutes(app: FastifyInstance, service: NetworkService): void {
  app.get<{ Params: ClientParams }>(
    PATH,
    {
      config,
      schema: {
        operationId: 'control.edge.networks.list',
        tags,
        summary: "A client's networks",
        params: ClientParamsSchema,
        response: { 200: NetworkListSchema },
      },
    },
    async (request) => service.list(request.params.client_id),
  );

  app.put<{ Params: ClientParams; Body: NetworkReplace }>(
    PATH,
    {
      config,
      schema: {
        operationId: 'control.edge.networks.replace',
        tags,
        summary: "Set a client's whole network list",
        params: ClientParamsSchema,
        body: NetworkReplaceSchema,
        response: { 200: NetworkListSchema },
      },
    },
    async (request) => service.replace(request.params.client_id, request.body.networks),
  );

  app.post<{ Params: ClientParams; Body: NetworkAdd }>(
    PATH,
    {
      config,
      schema: {
        operationId: 'control.edge.networks.add',
        tags,
        summary: 'Add a network to a client',
        params: ClientParamsSchema,
        body: NetworkAddSchema,
        response: { 201: NetworkListSchema },
      },
    },
    async (request, reply) => reply.status(201).send(await service.add(request.params.client_id, request.body)),
  );

  app.delete<{ Params: ClientParams & { name: string } }>(
    `${PATH}/:name`,
    {
      config,
      schema: { operationId: 'control.edge.networks.remove', tags, summary: 'Remove a (non-default) network from a client', params: NetworkParamsSchema },
    },
    async (request, reply) => {
      await service.remove(request.params.client_id, request.params.name);
      return reply.status(204).send();
    },
  );
}
