import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/auth/plugin.js';
import { byPositiveId, existenceBy } from '../../platform/existence.js';
import { DomainCreate, DomainDetail, DomainListQuery, DomainPage, DomainParams, DomainUpdate } from './schemas.js';
import type { DomainService } from './service.js';

type WithId = { Params: { domain_id: number } };

export function domainRoutes(app: FastifyInstance, domains: DomainService): void {
  app.get<{ Querystring: DomainListQuery }>(
    '/waap/v1/domains',
    {
      schema: {
        operationId: 'waap.domains.list',
        tags: ['WAAP'],
        summary: 'Lists the WAAP domains of the client',
        querystring: DomainListQuery,
        response: { 200: DomainPage },
      },
    },
    async (request) => domains.list(principalOf(request).clientId, request.query),
  );

  app.get<WithId>(
    '/waap/v1/domains/:domain_id',
    {
      schema: { operationId: 'waap.domains.get', tags: ['WAAP'], summary: 'One WAAP domain', params: DomainParams, response: { 200: DomainDetail } },
      config: {
        exists: ({ caller }, [id]) => byPositiveId(id, (domainId) => existenceBy(() => domains.get(caller.clientId, domainId))),
      },
    },
    async (request) => domains.get(principalOf(request).clientId, request.params.domain_id),
  );

  app.patch<WithId & { Body: { status: string } }>(
    '/waap/v1/domains/:domain_id',
    {
      schema: {
        operationId: 'waap.domains.update',
        tags: ['WAAP'],
        summary: 'Switches a domain between active and monitor',
        params: DomainParams,
        body: DomainUpdate,
      },
    },
    async (request, reply) => {
      await domains.updateStatus(principalOf(request).clientId, request.params.domain_id, request.body.status);
      return reply.code(204).send();
    },
  );

  app.delete<WithId>(
    '/waap/v1/domains/:domain_id',
    { schema: { operationId: 'waap.domains.delete', tags: ['WAAP'], summary: 'Deletes a bypassed domain', params: DomainParams } },
    async (request, reply) => {
      await domains.delete(principalOf(request).clientId, request.params.domain_id);
      return reply.code(204).send();
    },
  );

  app.post<{ Body: DomainCreate }>(
    '/_edgeplane/waap/domains',
    {
      config: { access: 'operator' },
      schema: {
        operationId: 'control.waap.domains.create',
        tags: ['Edgeplane control'],
        summary: 'Creates a WAAP domain for a client, within its domain quota',
        body: DomainCreate,
        response: { 201: DomainDetail },
      },
    },
    async (request, reply) => reply.code(201).send(await domains.create(request.body)),
  );
}
