import type { FastifyInstance } from 'fastify';
import { PageOf } from '../../platform/pagination.js';
import { callerOf } from '../common/operations.js';
import { CLOUD_TAG, ProjectRegionParams, TaskIdList, UuidParam } from '../common/schemas.js';
import { AttachBody, DetachBody, VolumeCreateBody, VolumeListQuery, VolumeSchema } from './schemas.js';
import type { VolumeService } from './service.js';

const base = '/cloud/v1/volumes/:project_id/:region_id';
const ItemParams = UuidParam('volume_id', 'Volume ID');
type P = { project_id: number; region_id: number; volume_id: string };

export function volumeRoutes(app: FastifyInstance, volumes: VolumeService): void {
  const common = { tags: [CLOUD_TAG] };
  app.post(base, { schema: { ...common, operationId: 'cloud.volumes.create', summary: 'Create a volume (asynchronous)', params: ProjectRegionParams, body: VolumeCreateBody, response: { 200: TaskIdList } } }, async (request) => {
    const p = request.params as P;
    return volumes.create(callerOf(request), p.project_id, p.region_id, request.body as never);
  });
  app.get(base, { schema: { ...common, operationId: 'cloud.volumes.list', summary: 'List volumes', params: ProjectRegionParams, querystring: VolumeListQuery, response: { 200: PageOf(VolumeSchema) } } }, async (request) => {
    const p = request.params as P;
    return volumes.list(callerOf(request), p.project_id, p.region_id, request.query as never);
  });
  app.get(`${base}/:volume_id`, { schema: { ...common, operationId: 'cloud.volumes.get', summary: 'Get a volume', params: ItemParams, response: { 200: VolumeSchema } } }, async (request) => {
    const p = request.params as P;
    return volumes.get(callerOf(request), p.project_id, p.region_id, p.volume_id);
  });
  app.delete(`${base}/:volume_id`, { schema: { ...common, operationId: 'cloud.volumes.delete', summary: 'Delete a volume (asynchronous)', params: ItemParams, response: { 200: TaskIdList } } }, async (request) => {
    const p = request.params as P;
    return volumes.delete(callerOf(request), p.project_id, p.region_id, p.volume_id);
  });
  app.post(`${base}/:volume_id/attach`, { schema: { ...common, operationId: 'cloud.volumes.attach', summary: 'Attach a volume to an instance', params: ItemParams, body: AttachBody, response: { 200: VolumeSchema } } }, async (request) => {
    const p = request.params as P;
    return volumes.attach(callerOf(request), p.project_id, p.region_id, p.volume_id, (request.body as { instance_id: string }).instance_id);
  });
  app.post(`${base}/:volume_id/detach`, { schema: { ...common, operationId: 'cloud.volumes.detach', summary: 'Detach a volume from an instance', params: ItemParams, body: DetachBody, response: { 200: VolumeSchema } } }, async (request) => {
    const p = request.params as P;
    return volumes.detach(callerOf(request), p.project_id, p.region_id, p.volume_id, (request.body as { instance_id: string }).instance_id);
  });
}
