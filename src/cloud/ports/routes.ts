import type { FastifyInstance } from 'fastify';
import { PageOf } from '../../platform/pagination.js';
import { callerOf } from '../../platform/auth/caller.js';
import { CLOUD_TAG, ProjectRegionParams, UuidParam } from '../common/schemas.js';
import { PortListQuery, PortSchema } from './schemas.js';
import type { PortService } from './service.js';
import { typed } from '../../platform/typed.js';

export function portRoutes(fastify: FastifyInstance, ports: PortService): void {
  const app = typed(fastify);
  const common = { tags: [CLOUD_TAG] };
  app.get(
    '/cloud/v1/ports/:project_id/:region_id',
    {
      schema: {
        ...common,
        operationId: 'cloud.ports.list',
        summary: 'List the ports of a project in a region',
        params: ProjectRegionParams,
        querystring: PortListQuery,
        response: { 200: PageOf(PortSchema) },
      },
    },
    async (request) => {
      const p = request.params;
      return ports.list(callerOf(request), p.project_id, p.region_id, request.query);
    },
  );
  app.get(
    '/cloud/v1/ports/:project_id/:region_id/:port_id',
    { schema: { ...common, operationId: 'cloud.ports.get', summary: 'Get a port', params: UuidParam('port_id', 'Port ID'), response: { 200: PortSchema } } },
    async (request) => {
      const p = request.params;
      return ports.get(callerOf(request), p.project_id, p.region_id, p.port_id);
    },
  );
}
