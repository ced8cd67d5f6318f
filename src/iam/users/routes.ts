import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/auth/plugin.js';
import { ErrorBody } from '../../platform/schema.js';
import {
  FullUserSchema,
  UserDetailSchema,
  type UserListQuery,
  UserListQuerySchema,
  UserPageSchema,
  UserParamsSchema,
  type UserPatch,
  UserPatchSchema,
} from './schemas.js';
import type { UserService } from './service.js';

const tags = ['IAM'];
type Params = { userId: number };

export function userRoutes(app: FastifyInstance, users: UserService): void {
  app.get<{ Querystring: UserListQuery }>(
    '/iam/users',
    {
      schema: {
        operationId: 'iam.users.list',
        tags,
        summary: "The account's users (all of them unless limit is given)",
        querystring: UserListQuerySchema,
        response: { 200: UserPageSchema },
      },
    },
    async (request) => users.list(principalOf(request), request.query),
  );

  app.get<{ Params: Params }>(
    '/iam/users/:userId',
    {
      schema: {
        operationId: 'iam.users.get',
        tags,
        summary: 'One user of the account',
        params: UserParamsSchema,
        response: { 200: UserDetailSchema, 404: ErrorBody },
      },
    },
    async (request) => users.get(principalOf(request), request.params.userId),
  );

  app.patch<{ Params: Params; Body: UserPatch }>(
    '/iam/users/:userId',
    {
      // A token that may write may change its own user's details; the service keeps other users and
      // groups to administrators. Read-only and purge-only tokens change nothing (the role table).
      config: { access: 'write' },
      schema: {
        operationId: 'iam.users.update',
        tags,
        summary: "Change a user's details (administrators: any user, and groups)",
        params: UserParamsSchema,
        body: UserPatchSchema,
        response: { 200: FullUserSchema, 400: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (request) => users.update(principalOf(request), request.params.userId, request.body),
  );
}
