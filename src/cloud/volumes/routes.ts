import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { PageOf } from '../../platform/pagination.js';
import { callerOf } from '../../platform/auth/caller.js';
import { regionalRoutes } from '../common/regional-routes.js';
import { CLOUD_TAG, TaskIdList, UuidParam } from '../common/schemas.js';
import type { VolumeActions } from './actions.js';
import { AttachBody, DetachBody, ExtendBody, RetypeBody, VolumeCreateBody, VolumeDeleteQuery, VolumeListQuery, VolumeSchema, VolumeUpdateBody } from './schemas.js';
import type { VolumeService } from './service.js';

const base = '/cloud/v1/volumes/:project_id/:region_id';
const v2 = '/cloud/v2/volumes/:project_id/:region_id';
const ItemParams = UuidParam('volume_id', 'Volume ID');
type P = { project_id: number; region_id: number; volume_id: string };
type Instance = { instance_id: string; attachment_tag?: string };

export function volumeRoutes(app: FastifyInstance, volumes: VolumeService, actions: VolumeActions): void {
  regionalRoutes(app, volumes, {
    base,
    idParam: 'volume_id',
    itemParams: ItemParams,
    create: { operationId: 'cloud.volumes.create', summary: 'Create a volume: empty, from an image or from a snapshot (asynchronous)', body: VolumeCreateBody },
    list: { operationId: 'cloud.volumes.list', summary: 'List volumes', querystring: VolumeListQuery, response: PageOf(VolumeSchema) },
    get: { operationId: 'cloud.volumes.get', summary: 'Get a volume', response: VolumeSchema },
    update: { operationId: 'cloud.volumes.update', summary: 'Rename a volume or change its tags', body: VolumeUpdateBody, response: VolumeSchema },
    delete: { operationId: 'cloud.volumes.delete', summary: 'Delete a volume and the snapshots named with it (asynchronous)', querystring: VolumeDeleteQuery },
  });
  const common = { tags: [CLOUD_TAG], params: ItemParams };
  const at = (request: FastifyRequest) => ({ caller: callerOf(request), p: request.params as P });
  app.post(`${base}/:volume_id/attach`, { schema: { ...common, operationId: 'cloud.volumes.attachV1', summary: 'Attach a volume to an instance at once', body: AttachBody, response: { 200: VolumeSchema } } }, async (request) => {
    const { caller, p } = at(request);
    const body = request.body as Instance;
    return actions.attachNow(caller, p.project_id, p.region_id, p.volume_id, body.instance_id, body.attachment_tag);
  });
  app.post(`${base}/:volume_id/detach`, { schema: { ...common, operationId: 'cloud.volumes.detachV1', summary: 'Detach a volume from an instance at once', body: DetachBody, response: { 200: VolumeSchema } } }, async (request) => {
    const { caller, p } = at(request);
    return actions.detachNow(caller, p.project_id, p.region_id, p.volume_id, (request.body as Instance).instance_id);
  });
  app.post(`${v2}/:volume_id/attach`, { schema: { ...common, operationId: 'cloud.volumes.attach', summary: 'Attach a volume to an instance (asynchronous)', body: AttachBody, response: { 200: TaskIdList } } }, async (request) => {
    const { caller, p } = at(request);
    const body = request.body as Instance;
    return actions.attach(caller, p.project_id, p.region_id, p.volume_id, body.instance_id, body.attachment_tag);
  });
  app.post(`${v2}/:volume_id/detach`, { schema: { ...common, operationId: 'cloud.volumes.detach', summary: 'Detach a volume from an instance (asynchronous)', body: DetachBody, response: { 200: TaskIdList } } }, async (request) => {
    const { caller, p } = at(request);
    return actions.detach(caller, p.project_id, p.region_id, p.volume_id, (request.body as Instance).instance_id);
  });
  app.post(`${base}/:volume_id/extend`, { schema: { ...common, operationId: 'cloud.volumes.extend', summary: 'Grow a volume (asynchronous)', body: ExtendBody, response: { 200: TaskIdList } } }, async (request) => {
    const { caller, p } = at(request);
    return actions.extend(caller, p.project_id, p.region_id, p.volume_id, (request.body as { size: number }).size);
  });
  app.post(`${base}/:volume_id/retype`, { schema: { ...common, operationId: 'cloud.volumes.retype', summary: 'Change the type of a volume', body: RetypeBody, response: { 200: VolumeSchema } } }, async (request) => {
    const { caller, p } = at(request);
    return actions.retype(caller, p.project_id, p.region_id, p.volume_id, (request.body as { volume_type: string }).volume_type);
  });
  // The reference answers with no body: the revert_volume task is found in the task list.
  app.post(`${base}/:volume_id/revert`, { schema: { ...common, operationId: 'cloud.volumes.revert', summary: 'Revert a detached volume to its newest snapshot (a task; no body)', response: { 200: Type.Null() } } }, async (request, reply) => {
    const { caller, p } = at(request);
    await actions.revert(caller, p.project_id, p.region_id, p.volume_id);
    return reply.code(200).send();
  });
}
