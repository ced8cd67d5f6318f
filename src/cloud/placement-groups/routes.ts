import type { FastifyInstance } from 'fastify';
import { typed } from '../../platform/typed.js';
import { at } from '../common/regional-routes.js';
import { CLOUD_TAG, ProjectRegionParams, TaskIdList, UuidParam } from '../common/schemas.js';
import { GroupParams, PlacementGroupCreateBody, PlacementGroupList, PlacementGroupListQuery, PlacementGroupSchema, PutIntoBody } from './schemas.js';
import type { PlacementGroupService } from './service.js';

export function placementGroupRoutes(fastify: FastifyInstance, groups: PlacementGroupService): void {
  const app = typed(fastify);
  const common = { tags: [CLOUD_TAG] };
  const base = '/cloud/v1/servergroups/:project_id/:region_id';
  app.post(
    base,
    {
      schema: {
        ...common,
        operationId: 'cloud.placementGroups.create',
        summary: 'Create a placement group',
        params: ProjectRegionParams,
        body: PlacementGroupCreateBody,
        response: { 200: PlacementGroupSchema },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return groups.create(caller, p.project_id, p.region_id, request.body);
    },
  );
  app.get(
    base,
    {
      schema: {
        ...common,
        operationId: 'cloud.placementGroups.list',
        summary: 'List placement groups',
        params: ProjectRegionParams,
        querystring: PlacementGroupListQuery,
        response: { 200: PlacementGroupList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return groups.list(caller, p.project_id, p.region_id, request.query);
    },
  );
  app.get(
    `${base}/:group_id`,
    {
      schema: {
        ...common,
        operationId: 'cloud.placementGroups.get',
        summary: 'Get a placement group with its instances',
        params: GroupParams,
        response: { 200: PlacementGroupSchema },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return groups.get(caller, p.project_id, p.region_id, p.group_id);
    },
  );
  app.delete(
    `${base}/:group_id`,
    {
      schema: {
        ...common,
        operationId: 'cloud.placementGroups.delete',
        summary: 'Delete a placement group with no instances (asynchronous)',
        params: GroupParams,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return groups.delete(caller, p.project_id, p.region_id, p.group_id);
    },
  );
  const instance = '/cloud/v1/instances/:project_id/:region_id/:instance_id';
  const params = UuidParam('instance_id', 'Instance ID');
  app.post(
    `${instance}/put_into_servergroup`,
    {
      schema: {
        ...common,
        operationId: 'cloud.instances.putIntoPlacementGroup',
        summary: 'Move an instance into a placement group (asynchronous)',
        params,
        body: PutIntoBody,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return groups.putInto(caller, p.project_id, p.region_id, p.instance_id, request.body.servergroup_id);
    },
  );
  app.post(
    `${instance}/remove_from_servergroup`,
    {
      schema: {
        ...common,
        operationId: 'cloud.instances.removeFromPlacementGroup',
        summary: 'Take an instance out of its placement group (asynchronous)',
        params,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return groups.removeFrom(caller, p.project_id, p.region_id, p.instance_id);
    },
  );
}
