// HTTP surface of a CDN resource's rules (the reference's six operations) and the effective-options
// control call. Bodies are validated with `attachValidation` so that schema and rule problems of one
// request are reported together, as for rule templates.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { principalOf } from '../../platform/auth/plugin.js';
import { ErrorBody } from '../../platform/schema.js';
import { bodyProblems, cdnRoute, listRequest, sendList, sendWithDeprecations } from '../http.js';
import {
  EffectiveBody,
  EffectiveResult,
  ResourceParams,
  ResourceRuleSchema,
  RuleCreate,
  RuleList,
  RuleListQuery,
  RuleParams,
  RulePatch,
  RuleReplace,
} from './schemas.js';
import type { ResourceRuleService, RuleResult } from './service.js';
import { typed } from '../../platform/typed.js';

const TAGS = ['CDN resource rules'];
const BASE = '/cdn/resources/:resource_id/rules';
const ITEM = `${BASE}/:rule_id`;
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

const send = (reply: FastifyReply, { rule, deprecations }: RuleResult, status = 200) => sendWithDeprecations(reply, rule, deprecations, status);

export function resourceRuleRoutes(fastify: FastifyInstance, service: ResourceRuleService): void {
  const app = typed(fastify);
  app.get(
    BASE,
    cdnRoute({
      operationId: 'cdn.resourceRules.list',
      tags: TAGS,
      summary: 'List the rules of a CDN resource',
      params: ResourceParams,
      querystring: RuleListQuery,
      response: { 200: RuleList, ...errors },
    }),
    async (request, reply) => {
      const list = listRequest(request.query);
      return sendList(request, reply, list, await service.list(principalOf(request), request.params.resource_id, list));
    },
  );

  app.post(
    BASE,
    cdnRoute(
      {
        operationId: 'cdn.resourceRules.create',
        tags: TAGS,
        summary: 'Create a rule',
        params: ResourceParams,
        body: RuleCreate,
        response: { 201: ResourceRuleSchema, ...errors },
      },
      { attachValidation: true },
    ),
    async (request, reply) => {
      const problems = bodyProblems(request);
      return send(reply, await service.create(principalOf(request), request.params.resource_id, request.body, problems), 201);
    },
  );

  app.get(
    ITEM,
    cdnRoute({ operationId: 'cdn.resourceRules.get', tags: TAGS, summary: 'Get a rule', params: RuleParams, response: { 200: ResourceRuleSchema, ...errors } }),
    async (request, reply) => {
      const { resource_id, rule_id } = request.params;
      return send(reply, await service.get(principalOf(request), resource_id, rule_id));
    },
  );

  app.put(
    ITEM,
    cdnRoute(
      {
        operationId: 'cdn.resourceRules.replace',
        tags: TAGS,
        summary: 'Replace a rule (omitted fields reset to defaults)',
        params: RuleParams,
        body: RuleReplace,
        response: { 200: ResourceRuleSchema, ...errors },
      },
      { attachValidation: true },
    ),
    async (request, reply) => {
      const problems = bodyProblems(request);
      const { resource_id, rule_id } = request.params;
      return send(reply, await service.replace(principalOf(request), resource_id, rule_id, request.body, problems));
    },
  );

  app.patch(
    ITEM,
    cdnRoute(
      {
        operationId: 'cdn.resourceRules.update',
        tags: TAGS,
        summary: 'Change only the fields sent',
        params: RuleParams,
        body: RulePatch,
        response: { 200: ResourceRuleSchema, ...errors },
      },
      { attachValidation: true },
    ),
    async (request, reply) => {
      const problems = bodyProblems(request);
      const { resource_id, rule_id } = request.params;
      return send(reply, await service.update(principalOf(request), resource_id, rule_id, request.body, problems));
    },
  );

  app.delete(
    ITEM,
    cdnRoute({
      operationId: 'cdn.resourceRules.delete',
      tags: TAGS,
      summary: 'Delete an inactive rule',
      params: RuleParams,
      response: { 204: { type: 'null', description: 'Deleted' }, ...errors },
    }),
    async (request, reply) => {
      const { resource_id, rule_id } = request.params;
      await service.delete(principalOf(request), resource_id, rule_id);
      return reply.status(204).send();
    },
  );

  app.get(
    `${ITEM}/preset`,
    cdnRoute({
      operationId: 'cdn.resourceRules.appliedPreset',
      tags: TAGS,
      summary: 'The preset applied to the rule (presets are not applied here: always 404)',
      params: RuleParams,
      response: errors,
    }),
    async (request) => {
      const { resource_id, rule_id } = request.params;
      return service.appliedPreset(principalOf(request), resource_id, rule_id);
    },
  );

  app.post(
    '/_edgeplane/cdn/resources/effective-options',
    {
      config: { access: 'operator' },
      schema: {
        operationId: 'control.cdn.resources.effectiveOptions',
        tags: ['Edgeplane control'],
        summary: 'Which rule of a CDN resource applies to a request URI, and the options then in force',
        body: EffectiveBody,
        response: { 200: EffectiveResult, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody },
      },
    },
    async (request) => {
      const { client_id, resource_id, uri } = request.body;
      return service.effective(client_id, resource_id, uri);
    },
  );
}
