import type { FastifyInstance } from 'fastify';
import { PageOf } from '../../platform/pagination.js';
import { callerOf } from '../../platform/auth/caller.js';
import { regionalRoutes } from '../common/regional-routes.js';
import { CLOUD_TAG, TaskIdList, UuidParam } from '../common/schemas.js';
import { FloatingIpListItem } from './list-schemas.js';
import { AssignBody, FloatingIpCreateBody, FloatingIpListQuery, FloatingIpSchema, FloatingIpTagsBody, FloatingIpUpdateBody } from './schemas.js';
import type { FloatingIpService } from './service.js';
import { typed } from '../../platform/typed.js';

const base = '/cloud/v1/floatingips/:project_id/:region_id';
const ItemParams = UuidParam('floating_ip_id', 'Floating IP ID');

export function floatingIpRoutes(fastify: FastifyInstance, fips: FloatingIpService): void {
  regionalRoutes(fastify, fips, {
    base,
    idParam: 'floating_ip_id',
    itemParams: ItemParams,
    create: { operationId: 'cloud.floatingIps.create', summary: 'Create a floating IP (asynchronous)', body: FloatingIpCreateBody },
    list: { operationId: 'cloud.floatingIps.list', summary: 'List floating IPs', querystring: FloatingIpListQuery, response: PageOf(FloatingIpListItem) },
    get: { operationId: 'cloud.floatingIps.get', summary: 'Get a floating IP', response: FloatingIpSchema },
    delete: { operationId: 'cloud.floatingIps.delete', summary: 'Delete a floating IP (asynchronous)' },
  });
  const app = typed(fastify);
  const common = { tags: [CLOUD_TAG] };
  app.patch(
    `${base}/:floating_ip_id`,
    {
      schema: {
        ...common,
        operationId: 'cloud.floatingIps.updateTags',
        summary: 'Change the tags of a floating IP',
        params: ItemParams,
        body: FloatingIpTagsBody,
        response: { 200: FloatingIpSchema },
      },
    },
    async (request) => {
      const p = request.params;
      return fips.updateTags(callerOf(request), p.project_id, p.region_id, p.floating_ip_id, request.body.tags);
    },
  );
  app.patch(
    '/cloud/v2/floatingips/:project_id/:region_id/:floating_ip_id',
    {
      schema: {
        ...common,
        operationId: 'cloud.floatingIps.update',
        summary: 'Assign, unassign or retag a floating IP (asynchronous; no task when nothing changes)',
        params: ItemParams,
        body: FloatingIpUpdateBody,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const p = request.params;
      return fips.update(callerOf(request), p.project_id, p.region_id, p.floating_ip_id, request.body);
    },
  );
  app.post(
    `${base}/:floating_ip_id/assign`,
    {
      schema: {
        ...common,
        operationId: 'cloud.floatingIps.assign',
        summary: 'Assign to an instance port',
        params: ItemParams,
        body: AssignBody,
        response: { 200: FloatingIpSchema },
      },
    },
    async (request) => {
      const p = request.params;
      return fips.assign(callerOf(request), p.project_id, p.region_id, p.floating_ip_id, request.body.port_id);
    },
  );
  app.post(
    `${base}/:floating_ip_id/unassign`,
    {
      schema: {
        ...common,
        operationId: 'cloud.floatingIps.unassign',
        summary: 'Unassign from its port',
        params: ItemParams,
        response: { 200: FloatingIpSchema },
      },
    },
    async (request) => {
      const p = request.params;
      return fips.unassign(callerOf(request), p.project_id, p.region_id, p.floating_ip_id);
    },
  );
}
