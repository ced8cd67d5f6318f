import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { PageOf } from '../../platform/pagination.js';
import { callerOf, type Caller } from '../../platform/auth/caller.js';
import { CLOUD_TAG, ProjectRegionParams, TaskIdList, Uuid } from '../common/schemas.js';
import { InstanceSchema } from '../instances/schemas.js';
import type { RuleService } from './rule-service.js';
import { CopyBody, GroupCreateBodyV1, GroupCreateBodyV2, GroupListQuery, GroupSchema, GroupUpdateBodyV1, GroupUpdateBodyV2, RuleBodyV1, RuleBodyV2, RuleSchema } from './schemas.js';
import type { SecurityGroupService } from './service.js';

const ints = { project_id: Type.Integer({ minimum: 1 }), region_id: Type.Integer({ minimum: 1 }) };
const GroupParams = Type.Object({ ...ints, group_id: Uuid() });
const RuleParams = Type.Object({ ...ints, rule_id: Uuid() });
const GroupRuleParams = Type.Object({ ...ints, group_id: Uuid(), rule_id: Uuid() });
type P = { project_id: number; region_id: number; group_id: string; rule_id: string };
type Handler = (caller: Caller, p: P, body: never, reply: FastifyReply) => Promise<unknown>;

const v1 = '/cloud/v1/securitygroups/:project_id/:region_id';
const v2 = '/cloud/v2/security_groups/:project_id/:region_id';

export function securityGroupRoutes(app: FastifyInstance, groups: SecurityGroupService, rules: RuleService): void {
  const route = (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, operationId: string, summary: string, params: TSchema, response: Record<number, TSchema>, handler: Handler, extra: { body?: TSchema; querystring?: TSchema } = {}) =>
    app.route({
      method, url,
      schema: { tags: [CLOUD_TAG], operationId, summary, params, response, ...extra },
      handler: async (request: FastifyRequest, reply: FastifyReply) => handler(callerOf(request), request.params as P, (request.body ?? request.query) as never, reply),
    });
  const noContent = { 204: Type.Null() };
  const done = (reply: FastifyReply) => reply.code(204).send();

  route('POST', v2, 'cloud.securityGroups.create', 'Create a security group with its rules (asynchronous)', ProjectRegionParams, { 200: TaskIdList }, (c, p, b) => groups.createV2(c, p.project_id, p.region_id, b), { body: GroupCreateBodyV2 });
  route('PATCH', `${v2}/:group_id`, 'cloud.securityGroups.update', 'Change a security group; `rules` is the complete new set (asynchronous, no task when nothing changes)', GroupParams, { 200: TaskIdList }, (c, p, b) => groups.updateV2(c, p.project_id, p.region_id, p.group_id, b), { body: GroupUpdateBodyV2 });
  route('POST', `${v2}/:group_id/rules`, 'cloud.securityGroups.rules.create', 'Add a rule to a security group (asynchronous)', GroupParams, { 200: TaskIdList }, (c, p, b) => rules.createV2(c, p.project_id, p.region_id, p.group_id, b), { body: RuleBodyV2 });
  route('DELETE', `${v2}/:group_id/rules/:rule_id`, 'cloud.securityGroups.rules.delete', 'Remove a rule from a security group (asynchronous)', GroupRuleParams, { 200: TaskIdList }, (c, p) => rules.deleteV2(c, p.project_id, p.region_id, p.group_id, p.rule_id));

  route('GET', v1, 'cloud.securityGroups.list', 'List security groups (the default group included)', ProjectRegionParams, { 200: PageOf(GroupSchema) }, (c, p, q) => groups.list(c, p.project_id, p.region_id, q), { querystring: GroupListQuery });
  route('POST', v1, 'cloud.securityGroups.createV1', 'Create a security group at once (deprecated: use v2)', ProjectRegionParams, { 200: GroupSchema }, (c, p, b) => groups.createV1(c, p.project_id, p.region_id, b), { body: GroupCreateBodyV1 });
  route('GET', `${v1}/:group_id`, 'cloud.securityGroups.get', 'Get a security group and its rules', GroupParams, { 200: GroupSchema }, (c, p) => groups.get(c, p.project_id, p.region_id, p.group_id));
  route('PATCH', `${v1}/:group_id`, 'cloud.securityGroups.updateV1', 'Rename, retag, add and remove rules at once (deprecated: use v2)', GroupParams, { 200: GroupSchema }, (c, p, b) => groups.updateV1(c, p.project_id, p.region_id, p.group_id, b), { body: GroupUpdateBodyV1 });
  route('DELETE', `${v1}/:group_id`, 'cloud.securityGroups.delete', 'Delete a security group that no port uses', GroupParams, noContent, async (c, p, _b, reply) => {
    await groups.delete(c, p.project_id, p.region_id, p.group_id);
    return done(reply);
  });
  route('POST', `${v1}/:group_id/copy`, 'cloud.securityGroups.copy', 'Copy a security group and its rules under a new name', GroupParams, { 200: GroupSchema }, (c, p, b: { name: string }) => groups.copy(c, p.project_id, p.region_id, p.group_id, b), { body: CopyBody });
  route('POST', `${v1}/:group_id/revert`, 'cloud.securityGroups.revert', 'Put back the rules the group had by default', GroupParams, { 200: GroupSchema }, (c, p) => groups.revert(c, p.project_id, p.region_id, p.group_id));
  route('GET', `${v1}/:group_id/instances`, 'cloud.securityGroups.instances', 'Instances with a port in the security group', GroupParams, { 200: Type.Object({ count: Type.Integer({ minimum: 0 }), results: Type.Array(InstanceSchema) }) }, (c, p) => groups.instances(c, p.project_id, p.region_id, p.group_id));
  route('POST', `${v1}/:group_id/rules`, 'cloud.securityGroups.rules.createV1', 'Add a rule at once (deprecated: use v2)', GroupParams, { 200: RuleSchema }, (c, p, b) => rules.createV1(c, p.project_id, p.region_id, p.group_id, b), { body: RuleBodyV1 });
  route('PUT', '/cloud/v1/securitygrouprules/:project_id/:region_id/:rule_id', 'cloud.securityGroups.rules.replace', 'Replace a rule: the new rule gets a new ID (deprecated)', RuleParams, { 200: RuleSchema }, (c, p, b) => rules.replace(c, p.project_id, p.region_id, p.rule_id, b), { body: RuleBodyV1 });
  route('DELETE', '/cloud/v1/securitygrouprules/:project_id/:region_id/:rule_id', 'cloud.securityGroups.rules.deleteV1', 'Remove a rule at once (deprecated: use v2)', RuleParams, noContent, async (c, p, _b, reply) => {
    await rules.deleteV1(c, p.project_id, p.region_id, p.rule_id);
    return done(reply);
  });
}
