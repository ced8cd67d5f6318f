import type { FastifyInstance } from 'fastify';
import { PageOf } from '../../platform/pagination.js';
import { callerOf } from '../common/operations.js';
import { CLOUD_TAG, ProjectRegionParams, TaskIdList, UuidParam } from '../common/schemas.js';
import { NetworkCreateBody, NetworkListQuery, NetworkSchema, NetworkUpdateBody } from './schemas.js';
import type { NetworkService } from './service.js';

const base = '/cloud/v1/networks/:project_id/:region_id';
const ItemParams = UuidParam('network_id', 'Network ID');
type P = { project_id: number; region_id: number; network_id: string };

export function networkRoutes(app: FastifyInstance, networks: NetworkService): void {
  const common = { tags: [CLOUD_TAG] };
  app.post(base, { schema: { ...common, operationId: 'cloud.networks.create', summary: 'Create a network (asynchronous)', params: ProjectRegionParams, body: NetworkCreateBody, response: { 200: TaskIdList } } }, async (request) => {
    const p = request.params as P;
    return networks.create(callerOf(request), p.project_id, p.region_id, request.body as never);
  });
  app.get(base, { schema: { ...common, operationId: 'cloud.networks.list', summary: 'List networks', params: ProjectRegionParams, querystring: NetworkListQuery, response: { 200: PageOf(NetworkSchema) } } }, async (request) => {
    const p = request.params as P;
    return networks.list(callerOf(request), p.project_id, p.region_id, request.query as never);
  });
  app.get(`${base}/:network_id`, { schema: { ...common, operationId: 'cloud.networks.get', summary: 'Get a network', params: ItemParams, response: { 200: NetworkSchema } } }, async (request) => {
    const p = request.params as P;
    return networks.get(callerOf(request), p.project_id, p.region_id, p.network_id);
  });
  app.patch(`${base}/:network_id`, { schema: { ...common, operationId: 'cloud.networks.update', summary: 'Rename a network or replace its tags', params: ItemParams, body: NetworkUpdateBody, response: { 200: NetworkSchema } } }, async (request) => {
    const p = request.params as P;
    return networks.update(callerOf(request), p.project_id, p.region_id, p.network_id, request.body as never);
  });
  app.delete(`${base}/:network_id`, { schema: { ...common, operationId: 'cloud.networks.delete', summary: 'Delete a network and its free subnets (asynchronous)', params: ItemParams, response: { 200: TaskIdList } } }, async (request) => {
    const p = request.params as P;
    return networks.delete(callerOf(request), p.project_id, p.region_id, p.network_id);
  });
}
