import type { FastifyInstance } from 'fastify';
import { PageOf } from '../../platform/pagination.js';
import { callerOf } from '../common/operations.js';
import { CLOUD_TAG, ProjectRegionParams, TaskIdList, UuidParam } from '../common/schemas.js';
import { AssignBody, FloatingIpCreateBody, FloatingIpListItem, FloatingIpListQuery, FloatingIpSchema } from './schemas.js';
import type { FloatingIpService } from './service.js';

const base = '/cloud/v1/floatingips/:project_id/:region_id';
const ItemParams = UuidParam('floating_ip_id', 'Floating IP ID');
type P = { project_id: number; region_id: number; floating_ip_id: string };

export function floatingIpRoutes(app: FastifyInstance, fips: FloatingIpService): void {
  const common = { tags: [CLOUD_TAG] };
  app.post(base, { schema: { ...common, operationId: 'cloud.floatingIps.create', summary: 'Create a floating IP (asynchronous)', params: ProjectRegionParams, body: FloatingIpCreateBody, response: { 200: TaskIdList } } }, async (request) => {
    const p = request.params as P;
    return fips.create(callerOf(request), p.project_id, p.region_id, request.body as never);
  });
  app.get(base, { schema: { ...common, operationId: 'cloud.floatingIps.list', summary: 'List floating IPs', params: ProjectRegionParams, querystring: FloatingIpListQuery, response: { 200: PageOf(FloatingIpListItem) } } }, async (request) => {
    const p = request.params as P;
    return fips.list(callerOf(request), p.project_id, p.region_id, request.query as never);
  });
  app.get(`${base}/:floating_ip_id`, { schema: { ...common, operationId: 'cloud.floatingIps.get', summary: 'Get a floating IP', params: ItemParams, response: { 200: FloatingIpSchema } } }, async (request) => {
    const p = request.params as P;
    return fips.get(callerOf(request), p.project_id, p.region_id, p.floating_ip_id);
  });
  app.delete(`${base}/:floating_ip_id`, { schema: { ...common, operationId: 'cloud.floatingIps.delete', summary: 'Delete a floating IP (asynchronous)', params: ItemParams, response: { 200: TaskIdList } } }, async (request) => {
    const p = request.params as P;
    return fips.delete(callerOf(request), p.project_id, p.region_id, p.floating_ip_id);
  });
  app.post(`${base}/:floating_ip_id/assign`, { schema: { ...common, operationId: 'cloud.floatingIps.assign', summary: 'Assign to an instance port', params: ItemParams, body: AssignBody, response: { 200: FloatingIpSchema } } }, async (request) => {
    const p = request.params as P;
    return fips.assign(callerOf(request), p.project_id, p.region_id, p.floating_ip_id, (request.body as { port_id: string }).port_id);
  });
  app.post(`${base}/:floating_ip_id/unassign`, { schema: { ...common, operationId: 'cloud.floatingIps.unassign', summary: 'Unassign from its port', params: ItemParams, response: { 200: FloatingIpSchema } } }, async (request) => {
    const p = request.params as P;
    return fips.unassign(callerOf(request), p.project_id, p.region_id, p.floating_ip_id);
  });
}
