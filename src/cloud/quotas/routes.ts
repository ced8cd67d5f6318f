import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/plugin.js';
import { CLOUD_TAG } from '../common/schemas.js';
import { ClientQuotas, GlobalQuotas, QuotaLimits, QuotaLimitsBody, RegionalQuotas } from './schemas.js';
import type { QuotaService } from './service.js';
import { typed } from '../../platform/typed.js';

const ClientParam = Type.Object({ client_id: Type.Integer({ minimum: 1 }) });

export function quotaRoutes(fastify: FastifyInstance, quotas: QuotaService): void {
  const app = typed(fastify);
  const common = { tags: [CLOUD_TAG] };
  app.get(
    '/cloud/v2/client_quotas',
    { schema: { ...common, operationId: 'cloud.quotas.all', summary: 'Limits and usage of the calling client', response: { 200: ClientQuotas } } },
    async (request) => quotas.all(principalOf(request).clientId),
  );
  app.get(
    '/cloud/v2/regional_quotas/:client_id/:region_id',
    {
      schema: {
        ...common,
        operationId: 'cloud.quotas.regional',
        summary: 'Limits and usage in one region',
        params: Type.Object({ client_id: Type.Integer({ minimum: 1 }), region_id: Type.Integer({ minimum: 1 }) }),
        response: { 200: RegionalQuotas },
      },
    },
    async (request) => {
      const p = request.params;
      quotas.own(principalOf(request).clientId, p.client_id);
      return quotas.regional(p.client_id, p.region_id);
    },
  );
  app.get(
    '/cloud/v2/global_quotas/:client_id',
    {
      schema: {
        ...common,
        operationId: 'cloud.quotas.global',
        summary: 'Limits and usage that are not per region',
        params: ClientParam,
        response: { 200: GlobalQuotas },
      },
    },
    async (request) => {
      const p = request.params;
      quotas.own(principalOf(request).clientId, p.client_id);
      return quotas.global(p.client_id);
    },
  );
  // Control API: the operator sets a client's limits.
  const control = { tags: ['Edgeplane control'], config: { access: 'operator' as const } };
  app.get(
    '/_edgeplane/cloud/quotas/:client_id',
    {
      config: control.config,
      schema: {
        tags: control.tags,
        operationId: 'control.cloud.quotas.get',
        summary: 'Quota limits of a client',
        params: ClientParam,
        response: { 200: QuotaLimits },
      },
    },
    async (request) => quotas.limitsView(request.params.client_id),
  );
  app.put(
    '/_edgeplane/cloud/quotas/:client_id',
    {
      config: control.config,
      schema: {
        tags: control.tags,
        operationId: 'control.cloud.quotas.set',
        summary: 'Set quota limits of a client (per region)',
        params: ClientParam,
        body: QuotaLimitsBody,
        response: { 200: QuotaLimits },
      },
    },
    async (request) => quotas.setLimits(request.params.client_id, request.body),
  );
}
