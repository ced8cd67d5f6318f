// Routes of what a load balancer holds: listeners, pools with their members and health monitor, L7
// policies and their rules.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { PageOf } from '../../platform/pagination.js';
import { typed } from '../../platform/typed.js';
import { at, regionalRoutes } from '../common/regional-routes.js';
import { CLOUD_TAG, NoBody, ProjectRegionParams, TaskIdList, UuidParam, Uuid } from '../common/schemas.js';
import type { L7Service } from './l7.js';
import {
  L7ListQuery,
  PolicyCreateBody,
  PolicyParams,
  PolicySchema,
  PolicyUpdateBody,
  RuleCreateBody,
  RuleParams,
  RuleReplaceBody,
  RuleSchema,
} from './l7-schemas.js';
import {
  ListenerCreateBody,
  ListenerDeleteQuery,
  ListenerListQuery,
  ListenerPatchBody,
  ListenerRenameBody,
  ListenerSchema,
  ShowStatsQuery,
} from './listener-schemas.js';
import type { ListenerService } from './listeners.js';
import { MemberInput, MonitorInput, PoolCreateBody, PoolListItem, PoolListQuery, PoolPatchBody, PoolSchema } from './pool-schemas.js';
import type { PoolService } from './pools.js';

const common = { tags: [CLOUD_TAG] };
const noContent = { 204: NoBody() };

