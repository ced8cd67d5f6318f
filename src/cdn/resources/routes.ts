// HTTP surface of CDN resources: the reference's operations on /cdn/resources (one PATCH route also
// serves the reference's Let's Encrypt issue and revoke calls, which are PATCHes of sslData and
// sslEnabled on the same path), origin shielding, and the shielding locations.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { principalOf } from '../../platform/auth/plugin.js';
import { ErrorBody } from '../../platform/schema.js';
import { PageQuery, cdnRoute, listRequest, pageOf, sendList, sendWithDeprecations } from '../http.js';
import { Type } from 'typebox';
import {
  ResourceCreate,
  ResourceList,
  ResourceListQuery,
  ResourceParams,
  ResourcePatch,
  ResourceReplace,
  ResourceSchema,
  ShieldingLocationList,
  ShieldingSchema,
} from './schemas.js';
import type { ResourceResult, ResourceService } from './service.js';
import { SHIELDING_LOCATIONS } from './shielding.js';
import { typed } from '../../platform/typed.js';

const TAGS = ['CDN resources'];
const BASE = '/cdn/resources';
const ITEM = `${BASE}/:resource_id`;
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

const send = (reply: FastifyReply, { resource, deprecations }: ResourceResult, status = 200) => sendWithDeprecations(reply, resource, deprecations, status);

export function resourceRoutes(fastify: FastifyInstance, service: ResourceService): void {
  const app = typed(fastify);
  app.get(
    BASE,
    cdnRoute({
      operationId: 'cdn.resources.list',
      tags: TAGS,
      summary: 'List CDN resources',
      querystring: ResourceListQuery,
      response: { 200: ResourceList, ...errors },
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
      operationId: 'cdn.resources.create',
      tags: TAGS,
      summary: 'Create a CDN resource',
      body: ResourceCreate,
      response: { 201: ResourceSchema, ...errors },
    }),
    async (request, reply) => send(reply, await service.create(principalOf(request), request.body), 201),
  );

  app.get(
    ITEM,
    cdnRoute({
      operationId: 'cdn.resources.get',
      tags: TAGS,
      summary: 'Get a CDN resource',
      params: ResourceParams,
      response: { 200: ResourceSchema, ...errors },
    }),
    async (request, reply) => send(reply, await service.get(principalOf(request), request.params.resource_id)),
  );

  app.put(
    ITEM,
    cdnRoute({
      operationId: 'cdn.resources.replace',
      tags: TAGS,
      summary: 'Replace a CDN resource (omitted fields reset to defaults)',
      params: ResourceParams,
      body: ResourceReplace,
      response: { 200: ResourceSchema, ...errors },
    }),
    async (request, reply) => send(reply, await service.replace(principalOf(request), request.params.resource_id, request.body)),
  );

  app.patch(
    ITEM,
    cdnRoute({
      operationId: 'cdn.resources.update',
      tags: TAGS,
      summary: "Change only the fields sent (also: attach or detach a Let's Encrypt certificate with sslData and sslEnabled)",
      params: ResourceParams,
      body: ResourcePatch,
      response: { 200: ResourceSchema, ...errors },
    }),
    async (request, reply) => send(reply, await service.update(principalOf(request), request.params.resource_id, request.body)),
  );

  app.delete(
    ITEM,
    cdnRoute({
      operationId: 'cdn.resources.delete',
      tags: TAGS,
      summary: 'Delete an inactive CDN resource',
      params: ResourceParams,
      response: { 204: { type: 'null', description: 'Deleted' }, ...errors },
    }),
    async (request, reply) => {
      await service.delete(principalOf(request), request.params.resource_id);
      return reply.status(204).send();
    },
  );

  app.get(
    `${ITEM}/shielding_v2`,
    cdnRoute({
      operationId: 'cdn.resources.shielding.get',
      tags: TAGS,
      summary: 'Origin shielding of a resource',
      params: ResourceParams,
      response: { 200: ShieldingSchema, ...errors },
    }),
    async (request) => service.shielding(principalOf(request), request.params.resource_id),
  );

  app.put(
    `${ITEM}/shielding_v2`,
    cdnRoute({
      operationId: 'cdn.resources.shielding.replace',
      tags: TAGS,
      summary: 'Turn origin shielding on (a location ID) or off (null)',
      params: ResourceParams,
      body: ShieldingSchema,
      response: { 200: ShieldingSchema, ...errors },
    }),
    async (request) => service.setShielding(principalOf(request), request.params.resource_id, request.body.shielding_pop),
  );

  app.post(
    `${ITEM}/ssl/le/pre-validate`,
    cdnRoute({
      operationId: 'cdn.resources.letsEncryptPreValidate',
      tags: TAGS,
      summary: "Whether a Let's Encrypt certificate can be issued for the resource now",
      params: ResourceParams,
      response: { 201: { type: 'null', description: 'It can' }, ...errors },
    }),
    async (request, reply) => {
      await service.preValidate(principalOf(request), request.params.resource_id);
      return reply.status(201).send();
    },
  );

  app.get(
    `${ITEM}/preset`,
    cdnRoute({
      operationId: 'cdn.resources.appliedPreset',
      tags: TAGS,
      summary: 'The preset applied to the resource (presets are not applied here: always 404)',
      params: ResourceParams,
      response: errors,
    }),
    async (request) => service.appliedPreset(principalOf(request), request.params.resource_id),
  );

  app.get(
    '/cdn/shieldingpop_v2',
    cdnRoute({
      operationId: 'cdn.shieldingLocations.list',
      tags: TAGS,
      summary: 'Origin shielding locations',
      querystring: Type.Object(PageQuery),
      response: { 200: ShieldingLocationList, ...errors },
    }),
    async (request, reply) => {
      const list = listRequest(request.query);
      return sendList(request, reply, list, pageOf([...SHIELDING_LOCATIONS], list));
    },
  );
}
