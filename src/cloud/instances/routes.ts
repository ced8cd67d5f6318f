import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { typed } from '../../platform/typed.js';
import { at, regionalRoutes } from '../common/regional-routes.js';
import { CLOUD_TAG, NoBody, pageQuery, ProjectRegionParams, TaskIdList, UuidParam } from '../common/schemas.js';
import type { InstanceGroups } from './groups.js';
import { AttachInterfaceBody, DetachInterfaceBody, PortParams } from './interface-schemas.js';
import { InterfaceSchema, type InterfaceService } from './interfaces.js';
import {
  ConsoleQuery,
  ConsoleSchema,
  FlavorSchema,
  InstanceActionBody,
  InstanceCreateBody,
  InstanceDeleteQuery,
  InstanceGroupsSchema,
  InstanceListQuery,
  InstanceSchema,
  InstanceUpdateBody,
  ResizeBody,
  SecurityGroupNamesBody,
} from './schemas.js';
import { MetricPoint, MetricsBody } from './metrics.js';
import type { InstanceService } from './service.js';

const ItemParams = UuidParam('instance_id', 'Instance ID');
const List = (item: typeof InstanceSchema | typeof FlavorSchema | typeof InterfaceSchema) =>
  Type.Object({ count: Type.Integer({ minimum: 0 }), results: Type.Array(item) });

