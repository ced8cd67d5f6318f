import type { FastifyInstance } from 'fastify';
import { PageOf } from '../../../platform/pagination.js';
import { callerOf } from '../../common/operations.js';
import { CLOUD_TAG, ProjectRegionParams, TaskIdList, UuidParam } from '../../common/schemas.js';
import { SubnetCreateBody, SubnetListQuery, SubnetSchema, SubnetUpdateBody } from './schemas.js';
import type { SubnetService } from './service.js';

const base = '/cloud/v1/subnets/:project_id/:region_id';
const ItemParams = UuidParam('subnet_id', 'Subnet ID');
type P = { project_id: number; region_id: number; subnet_id: string };

export function subnetRoutes(app: FastifyInstance, subnets: SubnetService): void {
  const common = { tags: [CLOUD_TAG] };
  app.post(base, { schema: { ...common, operationId: 'cloud.subnets.create', summary: 'Create a subnet (asynchronous)', params: ProjectRegionParams, body: SubnetCreateBody, response: { 200: TaskIdList } } }, async (request) => {
    const p = request.params as P;
    return subnets.create(callerOf(request), p.project_id, p.region_id, request.body as never);
  });
  app.get(base, { schema: { ...common, operationId: 'cloud.subnets.list', summary: 'List subnets', params: ProjectRegionParams, querystring: SubnetListQuery, response: { 200: PageOf(SubnetSchema) } } }, async (request) => {
    const p = request.params as P;
    return subnets.list(callerOf(request), p.project_id, p.region_id, request.query as never);
  });
  app.get(`${base}/:subnet_id`, { schema: { ...common, operationId: 'cloud.subnets.get', summary: 'Get a subnet', params: ItemParams, response: { 200: SubnetSchema } } }, async (request) => {
    const p = request.params as P;
    return subnets.get(callerOf(request), p.project_id, p.region_id, p.subnet_id);
  });
  app.patch(`${base}/:subnet_id`, { schema: { ...common, operationId: 'cloud.subnets.update', summary: 'Update a subnet', params: ItemParams, body: SubnetUpdateBody, response: { 200: SubnetSchema } } }, async (request) => {
    const p = request.params as P;
    return subnets.update(callerOf(request), p.project_id, p.region_id, p.subnet_id, request.body as never);
  });
  app.delete(`${base}/:subnet_id`, { schema: { ...common, operationId: 'cloud.subnets.delete', summary: 'Delete a subnet (asynchronous)', params: ItemParams, response: { 200: TaskIdList } } }, async (request) => {
    const p = request.params as P;
    return subnets.delete(callerOf(request), p.project_id, p.region_id, p.subnet_id);
  });
}
