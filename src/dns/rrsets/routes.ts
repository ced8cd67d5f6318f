// HTTP surface of RRsets: list a zone's sets; create, read, replace and delete one; its failover log.
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/auth/plugin.js';
import { ERRORS, VALIDATED } from '../common/http.js';
import { Empty } from '../zones/schemas.js';
import { FailoverLog, FailoverLogQuery, RRsetBody, RRsetList, RRsetListQuery, RRsetParams, RRsetSchema, ZoneNameParams } from './schemas.js';
import type { RRsetService } from './service.js';
import { typed } from '../../platform/typed.js';

const TAGS = ['DNS RRsets'];
const ITEM = '/dns/v2/zones/:zoneName/:rrsetName/:rrsetType';

export function rrsetRoutes(fastify: FastifyInstance, rrsets: RRsetService): void {
  const app = typed(fastify);
  app.get(
    '/dns/v2/zones/:zoneName/rrsets',
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.rrsets.list',
        tags: TAGS,
        summary: "List a zone's RRsets",
        params: ZoneNameParams,
        querystring: RRsetListQuery,
        response: { 200: RRsetList, ...ERRORS },
      },
    },
    async (request) => rrsets.list(principalOf(request), request.params.zoneName, request.query),
  );

  app.post(
    ITEM,
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.rrsets.create',
        tags: TAGS,
        summary: 'Create an RRset',
        params: RRsetParams,
        body: RRsetBody,
        response: { 200: RRsetSchema, ...ERRORS },
      },
    },
    async (request) => rrsets.create(principalOf(request), request.params, request.body),
  );

  app.get(
    ITEM,
    {
      ...VALIDATED,
      schema: { operationId: 'dns.rrsets.get', tags: TAGS, summary: 'Read an RRset', params: RRsetParams, response: { 200: RRsetSchema, ...ERRORS } },
    },
    async (request) => rrsets.get(principalOf(request), request.params),
  );

  app.put(
    ITEM,
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.rrsets.replace',
        tags: TAGS,
        summary: "Replace an RRset's records (ttl, pickers and meta when sent)",
        params: RRsetParams,
        body: RRsetBody,
        response: { 200: RRsetSchema, ...ERRORS },
      },
    },
    async (request) => rrsets.replace(principalOf(request), request.params, request.body),
  );

  app.delete(
    ITEM,
    {
      ...VALIDATED,
      schema: { operationId: 'dns.rrsets.delete', tags: TAGS, summary: 'Delete an RRset', params: RRsetParams, response: { 200: Empty, ...ERRORS } },
    },
    async (request) => rrsets.delete(principalOf(request), request.params),
  );

  app.get(
    `${ITEM}/failover/log`,
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.rrsets.failoverLog',
        tags: TAGS,
        summary: "An RRset's failover history",
        params: RRsetParams,
        querystring: FailoverLogQuery,
        response: { 200: FailoverLog, ...ERRORS },
      },
    },
    async (request) => rrsets.failoverLog(principalOf(request), request.params),
  );
}
