import type { FastifyInstance } from 'fastify';
import { PageOf } from '../../platform/pagination.js';
import { typed } from '../../platform/typed.js';
import { at, regionalRoutes } from '../common/regional-routes.js';
import { CLOUD_TAG, UuidParam } from '../common/schemas.js';
import { DevicePortList, PortIdsBody, ReservedIpCreateBody, ReservedIpListQuery, ReservedIpPatchBody, ReservedIpSchema } from './schemas.js';
import type { ReservedIpService } from './service.js';

const ItemParams = UuidParam('port_id', 'Port ID of the reserved fixed IP');

export function reservedIpRoutes(fastify: FastifyInstance, reserved: ReservedIpService): void {
  const app = typed(fastify);
  const common = { tags: [CLOUD_TAG] };
  const base = '/cloud/v1/reserved_fixed_ips/:project_id/:region_id';
  regionalRoutes(fastify, reserved, {
    base,
    idParam: 'port_id',
    itemParams: ItemParams,
    create: {
      operationId: 'cloud.reservedFixedIps.create',
      summary: 'Reserve a fixed IP: on the public network, a subnet, a network, an address of it, or an instance port (asynchronous)',
      body: ReservedIpCreateBody,
    },
    list: {
      operationId: 'cloud.reservedFixedIps.list',
      summary: 'List reserved fixed IPs',
      querystring: ReservedIpListQuery,
      response: PageOf(ReservedIpSchema),
    },
    get: { operationId: 'cloud.reservedFixedIps.get', summary: 'Get a reserved fixed IP', response: ReservedIpSchema },
    update: {
      operationId: 'cloud.reservedFixedIps.update',
      summary: 'Make a reserved fixed IP a VIP, or not',
      body: ReservedIpPatchBody,
      response: ReservedIpSchema,
    },
    delete: { operationId: 'cloud.reservedFixedIps.delete', summary: 'Delete a free reserved fixed IP (asynchronous)' },
  });
  const item = `${base}/:port_id`;
  app.get(
    `${item}/available_devices`,
    {
      schema: {
        ...common,
        operationId: 'cloud.reservedFixedIps.candidatePorts',
        summary: 'Instance ports a VIP can be shared with',
        params: ItemParams,
        response: { 200: DevicePortList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return reserved.candidates(caller, p.project_id, p.region_id, p.port_id);
    },
  );
  app.get(
    `${item}/connected_devices`,
    {
      schema: {
        ...common,
        operationId: 'cloud.reservedFixedIps.connectedPorts',
        summary: 'Instance ports a VIP is shared with',
        params: ItemParams,
        response: { 200: DevicePortList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return reserved.connected(caller, p.project_id, p.region_id, p.port_id);
    },
  );
  for (const [method, add, operationId, summary] of [
    ['PATCH', true, 'connectPorts', 'Share a VIP with more instance ports'],
    ['PUT', false, 'replaceConnectedPorts', 'Share a VIP with exactly these instance ports'],
  ] as const) {
    app.route({
      method,
      url: `${item}/connected_devices`,
      schema: {
        ...common,
        operationId: `cloud.reservedFixedIps.${operationId}`,
        summary,
        params: ItemParams,
        body: PortIdsBody,
        response: { 200: DevicePortList },
      },
      handler: async (request) => {
        const { caller, p } = at(request);
        return reserved.connect(caller, p.project_id, p.region_id, p.port_id, request.body.port_ids ?? [], add);
      },
    });
  }
}
