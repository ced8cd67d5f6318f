// HTTP surface of rule templates: the six operations of the reference and the rule-matching control
// call. Bodies are validated with `attachValidation` so that schema problems and rule problems of one
// request are reported together; the service receives the schema problems and adds its own.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { principalOf } from '../../platform/auth/plugin.js';
import { ErrorBody } from '../../platform/schema.js';
import { bodyProblems, cdnRoute, listRequest, sendList, sendWithDeprecations } from '../http.js';
import { ListQuery, MatchBody, MatchResult, RuleTemplateBody, RuleTemplateList, RuleTemplateParams, RuleTemplatePatch, RuleTemplateSchema } from './schemas.js';
import type { RuleTemplateService, TemplateResult } from './service.js';
import { typed } from '../../platform/typed.js';

const TAGS = ['CDN rule templates'];
const BASE = '/cdn/resources/rule_templates';
const ITEM = `${BASE}/:rule_template_id`;
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

const send = (reply: FastifyReply, { template, deprecations }: TemplateResult, status = 200) => sendWithDeprecations(reply, template, deprecations, status);

export function ruleTemplateRoutes(fastify: FastifyInstance, service: RuleTemplateService): void {
  const app = typed(fastify);
  app.get(
    BASE,
    cdnRoute({
      operationId: 'cdn.ruleTemplates.list',
      tags: TAGS,
      summary: 'List rule templates (own and system)',
      querystring: ListQuery,
      response: { 200: RuleTemplateList, ...errors },
    }),
    async (request, reply) => {
      const list = listRequest(request.query);
      return sendList(request, reply, list, await service.list(principalOf(request), list));
    },
  );

  app.post(
    BASE,
    cdnRoute(
      {
        operationId: 'cdn.ruleTemplates.create',
        tags: TAGS,
        summary: 'Create a rule template',
        body: RuleTemplateBody,
        response: { 201: RuleTemplateSchema, ...errors },
      },
      { attachValidation: true },
    ),
    async (request, reply) => send(reply, await service.create(principalOf(request), request.body, bodyProblems(request)), 201),
  );

  app.get(
    ITEM,
    cdnRoute({
      operationId: 'cdn.ruleTemplates.get',
      tags: TAGS,
      summary: 'Get a rule template',
      params: RuleTemplateParams,
      response: { 200: RuleTemplateSchema, ...errors },
    }),
    async (request, reply) => send(reply, await service.get(principalOf(request), request.params.rule_template_id)),
  );

  app.put(
    ITEM,
    cdnRoute(
      {
        operationId: 'cdn.ruleTemplates.replace',
        tags: TAGS,
        summary: 'Replace a rule template (omitted fields reset to defaults)',
        params: RuleTemplateParams,
        body: RuleTemplateBody,
        response: { 200: RuleTemplateSchema, ...errors },
      },
      { attachValidation: true },
    ),
    async (request, reply) => {
      const problems = bodyProblems(request);
      return send(reply, await service.replace(principalOf(request), request.params.rule_template_id, request.body, problems));
    },
  );

  app.patch(
    ITEM,
    cdnRoute(
      {
        operationId: 'cdn.ruleTemplates.update',
        tags: TAGS,
        summary: 'Change only the fields sent',
        params: RuleTemplateParams,
        body: RuleTemplatePatch,
        response: { 200: RuleTemplateSchema, ...errors },
      },
      { attachValidation: true },
    ),
    async (request, reply) => {
      const problems = bodyProblems(request);
      return send(reply, await service.update(principalOf(request), request.params.rule_template_id, request.body, problems));
    },
  );

  app.delete(
    ITEM,
    cdnRoute({
      operationId: 'cdn.ruleTemplates.delete',
      tags: TAGS,
      summary: 'Delete a rule template',
      params: RuleTemplateParams,
      response: { 204: { type: 'null', description: 'Deleted' }, ...errors },
    }),
    async (request, reply) => {
      await service.delete(principalOf(request), request.params.rule_template_id);
      return reply.status(204).send();
    },
  );

  app.post(
    '/_edgeplane/cdn/rule-templates/match',
    {
      config: { access: 'operator' },
      schema: {
        operationId: 'control.cdn.ruleTemplates.match',
        tags: ['Edgeplane control'],
        summary: 'Which rule template applies to a request URI for a client',
        body: MatchBody,
        response: { 200: MatchResult, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 422: ErrorBody },
      },
    },
    async (request) => {
      const { client_id, uri } = request.body;
      return service.match(client_id, uri);
    },
  );
}
