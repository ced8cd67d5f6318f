// HTTP surface of rule templates: the six operations of the reference and the rule-matching control
// call. Bodies are validated with `attachValidation` so that schema problems and rule problems of one
// request are reported together; the service receives the schema problems and adds its own.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { principalOf } from '../../platform/auth/plugin.js';
import type { FieldError } from '../../platform/errors.js';
import { ErrorBody } from '../../platform/schema.js';
import { fromFastifyValidation } from '../../platform/validation.js';
import {
  ListQuery,
  MatchBody,
  MatchResult,
  RuleTemplateBody,
  RuleTemplateList,
  RuleTemplateParams,
  RuleTemplatePatch,
  RuleTemplateSchema,
} from './schemas.js';
import type { RuleTemplateService, TemplateResult } from './service.js';

const TAGS = ['CDN rule templates'];
const BASE = '/cdn/resources/rule_templates';
const ITEM = `${BASE}/:rule_template_id`;
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody };

type Params = { rule_template_id: number };

/** Body problems found by the schema; problems anywhere else (path, query) are answered at once. */
function bodyProblems(request: FastifyRequest): FieldError[] {
  const error = request.validationError as (Error & { validation?: unknown[]; validationContext?: string }) | undefined;
  if (!error) return [];
  const appError = fromFastifyValidation((error.validation ?? []) as never, error.validationContext);
  if (error.validationContext !== 'body') throw appError;
  return appError.fields;
}

/** Deprecated features in use are named, with their replacements, in the Deprecation header. */
function send(reply: FastifyReply, { template, deprecations }: TemplateResult, status = 200) {
  if (deprecations.length > 0) reply.header('deprecation', deprecations.join(', '));
  return reply.status(status).send(template);
}

function pageUrl(request: FastifyRequest, limit: number, offset: number): string {
  return `${request.protocol}://${request.host}${BASE}?limit=${limit}&offset=${offset}`;
}

export function ruleTemplateRoutes(app: FastifyInstance, service: RuleTemplateService): void {
  app.get(
    BASE,
    { schema: { operationId: 'cdn.ruleTemplates.list', tags: TAGS, summary: 'List rule templates (own and system)', querystring: ListQuery, response: { 200: RuleTemplateList, ...errors } } },
    async (request) => {
      const { limit, offset } = request.query as { limit: number; offset: number };
      const page = await service.list(principalOf(request), { limit, offset });
      const next = offset + page.results.length < page.count ? pageUrl(request, limit, offset + limit) : null;
      const previous = offset > 0 ? pageUrl(request, limit, Math.max(0, offset - limit)) : null;
      return { count: page.count, next, previous, results: page.results };
    },
  );

  app.post(
    BASE,
    { attachValidation: true, schema: { operationId: 'cdn.ruleTemplates.create', tags: TAGS, summary: 'Create a rule template', body: RuleTemplateBody, response: { 201: RuleTemplateSchema, ...errors } } },
    async (request, reply) => send(reply, await service.create(principalOf(request), request.body, bodyProblems(request)), 201),
  );

  app.get(
    ITEM,
    { schema: { operationId: 'cdn.ruleTemplates.get', tags: TAGS, summary: 'Get a rule template', params: RuleTemplateParams, response: { 200: RuleTemplateSchema, ...errors } } },
    async (request, reply) => send(reply, await service.get(principalOf(request), (request.params as Params).rule_template_id)),
  );

  app.put(
    ITEM,
    { attachValidation: true, schema: { operationId: 'cdn.ruleTemplates.replace', tags: TAGS, summary: 'Replace a rule template (omitted fields reset to defaults)', params: RuleTemplateParams, body: RuleTemplateBody, response: { 200: RuleTemplateSchema, ...errors } } },
    async (request, reply) => {
      const problems = bodyProblems(request);
      return send(reply, await service.replace(principalOf(request), (request.params as Params).rule_template_id, request.body, problems));
    },
  );

  app.patch(
    ITEM,
    { attachValidation: true, schema: { operationId: 'cdn.ruleTemplates.update', tags: TAGS, summary: 'Change only the fields sent', params: RuleTemplateParams, body: RuleTemplatePatch, response: { 200: RuleTemplateSchema, ...errors } } },
    async (request, reply) => {
      const problems = bodyProblems(request);
      return send(reply, await service.update(principalOf(request), (request.params as Params).rule_template_id, request.body, problems));
    },
  );

  app.delete(
    ITEM,
    { schema: { operationId: 'cdn.ruleTemplates.delete', tags: TAGS, summary: 'Delete a rule template', params: RuleTemplateParams, response: { 204: { type: 'null', description: 'Deleted' }, ...errors } } },
    async (request, reply) => {
      await service.delete(principalOf(request), (request.params as Params).rule_template_id);
      return reply.status(204).send();
    },
  );

  app.post(
    '/_edgeplane/cdn/rule-templates/match',
    {
      config: { access: 'operator' },
      schema: { operationId: 'control.cdn.ruleTemplates.match', tags: ['Edgeplane control'], summary: 'Which rule template applies to a request URI for a client', body: MatchBody, response: { 200: MatchResult, ...errors } },
    },
    async (request) => {
      const { client_id, uri } = request.body as { client_id: number; uri: string };
      return service.match(client_id, uri);
    },
  );
}
