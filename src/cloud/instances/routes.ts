import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { callerOf } from '../common/operations.js';
import { regionalRoutes } from '../common/regional-routes.js';
import { CLOUD_TAG, ProjectRegionParams, TaskIdList, UuidParam } from '../common/schemas.js';
import { FlavorSchema, InstanceActionBody, InstanceCreateBody, InstanceListQuery, InstanceSchema } from './schemas.js';
import type { Action, InstanceService } from './service.js';
import { InterfaceSchema, type InterfaceService } from './interfaces.js';

const ItemParams = UuidParam('instance_id', 'Instance ID');
type P = { project_id: number; region_id: number; instance_id: string };
const List = (item: typeof InstanceSchema | typeof FlavorSchema) => Type.Object({ count: Type.Integer(), results: Type.Array(item) });

export function instanceRoutes(app: FastifyInstance, instances: InstanceService, interfaces: InterfaceService): void {
  const common = { tags: [CLOUD_TAG] };
  const v1 = '/cloud/v1/instances/:project_id/:region_id';
  regionalRoutes(app, instances, {
    base: v1,
    // The provider creates instances (with their volumes and interfaces) through v2 only.
    createBase: '/cloud/v2/instances/:project_id/:region_id',
    idParam: 'instance_id',
    itemParams: ItemParams,
    create: { operationId: 'cloud.instances.create', summary: 'Create an instance with its volumes and interfaces (asynchronous)', body: InstanceCreateBody },
    list: { operationId: 'cloud.instances.list', summary: 'List instances', querystring: InstanceListQuery, response: List(InstanceSchema) },
    get: { operationId: 'cloud.instances.get', summary: 'Get an instance', response: InstanceSchema },
    delete: {
      operationId: 'cloud.instances.delete', summary: 'Delete an instance (asynchronous)',
      querystring: Type.Object({ volumes: Type.Optional(Type.String({ description: 'Comma-separated volume IDs to delete with it' })), delete_floatings: Type.Optional(Type.Boolean({ description: 'Delete its floating IPs too (default: unassign them)' })) }),
    },
  });
  app.get(`${v1}/:instance_id/interfaces`, { schema: { ...common, operationId: 'cloud.instances.interfaces', summary: 'List the network interfaces (ports) of an instance', params: ItemParams, response: { 200: Type.Object({ count: Type.Integer(), results: Type.Array(InterfaceSchema) }) } } }, async (request) => {
    const p = request.params as P;
    return interfaces.list(callerOf(request), p.project_id, p.region_id, p.instance_id);
  });
  for (const action of ['start', 'stop', 'reboot', 'suspend', 'resume'] as const) {
    app.post(`${v1}/:instance_id/${action}`, { schema: { ...common, operationId: `cloud.instances.${action}`, summary: `${action[0].toUpperCase()}${action.slice(1)} an instance (a task; the record shows it in progress)`, params: ItemParams, response: { 200: InstanceSchema } } }, async (request) => {
      const p = request.params as P;
      const caller = callerOf(request);
      await instances.action(caller, p.project_id, p.region_id, p.instance_id, action);
      return instances.get(caller, p.project_id, p.region_id, p.instance_id);
    });
  }
  app.post('/cloud/v2/instances/:project_id/:region_id/:instance_id/action', { schema: { ...common, operationId: 'cloud.instances.action', summary: 'Run a power action (asynchronous)', params: ItemParams, body: InstanceActionBody, response: { 200: TaskIdList } } }, async (request) => {
    const p = request.params as P;
    return instances.action(callerOf(request), p.project_id, p.region_id, p.instance_id, (request.body as { action: Action }).action);
  });
  app.get('/cloud/v1/flavors/:project_id/:region_id', { schema: { ...common, operationId: 'cloud.flavors.list', summary: 'List instance flavors', params: ProjectRegionParams, querystring: Type.Object({ disabled: Type.Optional(Type.Boolean()), exclude_linux: Type.Optional(Type.Boolean()), exclude_windows: Type.Optional(Type.Boolean()) }), response: { 200: List(FlavorSchema) } } }, async (request) =>
    instances.flavors(callerOf(request), (request.params as { project_id: number }).project_id, (request.params as { region_id: number }).region_id, request.query as { disabled?: boolean; exclude_linux?: boolean; exclude_windows?: boolean }),
  );
}
