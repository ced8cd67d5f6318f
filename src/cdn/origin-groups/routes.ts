// HTTP surface of origin groups: the six operations of the reference.
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/auth/plugin.js';
import { ErrorBody } from '../../platform/schema.js';
import { cdnRoute, sendList, listRequest } from '../http.js';
import {
  OriginGroupCreate,
  OriginGroupList,
  OriginGroupListQuery,
  OriginGroupParams,
  OriginGroupPatch,
  OriginGroupReplace,
  OriginGroupSchema,
} from './schemas.js';
import type { OriginGroupService } from './service.js';
import { typed } from '../../platform/typed.js';

const TAGS = ['CDN origin groups'];
const BASE = '/cdn/origin_groups';
const ITEM = `${BASE}/:origin_group_id`;
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

export function originGroupRoutes(fastify: FastifyInstance, service: OriginGroupService): void {
  const app = typed(fastify);
  app.get(
    BASE,
    cdnRoute({
      operationId: 'cdn.originGroups.list',
      tags: TAGS,
      summary: 'List origin groups',
      querystring: OriginGroupListQuery,
      response: { 200: OriginGroupList, ...errors },
    }),
    async (request, reply) => {
      const query = request.query;
      const list = listRequest(query);
      return sendList(request, reply, list, await service.list(principalOf(request), query, list));
    },
  );

  app.post(
    BASE,
    cdnRoute({
      operationId: 'cdn.originGroups.create',
      tags: TAGS,
      summary: 'Create an origin group',
      body: OriginGroupCreate,
      response: { 201: OriginGroupSchema, ...errors },
    }),
    async (request, reply) => reply.status(201).send(await service.create(principalOf(request), request.body)),
  );

  app.get(
    ITEM,
    cdnRoute({
      operationId: 'cdn.originGroups.get',
      tags: TAGS,
      summary: 'Get an origin group',
      params: OriginGroupParams,
      response: { 200: OriginGroupSchema, ...errors },
    }),
    async (request) => service.get(principalOf(request), request.params.origin_group_id),
  );

  app.put(
    ITEM,
    cdnRoute({
      operationId: 'cdn.originGroups.replace',
      tags: TAGS,
      summary: 'Replace an origin group',
      params: OriginGroupParams,
      body: OriginGroupReplace,
      response: { 200: OriginGroupSchema, ...errors },
    }),
    async (request) => service.replace(principalOf(request), request.params.origin_group_id, request.body),
  );

  app.patch(
    ITEM,
    cdnRoute({
      operationId: 'cdn.originGroups.update',
      tags: TAGS,
      summary: 'Change only the fields sent',
      params: OriginGroupParams,
      body: OriginGroupPatch,
      response: { 200: OriginGroupSchema, ...errors },
    }),
    async (request) => service.update(principalOf(request), request.params.origin_group_id, request.body),
  );

  app.delete(
    ITEM,
    cdnRoute({
      operationId: 'cdn.originGroups.delete',
      tags: TAGS,
      summary: 'Delete an origin group no resource or rule uses',
      params: OriginGroupParams,
      response: { 204: { type: 'null', description: 'Deleted' }, ...errors },
    }),
    async (request, reply) => {
      await service.delete(principalOf(request), request.params.origin_group_id);
      return reply.status(204).send();
    },
  );
}
