import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/plugin.js';
import { PageOf } from '../../platform/pagination.js';
import { CLOUD_TAG, NoBody, ProjectRegionParams } from '../common/schemas.js';
import { AcknowledgeAllQuery, TaskListQuery, TaskSchema } from './schemas.js';
import type { TaskService } from './service.js';
import { typed } from '../../platform/typed.js';

const TaskParams = Type.Object({ task_id: Type.String({ minLength: 1, maxLength: 64 }) });

export function taskRoutes(fastify: FastifyInstance, tasks: TaskService): void {
  const app = typed(fastify);
  const common = { tags: [CLOUD_TAG] };
  app.get(
    '/cloud/v1/tasks',
    { schema: { ...common, operationId: 'cloud.tasks.list', summary: 'List tasks', querystring: TaskListQuery, response: { 200: PageOf(TaskSchema) } } },
    async (request) => tasks.list(principalOf(request).clientId, request.query),
  );
  app.get(
    '/cloud/v1/tasks/:task_id',
    { schema: { ...common, operationId: 'cloud.tasks.get', summary: 'Get a task', params: TaskParams, response: { 200: TaskSchema } } },
    async (request) => tasks.get(principalOf(request).clientId, request.params.task_id),
  );
  app.post(
    '/cloud/v1/tasks/:task_id/acknowledge',
    { schema: { ...common, operationId: 'cloud.tasks.acknowledge', summary: 'Acknowledge one task', params: TaskParams, response: { 200: TaskSchema } } },
    async (request) => {
      const principal = principalOf(request);
      return tasks.acknowledgeOne(principal.clientId, principal.userId, request.params.task_id);
    },
  );
  app.post(
    '/cloud/v1/tasks/acknowledge_all',
    {
      schema: {
        ...common,
        operationId: 'cloud.tasks.acknowledgeAll',
        summary: 'Acknowledge all tasks (optionally of one project and region)',
        querystring: AcknowledgeAllQuery,
        response: { 204: NoBody() },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const q = request.query;
      await tasks.acknowledgeAll(principal.clientId, principal.userId, q.project_id, q.region_id);
      return reply.code(204).send();
    },
  );
  app.post(
    '/cloud/v1/tasks/acknowledge',
    {
      schema: {
        ...common,
        operationId: 'cloud.tasks.acknowledgeMany',
        summary: 'Acknowledge several tasks by ID',
        body: Type.Object({ task_ids: Type.Optional(Type.Union([Type.Array(Type.String({ maxLength: 64 }), { maxItems: 1000 }), Type.Null()])) }),
        response: { 204: NoBody() },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      await tasks.acknowledgeMany(principal.clientId, principal.userId, request.body.task_ids ?? []);
      return reply.code(204).send();
    },
  );
  app.get(
    '/cloud/v1/tasks/:project_id/:region_id/active',
    {
      schema: {
        ...common,
        operationId: 'cloud.tasks.active',
        summary: 'Active (NEW or RUNNING) tasks of a project and region',
        params: ProjectRegionParams,
        response: { 200: PageOf(TaskSchema) },
      },
    },
    async (request) => {
      const p = request.params;
      return tasks.active(principalOf(request).clientId, p.project_id, p.region_id);
    },
  );
}
