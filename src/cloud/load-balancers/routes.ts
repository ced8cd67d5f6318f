// Routes of load balancers: the standard create, list, get, update and delete, the v2 update, failover,
// resize, status trees, metrics and flavors. Listeners, pools and L7 policies: child-routes.ts.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { PageOf } from '../../platform/pagination.js';
import { typed } from '../../platform/typed.js';
import { at, regionalRoutes } from '../common/regional-routes.js';
import { CLOUD_TAG, ProjectRegionParams, TagsInput, TaskIdList, Text, UuidParam } from '../common/schemas.js';
import {
  CheckLimitsBody,
  FailoverBody,
  LbQuotaSchema,
  LbFlavorPriced,
  LbFlavorQuery,
  LbFlavorSchema,
  LbMetricPoint,
  LbMetricsBody,
  LoadBalancerCreateBody,
  LoadBalancerGetQuery,
  LoadBalancerListQuery,
  LoadBalancerSchema,
  LoadBalancerStatusSchema,
  LoadBalancerUpdateBody,
  LoadBalancerUpdateV2Body,
  ResizeBody,
} from './schemas.js';
import type { LoadBalancerService } from './service.js';

const ItemParams = UuidParam('load_balancer_id', 'Load balancer ID');
const List = <T extends Parameters<typeof Type.Array>[0]>(item: T) => Type.Object({ count: Type.Integer({ minimum: 0 }), results: Type.Array(item) });

export function loadBalancerRoutes(fastify: FastifyInstance, balancers: LoadBalancerService): void {
  const app = typed(fastify);
  const common = { tags: [CLOUD_TAG] };
  const v1 = '/cloud/v1/loadbalancers/:project_id/:region_id';
  app.get(
    '/cloud/v1/lbflavors/:project_id/:region_id',
    {
      schema: {
        ...common,
        operationId: 'cloud.loadBalancers.flavors',
        summary: 'List load balancer flavors',
        params: ProjectRegionParams,
        querystring: LbFlavorQuery,
        response: { 200: List(Type.Union([LbFlavorPriced, LbFlavorSchema])) },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return balancers.flavors(caller, p.project_id, p.region_id, request.query);
    },
  );
  app.post(
    `${v1}/check_limits`,
    {
      schema: {
        ...common,
        operationId: 'cloud.loadBalancers.checkLimits',
        summary: 'The quotas a new load balancer would exceed',
        params: ProjectRegionParams,
        body: CheckLimitsBody,
        response: { 200: LbQuotaSchema },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return balancers.checkLimits(caller, p.project_id, p.region_id, request.body);
    },
  );
  // Before the item routes: `status` is not a balancer ID.
  app.get(
    `${v1}/status`,
    {
      schema: {
        ...common,
        operationId: 'cloud.loadBalancers.statuses',
        summary: 'The status trees of every load balancer',
        params: ProjectRegionParams,
        response: { 200: List(LoadBalancerStatusSchema) },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return balancers.statuses(caller, p.project_id, p.region_id);
    },
  );
  regionalRoutes(fastify, balancers, {
    base: v1,
    idParam: 'load_balancer_id',
    itemParams: ItemParams,
    create: {
      operationId: 'cloud.loadBalancers.create',
      summary: 'Create a load balancer, with listeners, pools and members if given (asynchronous)',
      body: LoadBalancerCreateBody,
    },
    list: { operationId: 'cloud.loadBalancers.list', summary: 'List load balancers', querystring: LoadBalancerListQuery, response: PageOf(LoadBalancerSchema) },
    get: { operationId: 'cloud.loadBalancers.get', summary: 'Get a load balancer', querystring: LoadBalancerGetQuery, response: LoadBalancerSchema },
    update: {
      operationId: 'cloud.loadBalancers.update',
      summary: 'Rename a load balancer, change its tags, logging or connectivity',
      body: LoadBalancerUpdateBody,
      response: LoadBalancerSchema,
    },
    delete: { operationId: 'cloud.loadBalancers.delete', summary: 'Delete a load balancer and everything in it (asynchronous)' },
  });
  const item = `${v1}/:load_balancer_id`;
  app.patch(
    '/cloud/v2/loadbalancers/:project_id/:region_id/:load_balancer_id',
    {
      schema: {
        ...common,
        operationId: 'cloud.loadBalancers.updateV2',
        summary: 'Update a load balancer, its admin state too (asynchronous; no task when nothing changes)',
        params: ItemParams,
        body: LoadBalancerUpdateV2Body,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return balancers.updateV2(caller, p.project_id, p.region_id, p.load_balancer_id, request.body);
    },
  );
  const v2Item = '/cloud/v2/loadbalancers/:project_id/:region_id/:load_balancer_id';
  for (const [method, mode, operationId, summary] of [
    ['POST', 'merge', 'mergeTags', 'Set tags of a load balancer (asynchronous)'],
    ['PUT', 'replace', 'replaceTags', 'Replace every tag of a load balancer (asynchronous)'],
  ] as const) {
    app.route({
      method,
      url: `${v2Item}/metadata`,
      schema: { ...common, operationId: `cloud.loadBalancers.v2.${operationId}`, summary, params: ItemParams, body: TagsInput, response: { 200: TaskIdList } },
      handler: async (request) => {
        const { caller, p } = at(request);
        return balancers.retag(caller, p.project_id, p.region_id, p.load_balancer_id, { [mode]: request.body });
      },
    });
  }
  app.delete(
    `${v2Item}/metadata_item`,
    {
      schema: {
        ...common,
        operationId: 'cloud.loadBalancers.v2.removeTag',
        summary: 'Remove one tag of a load balancer (asynchronous)',
        params: ItemParams,
        querystring: Type.Object({ key: Text(255, { minLength: 1 }) }),
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return balancers.retag(caller, p.project_id, p.region_id, p.load_balancer_id, { remove: request.query.key });
    },
  );
  app.post(
    `${item}/failover`,
    {
      schema: {
        ...common,
        operationId: 'cloud.loadBalancers.failover',
        summary: 'Fail a load balancer over to its standby (asynchronous)',
        params: ItemParams,
        body: FailoverBody,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return balancers.failover(caller, p.project_id, p.region_id, p.load_balancer_id, request.body.force);
    },
  );
  app.post(
    `${item}/resize`,
    {
      schema: {
        ...common,
        operationId: 'cloud.loadBalancers.resize',
        summary: 'Change the flavor of a load balancer (asynchronous)',
        params: ItemParams,
        body: ResizeBody,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return balancers.resize(caller, p.project_id, p.region_id, p.load_balancer_id, request.body.flavor);
    },
  );
  app.get(
    `${item}/status`,
    {
      schema: {
        ...common,
        operationId: 'cloud.loadBalancers.status',
        summary: 'The status tree of a load balancer',
        params: ItemParams,
        response: { 200: LoadBalancerStatusSchema },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return balancers.status(caller, p.project_id, p.region_id, p.load_balancer_id);
    },
  );
  app.post(
    `${item}/metrics`,
    {
      schema: {
        ...common,
        operationId: 'cloud.loadBalancers.metrics',
        summary: 'Usage of a load balancer over the last hours or days (simulated)',
        params: ItemParams,
        body: LbMetricsBody,
        response: { 200: List(LbMetricPoint) },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      const body = request.body;
      return balancers.metrics(caller, p.project_id, p.region_id, p.load_balancer_id, body.time_interval, body.time_unit);
    },
  );
}
