import type { FastifyInstance } from 'fastify';
import { PageOf } from '../../platform/pagination.js';
import { callerOf } from '../../platform/auth/caller.js';
import { CLOUD_TAG, NoBody } from '../common/schemas.js';
import { typed } from '../../platform/typed.js';
import { CreatedSshKeySchema, ProjectParams, SshKeyCreateBody, SshKeyListQuery, SshKeyParams, SshKeySchema, SshKeyUpdateBody } from './schemas.js';
import type { SshKeyService } from './service.js';

const base = '/cloud/v1/ssh_keys/:project_id';

export function sshKeyRoutes(fastify: FastifyInstance, keys: SshKeyService): void {
  const app = typed(fastify);
  const common = { tags: [CLOUD_TAG] };
  app.post(
    base,
    {
      schema: {
        ...common,
        operationId: 'cloud.sshKeys.create',
        summary: 'Add a public key, or generate a key pair (the private key is shown once)',
        params: ProjectParams,
        body: SshKeyCreateBody,
        response: { 201: CreatedSshKeySchema },
      },
    },
    async (request, reply) => {
      const p = request.params;
      return reply.code(201).send(await keys.create(callerOf(request), p.project_id, request.body));
    },
  );
  app.get(
    base,
    {
      schema: {
        ...common,
        operationId: 'cloud.sshKeys.list',
        summary: 'List the SSH keys the caller sees in a project',
        params: ProjectParams,
        querystring: SshKeyListQuery,
        response: { 200: PageOf(SshKeySchema) },
      },
    },
    async (request) => {
      const p = request.params;
      return keys.list(callerOf(request), p.project_id, request.query);
    },
  );
  app.get(
    `${base}/:ssh_key_id`,
    { schema: { ...common, operationId: 'cloud.sshKeys.get', summary: 'Get an SSH key', params: SshKeyParams, response: { 200: SshKeySchema } } },
    async (request) => {
      const p = request.params;
      return keys.get(callerOf(request), p.project_id, p.ssh_key_id);
    },
  );
  app.patch(
    `${base}/:ssh_key_id`,
    {
      schema: {
        ...common,
        operationId: 'cloud.sshKeys.update',
        summary: 'Share an SSH key with the project, or stop sharing it',
        params: SshKeyParams,
        body: SshKeyUpdateBody,
        response: { 200: SshKeySchema },
      },
    },
    async (request) => {
      const p = request.params;
      return keys.share(callerOf(request), p.project_id, p.ssh_key_id, request.body.shared_in_project);
    },
  );
  app.delete(
    `${base}/:ssh_key_id`,
    { schema: { ...common, operationId: 'cloud.sshKeys.delete', summary: 'Delete an SSH key', params: SshKeyParams, response: { 204: NoBody() } } },
    async (request, reply) => {
      const p = request.params;
      await keys.delete(callerOf(request), p.project_id, p.ssh_key_id);
      return reply.code(204).send();
    },
  );
}
