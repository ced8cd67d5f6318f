import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/plugin.js';
import {
  ClientParamsSchema,
  TokenCreatedSchema,
  TokenCreateSchema,
  type TokenCreate,
  TokenListQuerySchema,
  type TokenListQuery,
  TokenParamsSchema,
  TokenSchema,
} from './schemas.js';
import type { TokenFormat, TokenService } from './service.js';

type ClientParams = { clientId: number };
type TokenParams = { clientId: number; tokenId: number };

const VERSIONS: { prefix: string; format: TokenFormat; id: string }[] = [
  { prefix: '/iam/v2/clients/:clientId/tokens', format: 'v2', id: 'iam.tokens.v2' },
  { prefix: '/iam/clients/:clientId/tokens', format: 'v1', id: 'iam.tokens.v1' },
];

export function tokenRoutes(app: FastifyInstance, tokens: TokenService): void {
  for (const { prefix, format, id } of VERSIONS) {
    const tags = ['IAM'];
    const config = { onBehalf: true };

    app.get<{ Params: ClientParams; Querystring: TokenListQuery }>(
      prefix,
      {
        config,
        schema: {
          operationId: `${id}.list`,
          tags,
          summary: 'List API tokens (not paginated)',
          params: ClientParamsSchema,
          querystring: TokenListQuerySchema,
          response: { 200: Type.Array(TokenSchema) },
        },
      },
      async (request) => tokens.list(principalOf(request), request.params.clientId, request.query),
    );

    app.post<{ Params: ClientParams; Body: TokenCreate }>(
      prefix,
      {
        config,
        schema: {
          operationId: `${id}.create`,
          tags,
          summary: 'Create an API token; the secret is shown once',
          params: ClientParamsSchema,
          body: TokenCreateSchema,
          response: { 200: TokenCreatedSchema },
        },
      },
      async (request) => tokens.create(principalOf(request), request.params.clientId, request.body, format),
    );

    app.get<{ Params: TokenParams }>(
      `${prefix}/:tokenId`,
      { config, schema: { operationId: `${id}.get`, tags, summary: 'Get an API token', params: TokenParamsSchema, response: { 200: TokenSchema } } },
      async (request) => tokens.get(principalOf(request), request.params.clientId, request.params.tokenId),
    );

    app.delete<{ Params: TokenParams }>(
      `${prefix}/:tokenId`,
      { config, schema: { operationId: `${id}.delete`, tags, summary: 'Revoke an API token', params: TokenParamsSchema } },
      async (request, reply) => {
        await tokens.revoke(principalOf(request), request.params.clientId, request.params.tokenId);
        return reply.status(204).send();
      },
    );
  }
}