export function listenerRoutes(fastify: FastifyInstance, listeners: ListenerService): void {
  const app = typed(fastify);
  const params = UuidParam('listener_id', 'Listener ID');
  regionalRoutes(fastify, listeners, {
    base: '/cloud/v1/lblisteners/:project_id/:region_id',
    idParam: 'listener_id',
    itemParams: params,
    create: { operationId: 'cloud.lbListeners.create', summary: 'Create a listener on a load balancer (asynchronous)', body: ListenerCreateBody },
    list: { operationId: 'cloud.lbListeners.list', summary: 'List listeners', querystring: ListenerListQuery, response: PageOf(ListenerSchema) },
    get: { operationId: 'cloud.lbListeners.get', summary: 'Get a listener', querystring: ShowStatsQuery, response: ListenerSchema },
    delete: {
      operationId: 'cloud.lbListeners.delete',
      summary: 'Delete a listener, its L7 policies, and its default pool if asked (asynchronous)',
      querystring: ListenerDeleteQuery,
    },
  });
  app.patch(
    '/cloud/v1/lblisteners/:project_id/:region_id/:listener_id',
    {
      schema: {
        ...common,
        operationId: 'cloud.lbListeners.rename',
        summary: 'Rename a listener',
        params,
        body: ListenerRenameBody,
        response: { 200: ListenerSchema },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return listeners.rename(caller, p.project_id, p.region_id, p.listener_id, request.body.name);
    },
  );
  app.patch(
    '/cloud/v2/lblisteners/:project_id/:region_id/:listener_id',
    {
      schema: {
        ...common,
        operationId: 'cloud.lbListeners.update',
        summary: 'Update a listener (asynchronous; no task when nothing changes)',
        params,
        body: ListenerPatchBody,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return listeners.patch(caller, p.project_id, p.region_id, p.listener_id, request.body);
    },
  );
}

export function poolRoutes(fastify: FastifyInstance, pools: PoolService): void {
  const app = typed(fastify);
  const params = UuidParam('pool_id', 'Pool ID');
  const base = '/cloud/v1/lbpools/:project_id/:region_id';
  regionalRoutes(fastify, pools, {
    base,
    idParam: 'pool_id',
    itemParams: params,
    create: { operationId: 'cloud.lbPools.create', summary: 'Create a pool, with its members and health monitor (asynchronous)', body: PoolCreateBody },
    list: { operationId: 'cloud.lbPools.list', summary: 'List pools', querystring: PoolListQuery, response: PageOf(PoolListItem) },
    get: { operationId: 'cloud.lbPools.get', summary: 'Get a pool', response: PoolSchema },
    delete: { operationId: 'cloud.lbPools.delete', summary: 'Delete a pool with its members and monitor (asynchronous)' },
  });
  for (const [version, operationId] of [
    ['v1', 'cloud.lbPools.update'],
    ['v2', 'cloud.lbPools.updateV2'],
  ] as const) {
    app.patch(
      `/cloud/${version}/lbpools/:project_id/:region_id/:pool_id`,
      {
        schema: {
          ...common,
          operationId,
          summary: 'Update a pool; members and monitor given replace the current ones (asynchronous; no task when nothing changes)',
          params,
          body: PoolPatchBody,
          response: { 200: TaskIdList },
        },
      },
      async (request) => {
        const { caller, p } = at(request);
        return pools.patch(caller, p.project_id, p.region_id, p.pool_id, request.body);
      },
    );
  }
  app.post(
    `${base}/:pool_id/member`,
    {
      schema: {
        ...common,
        operationId: 'cloud.lbPools.addMember',
        summary: 'Add a member to a pool (asynchronous)',
        params,
        body: MemberInput,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return pools.addMember(caller, p.project_id, p.region_id, p.pool_id, request.body);
    },
  );
  const memberParams = Type.Object({ ...params.properties, member_id: Uuid({ description: 'Member ID' }) });
  app.delete(
    `${base}/:pool_id/member/:member_id`,
    {
      schema: {
        ...common,
        operationId: 'cloud.lbPools.removeMember',
        summary: 'Remove a member from a pool (asynchronous)',
        params: memberParams,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return pools.removeMember(caller, p.project_id, p.region_id, p.pool_id, p.member_id);
    },
  );
  app.post(
    `${base}/:pool_id/healthmonitor`,
    {
      schema: {
        ...common,
        operationId: 'cloud.lbPools.addHealthMonitor',
        summary: 'Give a pool a health monitor (asynchronous)',
        params,
        body: MonitorInput,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return pools.addMonitor(caller, p.project_id, p.region_id, p.pool_id, request.body);
    },
  );
  app.delete(
    `${base}/:pool_id/healthmonitor`,
    { schema: { ...common, operationId: 'cloud.lbPools.removeHealthMonitor', summary: 'Remove the health monitor of a pool', params, response: noContent } },
    async (request, reply) => {
      const { caller, p } = at(request);
      await pools.removeMonitor(caller, p.project_id, p.region_id, p.pool_id);
      return reply.code(204).send();
    },
  );
}

export function l7Routes(fastify: FastifyInstance, l7: L7Service): void {
  const app = typed(fastify);
  const base = '/cloud/v1/l7policies/:project_id/:region_id';
  const policy = `${base}/:l7policy_id`;
  const rule = `${policy}/rules/:l7rule_id`;
  const list = <T extends Parameters<typeof Type.Array>[0]>(item: T) => ({
    200: Type.Object({ count: Type.Integer({ minimum: 0 }), results: Type.Array(item) }),
  });
  const task = { 200: TaskIdList };
  app.post(
    base,
    {
      schema: {
        ...common,
        operationId: 'cloud.l7Policies.create',
        summary: 'Create an L7 policy on a listener (asynchronous)',
        params: ProjectRegionParams,
        body: PolicyCreateBody,
        response: task,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return l7.createPolicy(caller, p.project_id, p.region_id, request.body);
    },
  );
  app.get(
    base,
    {
      schema: {
        ...common,
        operationId: 'cloud.l7Policies.list',
        summary: 'List L7 policies',
        params: ProjectRegionParams,
        querystring: L7ListQuery,
        response: list(PolicySchema),
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return l7.policies(caller, p.project_id, p.region_id, request.query);
    },
  );
  app.get(
    policy,
    { schema: { ...common, operationId: 'cloud.l7Policies.get', summary: 'Get an L7 policy', params: PolicyParams, response: { 200: PolicySchema } } },
    async (request) => {
      const { caller, p } = at(request);
      return l7.policy(caller, p.project_id, p.region_id, p.l7policy_id);
    },
  );
  app.patch(
    policy,
    {
      schema: {
        ...common,
        operationId: 'cloud.l7Policies.update',
        summary: 'Replace the action of an L7 policy (asynchronous; no task when nothing changes)',
        params: PolicyParams,
        body: PolicyUpdateBody,
        response: task,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return l7.updatePolicy(caller, p.project_id, p.region_id, p.l7policy_id, request.body);
    },
  );
  app.delete(
    policy,
    {
      schema: {
        ...common,
        operationId: 'cloud.l7Policies.delete',
        summary: 'Delete an L7 policy and its rules (asynchronous)',
        params: PolicyParams,
        response: task,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return l7.deletePolicy(caller, p.project_id, p.region_id, p.l7policy_id);
    },
  );
  app.post(
    `${policy}/rules`,
    {
      schema: {
        ...common,
        operationId: 'cloud.l7Rules.create',
        summary: 'Add a rule to an L7 policy (asynchronous)',
        params: PolicyParams,
        body: RuleCreateBody,
        response: task,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return l7.createRule(caller, p.project_id, p.region_id, p.l7policy_id, request.body);
    },
  );
  app.get(
    `${policy}/rules`,
    {
      schema: {
        ...common,
        operationId: 'cloud.l7Rules.list',
        summary: 'List the rules of an L7 policy',
        params: PolicyParams,
        querystring: L7ListQuery,
        response: list(RuleSchema),
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return l7.rules(caller, p.project_id, p.region_id, p.l7policy_id, request.query);
    },
  );
  app.get(
    rule,
    { schema: { ...common, operationId: 'cloud.l7Rules.get', summary: 'Get an L7 rule', params: RuleParams, response: { 200: RuleSchema } } },
    async (request) => {
      const { caller, p } = at(request);
      return l7.rule(caller, p.project_id, p.region_id, p.l7policy_id, p.l7rule_id);
    },
  );
  app.put(
    rule,
    {
      schema: {
        ...common,
        operationId: 'cloud.l7Rules.replace',
        summary: 'Change the fields of an L7 rule (asynchronous)',
        params: RuleParams,
        body: RuleReplaceBody,
        response: task,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return l7.replaceRule(caller, p.project_id, p.region_id, p.l7policy_id, p.l7rule_id, request.body);
    },
  );
  app.delete(
    rule,
    { schema: { ...common, operationId: 'cloud.l7Rules.delete', summary: 'Delete an L7 rule (asynchronous)', params: RuleParams, response: task } },
    async (request) => {
      const { caller, p } = at(request);
      return l7.deleteRule(caller, p.project_id, p.region_id, p.l7policy_id, p.l7rule_id);
    },
  );
}
