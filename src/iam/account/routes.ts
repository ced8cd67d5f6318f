import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/auth/plugin.js';
import { AccountSchema } from './schemas.js';
import type { AccountService } from './service.js';

export function accountRoutes(app: FastifyInstance, accounts: AccountService): void {
  app.get(
    '/iam/clients/me',
    {
      config: { access: 'account' },
      schema: {
        operationId: 'iam.account.get',
        tags: ['IAM'],
        summary: 'Account details of the calling token; a 200 confirms the token is valid',
        response: { 200: AccountSchema },
      },
    },
    async (request) => accounts.overview(principalOf(request)),
  );
}
