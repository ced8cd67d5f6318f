// HTTP surface of purge, prefetch (both need the `purge` right, which the purge-only roles have) and
// the purge history.
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/auth/plugin.js';
import { ErrorBody } from '../../platform/schema.js';
import { cdnRoute, sendList, listRequest } from '../http.js';
import { PURGE_LIMITS } from '../limits.js';
import { ResourceParams } from '../resources/schemas.js';
import { PrefetchBody, PurgeBody, PurgeStatusList, PurgeStatusQuery } from './schemas.js';
import type { PurgeService } from './service.js';
import { typed } from '../../platform/typed.js';

const TAGS = ['CDN purge and prefetch'];
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
// A plain schema, not Type.Null: the answer has no body at all, and a typed reply would want a null to send.
const ACCEPTED = { 201: { type: 'null', description: 'Accepted' } };
const PURGE_ACCESS = { config: { access: 'purge' } };

export function purgeRoutes(fastify: FastifyInstance, service: PurgeService): void {
  const app = typed(fastify);
  app.post(
    '/cdn/resources/:resource_id/purge',
    cdnRoute(
      {
        operationId: 'cdn.resources.purge',
        tags: TAGS,
        summary: 'Purge cached content: by URLs, by patterns, or everything (paths: [])',
        params: ResourceParams,
        body: PurgeBody,
        response: { ...ACCEPTED, ...errors },
      },
      PURGE_ACCESS,
    ),
    async (request, reply) => {
      await service.purge(principalOf(request), request.params.resource_id, request.body);
      return reply.status(201).send();
    },
  );

  app.post(
    '/cdn/resources/:resource_id/prefetch',
    cdnRoute(
      {
        operationId: 'cdn.resources.prefetch',
        tags: TAGS,
        summary: 'Load files into the cache before they are requested',
        params: ResourceParams,
        body: PrefetchBody,
        response: { ...ACCEPTED, ...errors },
      },
      PURGE_ACCESS,
    ),
    async (request, reply) => {
      await service.prefetch(principalOf(request), request.params.resource_id, request.body);
      return reply.status(201).send();
    },
  );

  app.get(
    '/cdn/purge_statuses',
    cdnRoute({
      operationId: 'cdn.purgeStatuses.list',
      tags: TAGS,
      summary: 'Purge history, newest first',
      querystring: PurgeStatusQuery,
      response: { 200: PurgeStatusList, ...errors },
    }),
    async (request, reply) => {
      const query = request.query;
      const list = listRequest(query);
      return sendList(
        request,
        reply,
        { ...list, limit: list.limit === undefined ? undefined : Math.min(list.limit, PURGE_LIMITS.historyPage) },
        await service.history(principalOf(request), query, list),
      );
    },
  );
}
