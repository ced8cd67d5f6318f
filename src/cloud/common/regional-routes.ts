// The standard operations of a regional cloud resource, declared once. Every such resource lives
// under `<base>/:project_id/:region_id[/:<id>]` and offers create and delete (answering task IDs),
// a list, a get and sometimes an update; only their schemas, operation IDs and summaries differ.
// Operations particular to one resource (attach, assign, upgrade...) are declared beside the call
// to `regionalRoutes` in that resource's own routes.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { callerOf, type Caller } from '../../platform/auth/caller.js';
import { CLOUD_TAG, ProjectRegionParams, TaskIdList } from './schemas.js';

/** Where an operation appears in the OpenAPI document: its stable ID and one-line summary. */
interface Doc {
  operationId: string;
  summary: string;
}

export interface RegionalRouteSpec {
  /** Collection path, with `:project_id/:region_id`; the item path is `<base>/:<idParam>`. */
  base: string;
  /** The collection path of create when it differs from `base` (instances are created through v2). */
  createBase?: string;
  /** Name of the path parameter that identifies one item (`network_id`, `cluster_name`). */
  idParam: string;
  /** Params schema of the item routes: project, region and the item's ID. */
  itemParams: TSchema;
  create: Doc & { body: TSchema };
  list: Doc & { querystring?: TSchema; response: TSchema };
  get: Doc & { querystring?: TSchema; response: TSchema };
  update?: Doc & { body: TSchema; response: TSchema };
  delete: Doc & { querystring?: TSchema };
}

/**
 * The service methods the standard routes call. Bodies and queries arrive already validated by
 * the route's schema, hence `never` here: each service declares the exact static type it accepts.
 */
export interface RegionalService {
  create(caller: Caller, projectId: number, regionId: number, body: never): Promise<unknown>;
  list(caller: Caller, projectId: number, regionId: number, query: never): Promise<unknown>;
  get(caller: Caller, projectId: number, regionId: number, id: string, query?: never): Promise<unknown>;
  update?(caller: Caller, projectId: number, regionId: number, id: string, body: never): Promise<unknown>;
  delete(caller: Caller, projectId: number, regionId: number, id: string, query: never): Promise<unknown>;
}

type RegionalParams = { project_id: number; region_id: number; [id: string]: number | string };

/** Project, region and (for item routes) the item ID of a request to a regional route. */
function regionalParams(request: FastifyRequest): RegionalParams {
  return request.params as RegionalParams;
}

/**
 * Declares create, list, get, update (when the spec has one) and delete, in that order: the order
 * routes are added is the order of the OpenAPI document, which must not move.
 */
export function regionalRoutes(app: FastifyInstance, service: RegionalService, spec: RegionalRouteSpec): void {
  const common = { tags: [CLOUD_TAG] };
  const item = `${spec.base}/:${spec.idParam}`;
  const idOf = (request: FastifyRequest) => regionalParams(request)[spec.idParam] as string;
  const { create, list, get, update } = spec;
  app.post(spec.createBase ?? spec.base, { schema: { ...common, operationId: create.operationId, summary: create.summary, params: ProjectRegionParams, body: create.body, response: { 200: TaskIdList } } }, async (request) => {
    const p = regionalParams(request);
    return service.create(callerOf(request), p.project_id, p.region_id, request.body as never);
  });
  const listQuery = list.querystring ? { querystring: list.querystring } : {};
  app.get(spec.base, { schema: { ...common, operationId: list.operationId, summary: list.summary, params: ProjectRegionParams, ...listQuery, response: { 200: list.response } } }, async (request) => {
    const p = regionalParams(request);
    return service.list(callerOf(request), p.project_id, p.region_id, request.query as never);
  });
  const getQuery = get.querystring ? { querystring: get.querystring } : {};
  app.get(item, { schema: { ...common, operationId: get.operationId, summary: get.summary, params: spec.itemParams, ...getQuery, response: { 200: get.response } } }, async (request) => {
    const p = regionalParams(request);
    // Services whose get takes no options ignore the query; load balancers read `show_stats`.
    return service.get(callerOf(request), p.project_id, p.region_id, idOf(request), request.query as never);
  });
  if (update) {
    if (!service.update) throw new Error(`${update.operationId} is declared but the service has no update`);
    const updateItem = service.update.bind(service);
    app.patch(item, { schema: { ...common, operationId: update.operationId, summary: update.summary, params: spec.itemParams, body: update.body, response: { 200: update.response } } }, async (request) => {
      const p = regionalParams(request);
      return updateItem(callerOf(request), p.project_id, p.region_id, idOf(request), request.body as never);
    });
  }
  const deleteQuery = spec.delete.querystring ? { querystring: spec.delete.querystring } : {};
  app.delete(item, { schema: { ...common, operationId: spec.delete.operationId, summary: spec.delete.summary, params: spec.itemParams, ...deleteQuery, response: { 200: TaskIdList } } }, async (request) => {
    const p = regionalParams(request);
    // Services whose delete takes no options ignore the query; instances read which volumes go too.
    return service.delete(callerOf(request), p.project_id, p.region_id, idOf(request), request.query as never);
  });
}
