import type { FastifyInstance } from 'fastify';
import { PageOf } from '../../platform/pagination.js';
import { callerOf } from '../../platform/auth/caller.js';
import { regionalRoutes } from '../common/regional-routes.js';
import { CLOUD_TAG, TaskIdList, UuidParam } from '../common/schemas.js';
import { typed } from '../../platform/typed.js';
import { NetworkCreateBody, NetworkListQuery, NetworkSchema, NetworkUpdateBody } from './schemas.js';
import type { NetworkService } from './service.js';

export function networkRoutes(fastify: FastifyInstance, networks: NetworkService): void {
  regionalRoutes(fastify, networks, {
    base: '/cloud/v1/networks/:project_id/:region_id',
    idParam: 'network_id',
    itemParams: UuidParam('network_id', 'Network ID'),
    create: { operationId: 'cloud.networks.create', summary: 'Create a network (asynchronous)', body: NetworkCreateBody },
    list: { operationId: 'cloud.networks.list', summary: 'List networks', querystring: NetworkListQuery, response: PageOf(NetworkSchema) },
    get: { operationId: 'cloud.networks.get', summary: 'Get a network', response: NetworkSchema },
    update: { operationId: 'cloud.networks.update', summary: 'Rename a network or replace its tags', body: NetworkUpdateBody, response: NetworkSchema },
    delete: { operationId: 'cloud.networks.delete', summary: 'Delete a network and its free subnets (asynchronous)' },
  });
  typed(fastify).patch(
    '/cloud/v2/networks/:project_id/:region_id/:network_id',
    {
      schema: {
        tags: [CLOUD_TAG],
        operationId: 'cloud.networks.updateV2',
        summary: 'Rename a network or change its tags (asynchronous; no task when nothing changes)',
        params: UuidParam('network_id', 'Network ID'),
        body: NetworkUpdateBody,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const p = request.params;
      return networks.updateV2(callerOf(request), p.project_id, p.region_id, p.network_id, request.body);
    },
  );
}
