import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { PageOf } from '../../platform/pagination.js';
import { CLOUD_TAG } from '../common/schemas.js';
import { RegionListQuery, RegionSchema } from './schemas.js';
import type { RegionService } from './service.js';
import { typed } from '../../platform/typed.js';
import { byPositiveId } from '../../platform/existence.js';

export function regionRoutes(fastify: FastifyInstance, regions: RegionService): void {
  const app = typed(fastify);
  app.get(
    '/cloud/v1/regions',
    {
      schema: {
        operationId: 'cloud.regions.list',
        tags: [CLOUD_TAG],
        summary: 'List regions',
        querystring: RegionListQuery,
        response: { 200: PageOf(RegionSchema) },
      },
    },
    async (request) => regions.list(request.query),
  );
  app.get(
    '/cloud/v1/regions/:region_id',
    {
      schema: {
        operationId: 'cloud.regions.get',
        tags: [CLOUD_TAG],
        summary: 'Get a region',
        params: Type.Object({ region_id: Type.Integer({ minimum: 1 }) }),
        querystring: Type.Object({ show_volume_types: Type.Optional(Type.Boolean()) }),
        response: { 200: RegionSchema },
      },
      config: { exists: (_asker, [id]) => byPositiveId(id, (regionId) => regions.exists(regionId)) },
    },
    async (request) => regions.get(request.params.region_id),
  );
}
