import type { FastifyInstance } from 'fastify';
import { PageOf } from '../../platform/pagination.js';
import { at, regionalRoutes } from '../common/regional-routes.js';
import { CLOUD_TAG, NoBody, TaskIdList, UuidParam } from '../common/schemas.js';
import { typed } from '../../platform/typed.js';
import type { VolumeActions } from './actions.js';
import {
  AttachBody,
  DetachBody,
  ExtendBody,
  RetypeBody,
  VolumeCreateBody,
  VolumeDeleteQuery,
  VolumeListQuery,
  VolumeSchema,
  VolumeUpdateBody,
} from './schemas.js';
import type { VolumeService } from './service.js';

const base = '/cloud/v1/volumes/:project_id/:region_id';
const v2 = '/cloud/v2/volumes/:project_id/:region_id';
const ItemParams = UuidParam('volume_id', 'Volume ID');

export function volumeRoutes(fastify: FastifyInstance, volumes: VolumeService, actions: VolumeActions): void {
  regionalRoutes(fastify, volumes, {
    base,
    idParam: 'volume_id',
    itemParams: ItemParams,
    create: { operationId: 'cloud.volumes.create', summary: 'Create a volume: empty, from an image or from a snapshot (asynchronous)', body: VolumeCreateBody },
    list: { operationId: 'cloud.volumes.list', summary: 'List volumes', querystring: VolumeListQuery, response: PageOf(VolumeSchema) },
    get: { operationId: 'cloud.volumes.get', summary: 'Get a volume', response: VolumeSchema },
    update: { operationId: 'cloud.volumes.update', summary: 'Rename a volume or change its tags', body: VolumeUpdateBody, response: VolumeSchema },
    delete: { operationId: 'cloud.volumes.delete', summary: 'Delete a volume and the snapshots named with it (asynchronous)', querystring: VolumeDeleteQuery },
  });
  const app = typed(fastify);
  const common = { tags: [CLOUD_TAG], params: ItemParams };
  app.post(
    `${base}/:volume_id/attach`,
    {
      schema: {
        ...common,
        operationId: 'cloud.volumes.attachV1',
        summary: 'Attach a volume to an instance at once',
        body: AttachBody,
        response: { 200: VolumeSchema },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      const body = request.body;
      return actions.attachNow(caller, p.project_id, p.region_id, p.volume_id, body.instance_id, body.attachment_tag);
    },
  );
  app.post(
    `${base}/:volume_id/detach`,
    {
      schema: {
        ...common,
        operationId: 'cloud.volumes.detachV1',
        summary: 'Detach a volume from an instance at once',
        body: DetachBody,
        response: { 200: VolumeSchema },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return actions.detachNow(caller, p.project_id, p.region_id, p.volume_id, request.body.instance_id);
    },
  );
  app.post(
    `${v2}/:volume_id/attach`,
    {
      schema: {
        ...common,
        operationId: 'cloud.volumes.attach',
        summary: 'Attach a volume to an instance (asynchronous)',
        body: AttachBody,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      const body = request.body;
      return actions.attach(caller, p.project_id, p.region_id, p.volume_id, body.instance_id, body.attachment_tag);
    },
  );
  app.post(
    `${v2}/:volume_id/detach`,
    {
      schema: {
        ...common,
        operationId: 'cloud.volumes.detach',
        summary: 'Detach a volume from an instance (asynchronous)',
        body: DetachBody,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return actions.detach(caller, p.project_id, p.region_id, p.volume_id, request.body.instance_id);
    },
  );
  app.post(
    `${base}/:volume_id/extend`,
    { schema: { ...common, operationId: 'cloud.volumes.extend', summary: 'Grow a volume (asynchronous)', body: ExtendBody, response: { 200: TaskIdList } } },
    async (request) => {
      const { caller, p } = at(request);
      return actions.extend(caller, p.project_id, p.region_id, p.volume_id, request.body.size);
    },
  );
  app.post(
    `${base}/:volume_id/retype`,
    { schema: { ...common, operationId: 'cloud.volumes.retype', summary: 'Change the type of a volume', body: RetypeBody, response: { 200: VolumeSchema } } },
    async (request) => {
      const { caller, p } = at(request);
      return actions.retype(caller, p.project_id, p.region_id, p.volume_id, request.body.volume_type);
    },
  );
  // The reference answers with no body: the revert_volume task is found in the task list.
  app.post(
    `${base}/:volume_id/revert`,
    {
      schema: {
        ...common,
        operationId: 'cloud.volumes.revert',
        summary: 'Revert a detached volume to its newest snapshot (a task; no body)',
        response: { 200: NoBody() },
      },
    },
    async (request, reply) => {
      const { caller, p } = at(request);
      await actions.revert(caller, p.project_id, p.region_id, p.volume_id);
      return reply.code(200).send();
    },
  );
}