export function instanceRoutes(fastify: FastifyInstance, instances: InstanceService, interfaces: InterfaceService, groups: InstanceGroups): void {
  const app = typed(fastify);
  const common = { tags: [CLOUD_TAG] };
  const v1 = '/cloud/v1/instances/:project_id/:region_id';
  const item = `${v1}/:instance_id`;
  regionalRoutes(fastify, instances, {
    base: v1,
    // The provider creates instances (with their volumes and interfaces) through v2 only.
    createBase: '/cloud/v2/instances/:project_id/:region_id',
    idParam: 'instance_id',
    itemParams: ItemParams,
    create: { operationId: 'cloud.instances.create', summary: 'Create an instance with its volumes and interfaces (asynchronous)', body: InstanceCreateBody },
    list: { operationId: 'cloud.instances.list', summary: 'List instances', querystring: InstanceListQuery, response: List(InstanceSchema) },
    get: { operationId: 'cloud.instances.get', summary: 'Get an instance', response: InstanceSchema },
    update: { operationId: 'cloud.instances.update', summary: 'Rename an instance or change its tags', body: InstanceUpdateBody, response: InstanceSchema },
    delete: {
      operationId: 'cloud.instances.delete',
      summary: 'Delete an instance, and the volumes and floating IPs named with it (asynchronous)',
      querystring: InstanceDeleteQuery,
    },
  });
  app.get(
    `${item}/interfaces`,
    {
      schema: {
        ...common,
        operationId: 'cloud.instances.interfaces',
        summary: 'List the network interfaces (ports) of an instance',
        params: ItemParams,
        querystring: Type.Object(pageQuery()),
        response: { 200: List(InterfaceSchema) },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return interfaces.list(caller, p.project_id, p.region_id, p.instance_id, request.query);
    },
  );
  app.post(
    `${item}/attach_interface`,
    {
      schema: {
        ...common,
        operationId: 'cloud.instances.attachInterface',
        summary: 'Add a network interface to an instance (asynchronous)',
        params: ItemParams,
        body: AttachInterfaceBody,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return interfaces.attach(caller, p.project_id, p.region_id, p.instance_id, request.body);
    },
  );
  app.post(
    `${item}/detach_interface`,
    {
      schema: {
        ...common,
        operationId: 'cloud.instances.detachInterface',
        summary: 'Remove a network interface from an instance (asynchronous)',
        params: ItemParams,
        body: DetachInterfaceBody,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      const body = request.body;
      return interfaces.detach(caller, p.project_id, p.region_id, p.instance_id, body.port_id, body.ip_address);
    },
  );
  for (const [enabled, verb] of [
    [true, 'enable'],
    [false, 'disable'],
  ] as const) {
    app.post(
      `/cloud/v1/ports/:project_id/:region_id/:port_id/${verb}_port_security`,
      {
        schema: {
          ...common,
          operationId: `cloud.ports.${verb}PortSecurity`,
          summary: `${verb[0].toUpperCase()}${verb.slice(1)} port security of an instance port`,
          params: PortParams,
          response: { 200: InterfaceSchema },
        },
      },
      async (request) => {
        const { caller, p } = at(request);
        return interfaces.portSecurity(caller, p.project_id, p.region_id, p.port_id, enabled);
      },
    );
  }
  for (const action of ['start', 'stop', 'reboot', 'suspend', 'resume'] as const) {
    app.post(
      `${item}/${action}`,
      {
        schema: {
          ...common,
          operationId: `cloud.instances.${action}`,
          summary: `${action[0].toUpperCase()}${action.slice(1)} an instance (a task; the record shows it in progress)`,
          params: ItemParams,
          response: { 200: InstanceSchema },
        },
      },
      async (request) => {
        const { caller, p } = at(request);
        await instances.action(caller, p.project_id, p.region_id, p.instance_id, action);
        return instances.get(caller, p.project_id, p.region_id, p.instance_id);
      },
    );
  }
  app.post(
    '/cloud/v2/instances/:project_id/:region_id/:instance_id/action',
    {
      schema: {
        ...common,
        operationId: 'cloud.instances.action',
        summary: 'Run a power action (asynchronous)',
        params: ItemParams,
        body: InstanceActionBody,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return instances.action(caller, p.project_id, p.region_id, p.instance_id, request.body.action);
    },
  );
  app.post(
    `${item}/changeflavor`,
    {
      schema: {
        ...common,
        operationId: 'cloud.instances.resize',
        summary: 'Change the flavor of an instance (asynchronous)',
        params: ItemParams,
        body: ResizeBody,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return instances.resize(caller, p.project_id, p.region_id, p.instance_id, request.body.flavor_id);
    },
  );
  app.get(
    `${item}/get_console`,
    {
      schema: {
        ...common,
        operationId: 'cloud.instances.console',
        summary: 'Where to reach the console of a running instance',
        params: ItemParams,
        querystring: ConsoleQuery,
        response: { 200: ConsoleSchema },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return instances.console(caller, p.project_id, p.region_id, p.instance_id, request.query.console_type);
    },
  );
  app.post(
    `${item}/metrics`,
    {
      schema: {
        ...common,
        operationId: 'cloud.instances.metrics',
        summary: 'Usage of an instance over the last days or hours (simulated)',
        params: ItemParams,
        querystring: Type.Object(pageQuery()),
        body: MetricsBody,
        response: { 200: Type.Object({ count: Type.Integer({ minimum: 0 }), results: Type.Array(MetricPoint) }) },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      const body = request.body;
      return instances.metrics(caller, p.project_id, p.region_id, p.instance_id, body.time_interval, body.time_unit, request.query);
    },
  );
  app.get(
    `${item}/securitygroups`,
    {
      schema: {
        ...common,
        operationId: 'cloud.instances.securityGroups',
        summary: "The security groups of an instance's ports",
        params: ItemParams,
        response: { 200: InstanceGroupsSchema },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return groups.list(caller, p.project_id, p.region_id, p.instance_id);
    },
  );
  for (const [verb, op] of [
    ['addsecuritygroup', 'assignSecurityGroup'],
    ['delsecuritygroup', 'unassignSecurityGroup'],
  ] as const) {
    app.post(
      `${item}/${verb}`,
      {
        schema: {
          ...common,
          operationId: `cloud.instances.${op}`,
          summary: verb === 'addsecuritygroup' ? "Add security groups to an instance's ports" : "Remove security groups from an instance's ports",
          params: ItemParams,
          body: SecurityGroupNamesBody,
          response: { 204: NoBody() },
        },
      },
      async (request, reply) => {
        const { caller, p } = at(request);
        await (verb === 'addsecuritygroup' ? groups.add : groups.remove).call(groups, caller, p.project_id, p.region_id, p.instance_id, request.body);
        return reply.code(204).send();
      },
    );
  }
  app.get(
    '/cloud/v1/flavors/:project_id/:region_id',
    {
      schema: {
        ...common,
        operationId: 'cloud.flavors.list',
        summary: 'List instance flavors',
        params: ProjectRegionParams,
        querystring: Type.Object({
          disabled: Type.Optional(Type.Boolean()),
          exclude_linux: Type.Optional(Type.Boolean()),
          exclude_windows: Type.Optional(Type.Boolean()),
          include_prices: Type.Optional(Type.Boolean()),
          ...pageQuery(),
        }),
        response: { 200: List(FlavorSchema) },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return instances.flavors(caller, p.project_id, p.region_id, request.query);
    },
  );
}
