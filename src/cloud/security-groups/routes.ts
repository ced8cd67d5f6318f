import type { FastifyInstance } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { PageOf } from '../../platform/pagination.js';
import { typed, type TypedApp } from '../../platform/typed.js';
import { at } from '../common/regional-routes.js';
import { CLOUD_TAG, NoBody, ProjectRegionParams, TaskIdList, Uuid } from '../common/schemas.js';
import { InstanceSchema } from '../instances/schemas.js';
import type { RuleService } from './rule-service.js';
import {
  CopyBody,
  GroupCreateBodyV1,
  GroupCreateBodyV2,
  GroupListQuery,
  GroupSchema,
  GroupUpdateBodyV1,
  GroupUpdateBodyV2,
  RuleBodyV1,
  RuleBodyV2,
  RuleSchema,
} from './schemas.js';
import type { SecurityGroupService } from './service.js';

const ints = { project_id: Type.Integer({ minimum: 1 }), region_id: Type.Integer({ minimum: 1 }) };
const GroupParams = Type.Object({ ...ints, group_id: Uuid() });
const RuleParams = Type.Object({ ...ints, rule_id: Uuid() });
const GroupRuleParams = Type.Object({ ...ints, group_id: Uuid(), rule_id: Uuid() });
const noContent = { 204: NoBody() };
// Items typed only as schemas: the instances come from the instance service, which this one does not know.
const List = (item: TSchema) => Type.Object({ count: Type.Integer({ minimum: 0 }), results: Type.Array(item) });
const doc = (operationId: string, summary: string) => ({ tags: [CLOUD_TAG], operationId, summary });

const v1 = '/cloud/v1/securitygroups/:project_id/:region_id';
const v2 = '/cloud/v2/security_groups/:project_id/:region_id';

/** The v2 calls (asynchronous), then the v1 ones, in this order in the document. */
export function securityGroupRoutes(fastify: FastifyInstance, groups: SecurityGroupService, rules: RuleService): void {
  const app = typed(fastify);
  v2Routes(app, groups, rules);
  v1GroupRoutes(app, groups);
  v1RuleRoutes(app, rules);
}

