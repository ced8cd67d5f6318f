import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/auth/plugin.js';
import { ClientInfo, ClientParams, ClientSettings } from './schemas.js';
import type { WaapAccountService } from './service.js';

export function accountRoutes(app: FastifyInstance, accounts: WaapAccountService): void {
  app.get(
    '/waap/v1/clients/me',
    {
      schema: {
        operationId: 'waap.account.get',
        tags: ['WAAP'],
        summary: 'WAAP service details of the calling client: service state, features and quotas',
        response: { 200: ClientInfo },
      },
    },
    async (request) => accounts.overview(principalOf(request).clientId),
  );

  app.put<{ Params: { client_id: number }; Body: ClientSettings }>(
    '/_edgeplane/waap/clients/:client_id',
    {
      config: { access: 'operator' },
      schema: {
        operationId: 'control.waap.clients.configure',
        tags: ['Edgeplane control'],
        summary: "Sets a client's WAAP service state, features and domain quota",
        params: ClientParams,
        body: ClientSettings,
        response: { 200: ClientInfo },
      },
    },
    async (request) => accounts.configure(request.params.client_id, request.body),
  );
}
