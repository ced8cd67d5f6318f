import type { FastifyInstance } from 'fastify';
import { PageOf } from '../../../platform/pagination.js';
import { regionalRoutes } from '../../common/regional-routes.js';
import { UuidParam } from '../../common/schemas.js';
import { SubnetCreateBody, SubnetListQuery, SubnetSchema, SubnetUpdateBody } from './schemas.js';
import type { SubnetService } from './service.js';

export function subnetRoutes(app: FastifyInstance, subnets: SubnetService): void {
  regionalRoutes(app, subnets, {
    base: '/cloud/v1/subnets/:project_id/:region_id',
    idParam: 'subnet_id',
    itemParams: UuidParam('subnet_id', 'Subnet ID'),
    create: { operationId: 'cloud.subnets.create', summary: 'Create a subnet (asynchronous)', body: SubnetCreateBody },
    list: { operationId: 'cloud.subnets.list', summary: 'List subnets', querystring: SubnetListQuery, response: PageOf(SubnetSchema) },
    get: { operationId: 'cloud.subnets.get', summary: 'Get a subnet', response: SubnetSchema },
    update: { operationId: 'cloud.subnets.update', summary: 'Update a subnet', body: SubnetUpdateBody, response: SubnetSchema },
    delete: { operationId: 'cloud.subnets.delete', summary: 'Delete a subnet (asynchronous)' },
  });
}
