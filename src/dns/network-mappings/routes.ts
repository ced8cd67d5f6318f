// HTTP surface of network mappings: CRUD, lookup by name, and the YAML import (raw text body, in a scope
// of its own whose parser keeps the text as sent).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/plugin.js';
import { ERRORS, VALIDATED } from '../common/http.js';
import { Empty } from '../zones/schemas.js';
import { IdParams, MappingBody, MappingList, MappingListQuery, MappingSchema, NameParams } from './schemas.js';
import type { MappingService } from './service.js';
import { typed } from '../../platform/typed.js';

const TAGS = ['DNS network mappings'];
const BASE = '/dns/v2/network-mappings';

export async function mappingRoutes(fastify: FastifyInstance, mappings: MappingService): Promise<void> {
  const app = typed(fastify);
  app.get(
    BASE,
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.networkMappings.list',
        tags: TAGS,
        summary: "List the client's network mappings",
        querystring: MappingListQuery,
        response: { 200: MappingList, ...ERRORS },
      },
    },
    async (request) => mappings.list(principalOf(request), request.query),
  );

  app.post(
    BASE,
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.networkMappings.create',
        tags: TAGS,
        summary: 'Create a network mapping',
        body: MappingBody,
        response: { 200: Type.Object({ id: Type.Integer() }), ...ERRORS },
      },
    },
    async (request) => mappings.create(principalOf(request), request.body),
  );

  app.get(
    `${BASE}/by-name/:name`,
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.networkMappings.getByName',
        tags: TAGS,
        summary: 'Read a network mapping by name',
        params: NameParams,
        response: { 200: MappingSchema, ...ERRORS },
      },
    },
    async (request) => mappings.getByName(principalOf(request), request.params.name),
  );

  app.get(
    `${BASE}/:id`,
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.networkMappings.get',
        tags: TAGS,
        summary: 'Read a network mapping',
        params: IdParams,
        response: { 200: MappingSchema, ...ERRORS },
      },
    },
    async (request) => mappings.get(principalOf(request), request.params.id),
  );

  app.put(
    `${BASE}/:id`,
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.networkMappings.update',
        tags: TAGS,
        summary: 'Change a network mapping (fields sent)',
        params: IdParams,
        body: MappingBody,
        response: { 200: Empty, ...ERRORS },
      },
    },
    async (request) => mappings.update(principalOf(request), request.params.id, request.body),
  );

  app.delete(
    `${BASE}/:id`,
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.networkMappings.delete',
        tags: TAGS,
        summary: 'Delete a network mapping',
        params: IdParams,
        response: { 200: Empty, ...ERRORS },
      },
    },
    async (request) => mappings.delete(principalOf(request), request.params.id),
  );

  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    typed(scope).post(
      `${BASE}/import`,
      {
        ...VALIDATED,
        schema: {
          operationId: 'dns.networkMappings.import',
          tags: TAGS,
          summary: 'Create or replace network mappings from YAML documents',
          response: { 200: Type.Object({ success: Type.Boolean() }), ...ERRORS },
        },
      },
      async (request) => mappings.import(principalOf(request), typeof request.body === 'string' ? request.body : undefined),
    );
  });
}
