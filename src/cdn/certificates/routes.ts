// HTTP surface of SSL certificates (/cdn/sslData, with Let's Encrypt issuing) and trusted CA
// certificates (/cdn/sslCertificates).
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/auth/plugin.js';
import { ErrorBody } from '../../platform/schema.js';
import { cdnRoute, sendList, listRequest } from '../http.js';
import type { CaService } from './ca-service.js';
import {
  CaCreate,
  CaList,
  CaParams,
  CaReplace,
  CaSchema,
  CertificateListQuery,
  CertParams,
  IssuingStatusQuery,
  IssuingStatusSchema,
  SslCreate,
  SslList,
  SslParams,
  SslReplace,
  SslSchema,
  UsageSchema,
} from './schemas.js';
import type { SslService } from './service.js';
import { typed } from '../../platform/typed.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const NO_CONTENT = { 204: { type: 'null', description: 'Deleted' } };
// A plain schema, not Type.Null: the answer has no body at all, and a typed reply would want a null to send.
const STARTED = { 201: { type: 'null', description: 'Started' } };

export function sslRoutes(fastify: FastifyInstance, service: SslService): void {
  const app = typed(fastify);
  const TAGS = ['CDN SSL certificates'];
  const BASE = '/cdn/sslData';
  const ITEM = `${BASE}/:ssl_id`;

  app.get(
    BASE,
    cdnRoute({
      operationId: 'cdn.sslCertificates.list',
      tags: TAGS,
      summary: 'List SSL certificates',
      querystring: CertificateListQuery,
      response: { 200: SslList, ...errors },
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
      operationId: 'cdn.sslCertificates.create',
      tags: TAGS,
      summary: "Upload a certificate, or ask for a Let's Encrypt one (automated: true)",
      body: SslCreate,
      response: { 201: SslSchema, ...errors },
    }),
    async (request, reply) => reply.status(201).send(await service.create(principalOf(request), request.body)),
  );
  app.get(
    ITEM,
    cdnRoute({
      operationId: 'cdn.sslCertificates.get',
      tags: TAGS,
      summary: 'Get an SSL certificate',
      params: SslParams,
      response: { 200: SslSchema, ...errors },
    }),
    async (request) => service.get(principalOf(request), request.params.ssl_id),
  );
  app.put(
    ITEM,
    cdnRoute({
      operationId: 'cdn.sslCertificates.replace',
      tags: TAGS,
      summary: 'Replace an uploaded certificate and key',
      params: SslParams,
      body: SslReplace,
      response: { 200: SslSchema, ...errors },
    }),
    async (request) => service.replace(principalOf(request), request.params.ssl_id, request.body),
  );
  app.delete(
    ITEM,
    cdnRoute({
      operationId: 'cdn.sslCertificates.delete',
      tags: TAGS,
      summary: 'Delete a certificate no resource uses',
      params: SslParams,
      response: { ...NO_CONTENT, ...errors },
    }),
    async (request, reply) => {
      await service.delete(principalOf(request), request.params.ssl_id);
      return reply.status(204).send();
    },
  );
  app.get(
    `${BASE}/:cert_id/usage`,
    cdnRoute({
      operationId: 'cdn.sslCertificates.usage',
      tags: TAGS,
      summary: 'CDN resources using a certificate',
      params: CertParams,
      response: { 200: UsageSchema, ...errors },
    }),
    async (request) => service.usageOf(principalOf(request), request.params.cert_id),
  );
  app.get(
    `${BASE}/:cert_id/status`,
    cdnRoute({
      operationId: 'cdn.sslCertificates.issuingStatus',
      tags: TAGS,
      summary: "Let's Encrypt issuing attempts",
      params: CertParams,
      querystring: IssuingStatusQuery,
      response: { 200: IssuingStatusSchema, ...errors },
    }),
    async (request) => service.status(principalOf(request), request.params.cert_id, request.query.exclude ?? []),
  );
  app.post(
    `${BASE}/:cert_id/renew`,
    cdnRoute({
      operationId: 'cdn.sslCertificates.renew',
      tags: TAGS,
      summary: "Renew a Let's Encrypt certificate",
      params: CertParams,
      response: { ...STARTED, ...errors },
    }),
    async (request, reply) => {
      await service.renew(principalOf(request), request.params.cert_id);
      return reply.status(201).send();
    },
  );
  app.post(
    `${BASE}/:cert_id/force-retry`,
    cdnRoute({
      operationId: 'cdn.sslCertificates.forceRetry',
      tags: TAGS,
      summary: "Retry a failed Let's Encrypt issuing",
      params: CertParams,
      response: { ...STARTED, ...errors, 429: ErrorBody },
    }),
    async (request, reply) => {
      await service.forceRetry(principalOf(request), request.params.cert_id);
      return reply.status(201).send();
    },
  );
}

export function caRoutes(fastify: FastifyInstance, service: CaService): void {
  const app = typed(fastify);
  const TAGS = ['CDN trusted CA certificates'];
  const BASE = '/cdn/sslCertificates';
  const ITEM = `${BASE}/:id`;

  app.get(
    BASE,
    cdnRoute({
      operationId: 'cdn.caCertificates.list',
      tags: TAGS,
      summary: 'List trusted CA certificates',
      querystring: CertificateListQuery,
      response: { 200: CaList, ...errors },
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
      operationId: 'cdn.caCertificates.create',
      tags: TAGS,
      summary: 'Add a trusted CA certificate',
      body: CaCreate,
      response: { 201: CaSchema, ...errors },
    }),
    async (request, reply) => reply.status(201).send(await service.create(principalOf(request), request.body)),
  );
  app.get(
    ITEM,
    cdnRoute({
      operationId: 'cdn.caCertificates.get',
      tags: TAGS,
      summary: 'Get a trusted CA certificate',
      params: CaParams,
      response: { 200: CaSchema, ...errors },
    }),
    async (request) => service.get(principalOf(request), request.params.id),
  );
  app.put(
    ITEM,
    cdnRoute({
      operationId: 'cdn.caCertificates.replace',
      tags: TAGS,
      summary: 'Rename a trusted CA certificate',
      params: CaParams,
      body: CaReplace,
      response: { 200: CaSchema, ...errors },
    }),
    async (request) => service.rename(principalOf(request), request.params.id, request.body.name),
  );
  app.delete(
    ITEM,
    cdnRoute({
      operationId: 'cdn.caCertificates.delete',
      tags: TAGS,
      summary: 'Delete a trusted CA certificate no resource uses',
      params: CaParams,
      response: { ...NO_CONTENT, ...errors },
    }),
    async (request, reply) => {
      await service.delete(principalOf(request), request.params.id);
      return reply.status(204).send();
    },
  );
}
