import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/auth/plugin.js';
import { PageOf } from '../../platform/pagination.js';
import { callerOf } from '../../platform/auth/caller.js';
import { CLOUD_TAG, TaskIdList } from '../common/schemas.js';
import { ProjectCreateBody, ProjectListQuery, ProjectParams, ProjectSchema, ProjectUpdateBody } from './schemas.js';
import type { ProjectService } from './service.js';
import { typed } from '../../platform/typed.js';
import { byPositiveId } from '../../platform/existence.js';

export function projectRoutes(fastify: FastifyInstance, projects: ProjectService): void {
  const app = typed(fastify);
  const common = { tags: [CLOUD_TAG] };
  app.get(
    '/cloud/v1/projects',
    {
      schema: {
        ...common,
        operationId: 'cloud.projects.list',
        summary: 'List projects',
        querystring: ProjectListQuery,
        response: { 200: PageOf(ProjectSchema) },
      },
    },
    async (request) => projects.list(principalOf(request).clientId, request.query),
  );
  app.post(
    '/cloud/v1/projects',
    { schema: { ...common, operationId: 'cloud.projects.create', summary: 'Create a project', body: ProjectCreateBody, response: { 201: ProjectSchema } } },
    async (request, reply) => reply.code(201).send(await projects.create(principalOf(request).clientId, request.body)),
  );
  app.get(
    '/cloud/v1/projects/:project_id',
    {
      schema: { ...common, operationId: 'cloud.projects.get', summary: 'Get a project', params: ProjectParams, response: { 200: ProjectSchema } },
      config: { exists: ({ caller }, [id]) => byPositiveId(id, (projectId) => projects.exists(caller.clientId, projectId)) },
    },
    async (request) => projects.get(principalOf(request).clientId, request.params.project_id),
  );
  // Older clients replace with PUT; it behaves like PATCH.
  for (const [method, operationId, summary] of [
    ['PATCH', 'cloud.projects.update', 'Update a project'],
    ['PUT', 'cloud.projects.replace', 'Update a project (older clients)'],
  ] as const) {
    app.route({
      method,
      url: '/cloud/v1/projects/:project_id',
      schema: { ...common, operationId, summary, params: ProjectParams, body: ProjectUpdateBody, response: { 200: ProjectSchema } },
      handler: async (request) => projects.update(principalOf(request).clientId, request.params.project_id, request.body),
    });
  }
  app.delete(
    '/cloud/v1/projects/:project_id',
    {
      schema: {
        ...common,
        operationId: 'cloud.projects.delete',
        summary: 'Delete a project and everything in it (asynchronous)',
        params: ProjectParams,
        response: { 200: TaskIdList },
      },
    },
    async (request) => projects.delete(callerOf(request), request.params.project_id),
  );
}
