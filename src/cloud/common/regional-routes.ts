// The standard operations of a regional cloud resource, declared once. Every such resource lives
// under `<base>/:project_id/:region_id[/:<id>]` and offers create and delete (answering task IDs),
// a list, a get and sometimes an update; only their schemas, operation IDs and summaries differ.
// Operations particular to one resource (attach, assign, upgrade...) are declared beside the call
// to `regionalRoutes` in that resource's own routes.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TInteger, TObject, TSchema } from 'typebox';
import { callerOf, type Caller } from '../../platform/auth/caller.js';
import { typed, type Validated } from '../../platform/typed.js';
import { existenceBy, positiveIdOf } from '../../platform/existence.js';
import type { TaskIds } from './regional-records.js';
import { CLOUD_TAG, ProjectRegionParams, TaskIdList } from './schemas.js';

/** Where an operation appears in the OpenAPI document: its stable ID and one-line summary. */
interface Doc {
  operationId: string;
  summary: string;
}

/**
 * The schemas of the standard routes, each a type parameter so that the service is checked against
 * them. A query the spec leaves out is `TSchema` (its static type: unknown).
 */
export interface RegionalRouteSpec<
  Create extends TSchema,
  ListQuery extends TSchema,
  GetQuery extends TSchema,
  Update extends TSchema,
  DeleteQuery extends TSchema,
> {
  /** Collection path, with `:project_id/:region_id`; the item path is `<base>/:<idParam>`. */
  base: string;
  /** The collection path of create when it differs from `base` (instances are created through v2). */
  createBase?: string;
  /** Name of the path parameter that identifies one item (`network_id`, `cluster_name`); a string in `itemParams`. */
  idParam: string;
  /**
   * Params schema of the item routes: project, region and the item's ID. Typed by project and region
   * only: the static type of params keyed by a type parameter stays unresolved, so `itemId` reads the ID.
   */
  itemParams: TObject<{ project_id: TInteger; region_id: TInteger }>;
  create: Doc & { body: Create };
  list: Doc & { querystring?: ListQuery; response: TSchema };
  get: Doc & { querystring?: GetQuery; response: TSchema };
  update?: Doc & { body: Update; response: TSchema };
  delete: Doc & { querystring?: DeleteQuery };
}

/** The service methods the standard routes call, given the body or query their route's schema validated. */
export interface RegionalService<
  Create extends TSchema,
  ListQuery extends TSchema,
  GetQuery extends TSchema,
  Update extends TSchema,
  DeleteQuery extends TSchema,
> {
  create(caller: Caller, projectId: number, regionId: number, body: Validated<Create>): Promise<TaskIds>;
  list(caller: Caller, projectId: number, regionId: number, query: Validated<ListQuery>): Promise<unknown>;
  get(caller: Caller, projectId: number, regionId: number, id: string, query: Validated<GetQuery>): Promise<unknown>;
  update?(caller: Caller, projectId: number, regionId: number, id: string, body: Validated<Update>): Promise<unknown>;
  delete(caller: Caller, projectId: number, regionId: number, id: string, query: Validated<DeleteQuery>): Promise<TaskIds>;
}

/** Who calls, and the path parameters as the route's params schema types them. */
export function at<R extends FastifyRequest>(request: R): { caller: Caller; p: R['params'] } {
  return { caller: callerOf(request), p: request.params };
}

/**
 * The existence check of a regional item's GET route (see ExistenceCheck): `read` is the route's own
 * read, given the project, the region and the item's ID from the path.
 */
export function existenceIn(
  [project, region, id]: readonly string[],
  read: (projectId: number, regionId: number, id: string) => Promise<unknown>,
): Promise<boolean | undefined> | undefined {
  const [projectId, regionId] = [positiveIdOf(project), positiveIdOf(region)];
  if (projectId === undefined || regionId === undefined || id === undefined) return undefined;
  return existenceBy(() => read(projectId, regionId, id));
}

/** The ID of the item a route is about: the path parameter `name`, which the route's params schema declares a string. */
export function itemId(params: Readonly<Record<string, unknown>>, name: string): string {
  const id = params[name];
  // Unreachable while the schema declares it; a route whose schema does not is a bug, not a bad request.
  if (typeof id !== 'string') throw new Error(`Path parameter ${name} is not a string`);
  return id;
}

/**
 * Declares create, list, get, update (when the spec has one) and delete, in that order: the order
 * routes are added is the order of the OpenAPI document, which must not move.
 */
export function regionalRoutes<
  Create extends TSchema,
  ListQuery extends TSchema,
  GetQuery extends TSchema,
  Update extends TSchema,
  DeleteQuery extends TSchema,
>(
  fastify: FastifyInstance,
  service: RegionalService<Create, ListQuery, GetQuery, Update, DeleteQuery>,
  spec: RegionalRouteSpec<Create, ListQuery, GetQuery, Update, DeleteQuery>,
): void {
  const app = typed(fastify);
  const common = { tags: [CLOUD_TAG] };
  const item = `${spec.base}/:${spec.idParam}`;
  const { create, list, get, update } = spec;
  app.post(
    spec.createBase ?? spec.base,
    {
      schema: {
        ...common,
        operationId: create.operationId,
        summary: create.summary,
        params: ProjectRegionParams,
        body: create.body,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const p = request.params;
      return service.create(callerOf(request), p.project_id, p.region_id, request.body);
    },
  );
  const listQuery = list.querystring ? { querystring: list.querystring } : {};
  app.get(
    spec.base,
    {
      schema: { ...common, operationId: list.operationId, summary: list.summary, params: ProjectRegionParams, ...listQuery, response: { 200: list.response } },
    },
    async (request) => {
      const p = request.params;
      return service.list(callerOf(request), p.project_id, p.region_id, request.query);
    },
  );
  const getQuery = get.querystring ? { querystring: get.querystring } : {};
  app.get(
    item,
    {
      schema: { ...common, operationId: get.operationId, summary: get.summary, params: spec.itemParams, ...getQuery, response: { 200: get.response } },
      config: {
        // Existence does not depend on the options a get's query may give (statistics, prices).
        exists: ({ caller }, ids) => existenceIn(ids, (projectId, regionId, id) => service.get(caller, projectId, regionId, id, {} as Validated<GetQuery>)),
      },
    },
    async (request) => {
      const p = request.params;
      // Services whose get takes no options ignore the query; load balancers read `show_stats`.
      return service.get(callerOf(request), p.project_id, p.region_id, itemId(p, spec.idParam), request.query);
    },
  );
  if (update) {
    if (!service.update) throw new Error(`${update.operationId} is declared but the service has no update`);
    const updateItem = service.update.bind(service);
    app.patch(
      item,
      {
        schema: {
          ...common,
          operationId: update.operationId,
          summary: update.summary,
          params: spec.itemParams,
          body: update.body,
          response: { 200: update.response },
        },
      },
      async (request) => {
        const p = request.params;
        return updateItem(callerOf(request), p.project_id, p.region_id, itemId(p, spec.idParam), request.body);
      },
    );
  }
  const deleteQuery = spec.delete.querystring ? { querystring: spec.delete.querystring } : {};
  app.delete(
    item,
    {
      schema: {
        ...common,
        operationId: spec.delete.operationId,
        summary: spec.delete.summary,
        params: spec.itemParams,
        ...deleteQuery,
        response: { 200: TaskIdList },
      },
    },
    async (request) => {
      const p = request.params;
      // Services whose delete takes no options ignore the query; instances read which volumes go too.
      return service.delete(callerOf(request), p.project_id, p.region_id, itemId(p, spec.idParam), request.query);
    },
  );
}
