import type { FastifyInstance } from 'fastify';
import { PageOf } from '../../platform/pagination.js';
import { typed } from '../../platform/typed.js';
import { at, regionalRoutes } from '../common/regional-routes.js';
import { CLOUD_TAG, TaskIdList, UuidParam } from '../common/schemas.js';
import { AttachBody, DetachBody, RouterCreateBody, RouterListQuery, RouterSchema, RouterUpdateBody } from './schemas.js';
import type { RouterService } from './service.js';

const ItemParams = UuidParam('router_id', 'Router ID');

export function routerRoutes(fastify: FastifyInstance, routers: RouterService): void {
  const app = typed(fastify);
  const common = { tags: [CLOUD_TAG] };
  const base = '/cloud/v1/routers/:project_id/:region_id';
  regionalRoutes(fastify, routers, {
    base,
    idParam: 'router_id',
    itemParams: ItemParams,
    create: {
      operationId: 'cloud.routers.create',
      summary: 'Create a router, with subnet interfaces and a gateway if given (asynchronous)',
      body: RouterCreateBody,
    },
    list: { operationId: 'cloud.routers.list', summary: 'List routers', querystring: RouterListQuery, response: PageOf(RouterSchema) },
    get: { operationId: 'cloud.routers.get', summary: 'Get a router', response: RouterSchema },
    update: { operationId: 'cloud.routers.update', summary: 'Rename a router, change its gateway or routes', body: RouterUpdateBody, response: RouterSchema },
    delete: { operationId: 'cloud.routers.delete', summary: 'Delete a router with no subnets attached (asynchronous)' },
  });
  app.patch(
    '/cloud/v2/routers/:project_id/:region_id/:router_id',
    {
      schema: {
        ...common,
        operationId: 'cloud.routers.updateV2',
        summary: 'Rename a router, change its gateway or routes (asynchronous; no task when nothing changes)',
        params: ItemParams,
        body: RouterUpdateBody,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return routers.updateV2(caller, p.project_id, p.region_id, p.router_id, request.body);
    },
  );
  app.post(
    `${base}/:router_id/attach`,
    {
      schema: {
        ...common,
        operationId: 'cloud.routers.attach',
        summary: 'Attach a subnet to a router',
        params: ItemParams,
        body: AttachBody,
        response: { 200: RouterSchema },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      const body = request.body;
      return routers.attach(caller, p.project_id, p.region_id, p.router_id, body.subnet_id, body.ip_address);
    },
  );
  app.post(
    `${base}/:router_id/detach`,
    {
      schema: {
        ...common,
        operationId: 'cloud.routers.detach',
        summary: 'Detach a subnet from a router',
        params: ItemParams,
        body: DetachBody,
        response: { 200: RouterSchema },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return routers.detach(caller, p.project_id, p.region_id, p.router_id, request.body.subnet_id);
    },
  );
}
