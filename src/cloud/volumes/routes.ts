import type { FastifyInstance } from 'fastify';
import { PageOf } from '../../platform/pagination.js';
import { callerOf } from '../common/operations.js';
import { regionalRoutes } from '../common/regional-routes.js';
import { CLOUD_TAG, UuidParam } from '../common/schemas.js';
import { AttachBody, DetachBody, VolumeCreateBody, VolumeListQuery, VolumeSchema } from './schemas.js';
import type { VolumeService } from './service.js';

const base = '/cloud/v1/volumes/:project_id/:region_id';
const ItemParams = UuidParam('volume_id', 'Volume ID');
type P = { project_id: number; region_id: number; volume_id: string };

export function volumeRoutes(app: FastifyInstance, volumes: VolumeService): void {
  regionalRoutes(app, volumes, {
    base,
    idParam: 'volume_id',
    itemParams: ItemParams,
    create: { operationId: 'cloud.volumes.create', summary: 'Create a volume (asynchronous)', body: VolumeCreateBody },
    list: { operationId: 'cloud.volumes.list', summary: 'List volumes', querystring: VolumeListQuery, response: PageOf(VolumeSchema) },
    get: { operationId: 'cloud.volumes.get', summary: 'Get a volume', response: VolumeSchema },
    delete: { operationId: 'cloud.volumes.delete', summary: 'Delete a volume (asynchronous)' },
  });
  const common = { tags: [CLOUD_TAG] };
  app.post(`${base}/:volume_id/attach`, { schema: { ...common, operationId: 'cloud.volumes.attach', summary: 'Attach a volume to an instance', params: ItemParams, body: AttachBody, response: { 200: VolumeSchema } } }, async (request) => {
    const p = request.params as P;
    return volumes.attach(callerOf(request), p.project_id, p.region_id, p.volume_id, (request.body as { instance_id: string }).instance_id);
  });
  app.post(`${base}/:volume_id/detach`, { schema: { ...common, operationId: 'cloud.volumes.detach', summary: 'Detach a volume from an instance', params: ItemParams, body: DetachBody, response: { 200: VolumeSchema } } }, async (request) => {
    const p = request.params as P;
    return volumes.detach(callerOf(request), p.project_id, p.region_id, p.volume_id, (request.body as { instance_id: string }).instance_id);
  });
}
