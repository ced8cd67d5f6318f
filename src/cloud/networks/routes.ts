import type { FastifyInstance } from 'fastify';
import { PageOf } from '../../platform/pagination.js';
import { regionalRoutes } from '../common/regional-routes.js';
import { UuidParam } from '../common/schemas.js';
import { NetworkCreateBody, NetworkListQuery, NetworkSchema, NetworkUpdateBody } from './schemas.js';
import type { NetworkService } from './service.js';

export function networkRoutes(app: FastifyInstance, networks: NetworkService): void {
  regionalRoutes(app, networks, {
    base: '/cloud/v1/networks/:project_id/:region_id',
    idParam: 'network_id',
    itemParams: UuidParam('network_id', 'Network ID'),
    create: { operationId: 'cloud.networks.create', summary: 'Create a network (asynchronous)', body: NetworkCreateBody },
    list: { operationId: 'cloud.networks.list', summary: 'List networks', querystring: NetworkListQuery, response: PageOf(NetworkSchema) },
    get: { operationId: 'cloud.networks.get', summary: 'Get a network', response: NetworkSchema },
    update: { operationId: 'cloud.networks.update', summary: 'Rename a network or replace its tags', body: NetworkUpdateBody, response: NetworkSchema },
    delete: { operationId: 'cloud.networks.delete', summary: 'Delete a network and its free subnets (asynchronous)' },
  });
}
