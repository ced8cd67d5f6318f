import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/auth/plugin.js';
import { ErrorBody } from '../../platform/schema.js';
import { type AdminNetworksQuery, AdminNetworksQuerySchema, FastedgeClientSchema, NetworkListSchema } from './schemas.js';
import type { NetworkService } from './service.js';

const tags = ['Edge functions'];

export function networkRoutes(app: FastifyInstance, service: NetworkService): void {
  app.get<{ Querystring: AdminNetworksQuery }>(
    '/edge-functions/v1/admin/networks',
    {
      config: { access: 'reseller' },
      schema: {
        operationId: 'edge.networks.adminList',
        tags,
        summary: "Networks available to one of the reseller's clients (admin-portal token)",
        querystring: AdminNetworksQuerySchema,
        response: { 200: NetworkListSchema, 404: ErrorBody, 422: ErrorBody },
      },
    },
    async (request) => service.adminList(principalOf(request), request.query.client_id),
  );

  app.get(
    '/fastedge/v1/me',
    {
      schema: { operationId: 'edge.client.get', tags, summary: "The client's FastEdge status, usage and networks", response: { 200: FastedgeClientSchema } },
    },
    async (request) => service.overview(principalOf(request)),
  );
}
