import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { callerOf } from '../../platform/auth/caller.js';
import { CLOUD_TAG, ProjectRegionParams, TaskIdList } from '../common/schemas.js';
import { ImageFromVolumeBody, ImageGetQuery, ImageListQuery, ImageSchema, ImageUpdateBody, ImageUploadBody } from './schemas.js';
import type { ImageService } from './service.js';
import { typed } from '../../platform/typed.js';

const base = '/cloud/v1/images/:project_id/:region_id';
const ItemParams = Type.Object({
  project_id: Type.Integer({ minimum: 1 }),
  region_id: Type.Integer({ minimum: 1 }),
  image_id: Type.String({ minLength: 1, maxLength: 64, description: 'Image ID' }),
});

export function imageRoutes(fastify: FastifyInstance, images: ImageService): void {
  const app = typed(fastify);
  const common = { tags: [CLOUD_TAG] };
  app.get(
    base,
    {
      schema: {
        ...common,
        operationId: 'cloud.images.list',
        summary: "List the public images of the region and the project's own",
        params: ProjectRegionParams,
        querystring: ImageListQuery,
        response: { 200: Type.Object({ count: Type.Integer({ minimum: 0 }), results: Type.Array(ImageSchema) }) },
      },
    },
    async (request) => {
      const p = request.params;
      return images.list(callerOf(request), p.project_id, p.region_id, request.query);
    },
  );
  app.post(
    base,
    {
      schema: {
        ...common,
        operationId: 'cloud.images.createFromVolume',
        summary: 'Make an image from a bootable volume (asynchronous)',
        params: ProjectRegionParams,
        body: ImageFromVolumeBody,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const p = request.params;
      return images.createFromVolume(callerOf(request), p.project_id, p.region_id, request.body);
    },
  );
  app.get(
    `${base}/:image_id`,
    {
      schema: {
        ...common,
        operationId: 'cloud.images.get',
        summary: 'Get an image',
        params: ItemParams,
        querystring: ImageGetQuery,
        response: { 200: ImageSchema },
      },
    },
    async (request) => {
      const p = request.params;
      return images.get(callerOf(request), p.project_id, p.region_id, p.image_id, request.query.include_prices);
    },
  );
  app.patch(
    `${base}/:image_id`,
    {
      schema: {
        ...common,
        operationId: 'cloud.images.update',
        summary: 'Rename a private image, change its properties or tags',
        params: ItemParams,
        body: ImageUpdateBody,
        response: { 200: ImageSchema },
      },
    },
    async (request) => {
      const p = request.params;
      return images.update(callerOf(request), p.project_id, p.region_id, p.image_id, request.body);
    },
  );
  app.delete(
    `${base}/:image_id`,
    {
      schema: {
        ...common,
        operationId: 'cloud.images.delete',
        summary: 'Delete a private image (asynchronous)',
        params: ItemParams,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const p = request.params;
      return images.delete(callerOf(request), p.project_id, p.region_id, p.image_id);
    },
  );
  app.post(
    '/cloud/v1/downloadimage/:project_id/:region_id',
    {
      schema: {
        ...common,
        operationId: 'cloud.images.upload',
        summary: 'Download an image from a URL into the project (asynchronous)',
        params: ProjectRegionParams,
        body: ImageUploadBody,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const p = request.params;
      return images.upload(callerOf(request), p.project_id, p.region_id, request.body);
    },
  );
}
