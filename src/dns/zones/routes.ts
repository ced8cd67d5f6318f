// HTTP surface of zones: create, list, read, update, delete, enable and disable.
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/auth/plugin.js';
import { ERRORS, VALIDATED } from '../common/http.js';
import { CreateZoneResult, Empty, ZoneBody, ZoneDetailSchema, ZoneList, ZoneListQuery, ZoneParams } from './schemas.js';
import type { ZoneService } from './service.js';
import { typed } from '../../platform/typed.js';

const TAGS = ['DNS zones'];
const BASE = '/dns/v2/zones';
const ITEM = `${BASE}/:name`;

export function zoneRoutes(fastify: FastifyInstance, zones: ZoneService): void {
  const app = typed(fastify);
  app.get(
    BASE,
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.zones.list',
        tags: TAGS,
        summary: "List the client's zones",
        querystring: ZoneListQuery,
        response: { 200: ZoneList, ...ERRORS },
      },
    },
    async (request) => zones.list(principalOf(request), request.query),
  );

  app.post(
    BASE,
    {
      ...VALIDATED,
      schema: { operationId: 'dns.zones.create', tags: TAGS, summary: 'Create a zone', body: ZoneBody, response: { 200: CreateZoneResult, ...ERRORS } },
    },
    async (request) => zones.create(principalOf(request), request.body),
  );

  app.get(
    ITEM,
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.zones.get',
        tags: TAGS,
        summary: 'Read a zone with its records in short form',
        params: ZoneParams,
        response: { 200: ZoneDetailSchema, ...ERRORS },
      },
    },
    async (request) => zones.get(principalOf(request), request.params.name),
  );

  app.put(
    ITEM,
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.zones.update',
        tags: TAGS,
        summary: "Change a zone's SOA fields, meta or enabled flag",
        params: ZoneParams,
        body: ZoneBody,
        response: { 200: Empty, ...ERRORS },
      },
    },
    async (request) => zones.update(principalOf(request), request.params.name, request.body),
  );

  app.delete(
    ITEM,
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.zones.delete',
        tags: TAGS,
        summary: 'Delete a zone and all its records',
        params: ZoneParams,
        response: { 200: Empty, ...ERRORS },
      },
    },
    async (request) => zones.delete(principalOf(request), request.params.name),
  );

  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    app.patch(
      `${ITEM}/${verb}`,
      {
        ...VALIDATED,
        schema: {
          operationId: `dns.zones.${verb}`,
          tags: TAGS,
          summary: enabled ? 'Answer queries for the zone again' : 'Stop answering queries for the zone (it is kept)',
          params: ZoneParams,
          response: { 200: Empty, ...ERRORS },
        },
      },
      async (request) => zones.setEnabled(principalOf(request), request.params.name, enabled),
    );
  }
}
