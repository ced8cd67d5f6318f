import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { PageOf } from '../../platform/pagination.js';
import { typed } from '../../platform/typed.js';
import { at, regionalRoutes } from '../common/regional-routes.js';
import { CLOUD_TAG, NoBody, pageQuery, ProjectRegionParams, TaskIdList, UuidParam, Uuid } from '../common/schemas.js';
import {
  AccessRuleBody,
  AccessRuleList,
  AccessRuleSchema,
  CheckLimitsBody,
  ExtendBody,
  ShareQuotaSchema,
  FileShareCreateBody,
  FileShareListQuery,
  FileShareSchema,
  FileShareUpdateBody,
} from './schemas.js';
import type { FileShareService } from './service.js';

const ItemParams = UuidParam('file_share_id', 'File share ID');

export function fileShareRoutes(fastify: FastifyInstance, shares: FileShareService): void {
  const app = typed(fastify);
  const common = { tags: [CLOUD_TAG] };
  const base = '/cloud/v1/file_shares/:project_id/:region_id';
  const item = `${base}/:file_share_id`;
  // Before the item routes: `check_limits` is not a share ID.
  app.post(
    `${base}/check_limits`,
    {
      schema: {
        ...common,
        operationId: 'cloud.fileShares.checkLimits',
        summary: 'The quotas a new file share would exceed',
        params: ProjectRegionParams,
        body: CheckLimitsBody,
        response: { 200: ShareQuotaSchema },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return shares.checkLimits(caller, p.project_id, p.region_id, request.body.size);
    },
  );
  regionalRoutes(fastify, shares, {
    base,
    idParam: 'file_share_id',
    itemParams: ItemParams,
    create: { operationId: 'cloud.fileShares.create', summary: 'Create an NFS file share (asynchronous)', body: FileShareCreateBody },
    list: { operationId: 'cloud.fileShares.list', summary: 'List file shares', querystring: FileShareListQuery, response: PageOf(FileShareSchema) },
    get: { operationId: 'cloud.fileShares.get', summary: 'Get a file share', response: FileShareSchema },
    update: {
      operationId: 'cloud.fileShares.update',
      summary: 'Rename a file share, change its tags or VAST settings',
      body: FileShareUpdateBody,
      response: FileShareSchema,
    },
    delete: { operationId: 'cloud.fileShares.delete', summary: 'Delete a file share with its access rules (asynchronous)' },
  });
  app.patch(
    '/cloud/v3/file_shares/:project_id/:region_id/:file_share_id',
    {
      schema: {
        ...common,
        operationId: 'cloud.fileShares.updateV3',
        summary: 'Rename a file share, change its tags or VAST settings (asynchronous; no task when nothing changes)',
        params: ItemParams,
        body: FileShareUpdateBody,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return shares.updateV3(caller, p.project_id, p.region_id, p.file_share_id, request.body);
    },
  );
  app.post(
    `${item}/extend`,
    {
      schema: {
        ...common,
        operationId: 'cloud.fileShares.extend',
        summary: 'Grow a file share (asynchronous)',
        params: ItemParams,
        body: ExtendBody,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return shares.extend(caller, p.project_id, p.region_id, p.file_share_id, request.body.size);
    },
  );
  app.post(
    `${item}/access_rule`,
    {
      schema: {
        ...common,
        operationId: 'cloud.fileShares.addAccessRule',
        summary: 'Let an address or network mount a file share',
        params: ItemParams,
        body: AccessRuleBody,
        response: { 200: AccessRuleSchema },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return shares.addRule(caller, p.project_id, p.region_id, p.file_share_id, request.body);
    },
  );
  app.get(
    `${item}/access_rule`,
    {
      schema: {
        ...common,
        operationId: 'cloud.fileShares.accessRules',
        summary: 'List the access rules of a file share',
        params: ItemParams,
        querystring: Type.Object(pageQuery()),
        response: { 200: AccessRuleList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return shares.rules(caller, p.project_id, p.region_id, p.file_share_id, request.query);
    },
  );
  const ruleParams = Type.Object({ ...ItemParams.properties, access_rule_id: Uuid({ description: 'Access rule ID' }) });
  app.delete(
    `${item}/access_rule/:access_rule_id`,
    {
      schema: {
        ...common,
        operationId: 'cloud.fileShares.removeAccessRule',
        summary: 'Remove an access rule of a file share',
        params: ruleParams,
        response: { 204: NoBody() },
      },
    },
    async (request, reply) => {
      const { caller, p } = at(request);
      await shares.removeRule(caller, p.project_id, p.region_id, p.file_share_id, p.access_rule_id);
      return reply.code(204).send();
    },
  );
}