function v2Routes(app: TypedApp, groups: SecurityGroupService, rules: RuleService): void {
  app.post(
    v2,
    {
      schema: {
        ...doc('cloud.securityGroups.create', 'Create a security group with its rules (asynchronous)'),
        params: ProjectRegionParams,
        response: { 200: TaskIdList },
        body: GroupCreateBodyV2,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return groups.createV2(caller, p.project_id, p.region_id, request.body);
    },
  );
  app.patch(
    `${v2}/:group_id`,
    {
      schema: {
        ...doc('cloud.securityGroups.update', 'Change a security group; `rules` is the complete new set (asynchronous, no task when nothing changes)'),
        params: GroupParams,
        response: { 200: TaskIdList },
        body: GroupUpdateBodyV2,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return groups.updateV2(caller, p.project_id, p.region_id, p.group_id, request.body);
    },
  );
  app.post(
    `${v2}/:group_id/rules`,
    {
      schema: {
        ...doc('cloud.securityGroups.rules.create', 'Add a rule to a security group (asynchronous)'),
        params: GroupParams,
        response: { 200: TaskIdList },
        body: RuleBodyV2,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return rules.createV2(caller, p.project_id, p.region_id, p.group_id, request.body);
    },
  );
  app.delete(
    `${v2}/:group_id/rules/:rule_id`,
    {
      schema: {
        ...doc('cloud.securityGroups.rules.delete', 'Remove a rule from a security group (asynchronous)'),
        params: GroupRuleParams,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return rules.deleteV2(caller, p.project_id, p.region_id, p.group_id, p.rule_id);
    },
  );
}

function v1GroupRoutes(app: TypedApp, groups: SecurityGroupService): void {
  app.get(
    v1,
    {
      schema: {
        ...doc('cloud.securityGroups.list', 'List security groups (the default group included)'),
        params: ProjectRegionParams,
        response: { 200: PageOf(GroupSchema) },
        querystring: GroupListQuery,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return groups.list(caller, p.project_id, p.region_id, request.query);
    },
  );
  app.post(
    v1,
    {
      schema: {
        ...doc('cloud.securityGroups.createV1', 'Create a security group at once (deprecated: use v2)'),
        params: ProjectRegionParams,
        response: { 200: GroupSchema },
        body: GroupCreateBodyV1,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return groups.createV1(caller, p.project_id, p.region_id, request.body);
    },
  );
  app.get(
    `${v1}/:group_id`,
    { schema: { ...doc('cloud.securityGroups.get', 'Get a security group and its rules'), params: GroupParams, response: { 200: GroupSchema } } },
    async (request) => {
      const { caller, p } = at(request);
      return groups.get(caller, p.project_id, p.region_id, p.group_id);
    },
  );
  app.patch(
    `${v1}/:group_id`,
    {
      schema: {
        ...doc('cloud.securityGroups.updateV1', 'Rename, retag, add and remove rules at once (deprecated: use v2)'),
        params: GroupParams,
        response: { 200: GroupSchema },
        body: GroupUpdateBodyV1,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return groups.updateV1(caller, p.project_id, p.region_id, p.group_id, request.body);
    },
  );
  app.delete(
    `${v1}/:group_id`,
    { schema: { ...doc('cloud.securityGroups.delete', 'Delete a security group that no port uses'), params: GroupParams, response: noContent } },
    async (request, reply) => {
      const { caller, p } = at(request);
      await groups.delete(caller, p.project_id, p.region_id, p.group_id);
      return reply.code(204).send();
    },
  );
  app.post(
    `${v1}/:group_id/copy`,
    {
      schema: {
        ...doc('cloud.securityGroups.copy', 'Copy a security group and its rules under a new name'),
        params: GroupParams,
        response: { 200: GroupSchema },
        body: CopyBody,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return groups.copy(caller, p.project_id, p.region_id, p.group_id, request.body);
    },
  );
  app.post(
    `${v1}/:group_id/revert`,
    { schema: { ...doc('cloud.securityGroups.revert', 'Put back the rules the group had by default'), params: GroupParams, response: { 200: GroupSchema } } },
    async (request) => {
      const { caller, p } = at(request);
      return groups.revert(caller, p.project_id, p.region_id, p.group_id);
    },
  );
  app.get(
    `${v1}/:group_id/instances`,
    {
      schema: {
        ...doc('cloud.securityGroups.instances', 'Instances with a port in the security group'),
        params: GroupParams,
        response: { 200: List(InstanceSchema) },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return groups.instances(caller, p.project_id, p.region_id, p.group_id);
    },
  );
}

function v1RuleRoutes(app: TypedApp, rules: RuleService): void {
  app.post(
    `${v1}/:group_id/rules`,
    {
      schema: {
        ...doc('cloud.securityGroups.rules.createV1', 'Add a rule at once (deprecated: use v2)'),
        params: GroupParams,
        response: { 200: RuleSchema },
        body: RuleBodyV1,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return rules.createV1(caller, p.project_id, p.region_id, p.group_id, request.body);
    },
  );
  const rule = '/cloud/v1/securitygrouprules/:project_id/:region_id/:rule_id';
  app.put(
    rule,
    {
      schema: {
        ...doc('cloud.securityGroups.rules.replace', 'Replace a rule: the new rule gets a new ID (deprecated)'),
        params: RuleParams,
        response: { 200: RuleSchema },
        body: RuleBodyV1,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return rules.replace(caller, p.project_id, p.region_id, p.rule_id, request.body);
    },
  );
  app.delete(
    rule,
    { schema: { ...doc('cloud.securityGroups.rules.deleteV1', 'Remove a rule at once (deprecated: use v2)'), params: RuleParams, response: noContent } },
    async (request, reply) => {
      const { caller, p } = at(request);
      await rules.deleteV1(caller, p.project_id, p.region_id, p.rule_id);
      return reply.code(204).send();
    },
  );
}
