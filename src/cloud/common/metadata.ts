// The deprecated "metadata" calls: the tags of a resource under another name (list, merge, replace,
// read and delete one). They change the same tags the resources' own updates do, so a tag set one way
// is seen the other way.
import type { FastifyInstance } from 'fastify';
import { Type, type TInteger, type TObject, type TSchema } from 'typebox';
import { notFound } from '../../platform/errors.js';
import { badInput, queryField } from './errors.js';
import { patchTags, tagList, type Tag } from './format.js';
import { type Operations } from './operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import { typed, type TypedApp } from '../../platform/typed.js';
import { at, itemId } from './regional-routes.js';
import { attrsOf, type ResourceKind, type ResourceRow } from './resource-store.js';
import { CLOUD_TAG, LIMITS, NoBody, TagSchema, Uuid } from './schemas.js';

const TAG_KEY = Type.String({ minLength: 1, maxLength: 255, pattern: '^[^\\s=]+$' });
const TagsBody = Type.Unsafe<Record<string, string | null>>({
  type: 'object',
  propertyNames: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^\\s=]+$' },
  additionalProperties: { anyOf: [{ type: 'string', minLength: 1, maxLength: 255 }, { type: 'null' }] },
  maxProperties: LIMITS.tags,
});
const TagList = Type.Object({ count: Type.Integer({ minimum: 0 }), results: Type.Array(TagSchema) });

export class MetadataService {
  constructor(private readonly ops: Operations) {}

  async list(caller: Caller, kind: ResourceKind, label: string, p: Params, id: string): Promise<{ count: number; results: Tag[] }> {
    const tags = tagList(attrsOf<{ tags: Record<string, string> }>(await this.row(caller, kind, label, p, id)).tags);
    return { count: tags.length, results: tags };
  }

  /** A missing key is refused once the resource is known to be the caller's (another client's is a 404 first). */
  async item(caller: Caller, kind: ResourceKind, label: string, p: Params, id: string, key: string | undefined): Promise<Tag> {
    const tags = (await this.list(caller, kind, label, p, id)).results;
    if (key === undefined) throw badInput([queryField('key', 'Field required', 'missing')]);
    const tag = tags.find((t) => t.key === key);
    if (!tag) throw notFound(`Tag ${key} of ${label.toLowerCase()} ${id}`);
    return tag;
  }

  /** `merge`: set the keys given (null removes one); else replace every tag with the ones given. */
  async write(
    caller: Caller,
    kind: ResourceKind,
    label: string,
    p: Params,
    id: string,
    tags: Record<string, string | null> | null,
    merge: boolean,
  ): Promise<ResourceRow> {
    const row = await this.row(caller, kind, label, p, id);
    const attrs = attrsOf<{ tags: Record<string, string> }>(row);
    attrs.tags = patchTags(merge ? (attrs.tags ?? {}) : {}, tags ?? {});
    await this.ops.resources.update(row.id, { attrs: JSON.stringify(attrs), updated_at: this.ops.clock.now() });
    return (await this.ops.resources.byId(row.id))!;
  }

  async remove(caller: Caller, kind: ResourceKind, label: string, p: Params, id: string, key: string | undefined): Promise<void> {
    const tag = await this.item(caller, kind, label, p, id, key);
    await this.write(caller, kind, label, p, id, { [tag.key]: null }, true);
  }

  private async row(caller: Caller, kind: ResourceKind, label: string, p: Params, id: string): Promise<ResourceRow> {
    const scope = await this.ops.readable(caller, p.project_id, p.region_id);
    const row = await this.ops.resources.get(kind, scope, id);
    if (!row || !row.ready) throw notFound(`${label} ${id}`);
    return row;
  }
}

interface Params {
  project_id: number;
  region_id: number;
}

export interface MetadataSpec {
  /** The item path, `.../:project_id/:region_id/:<idParam>`. */
  item: string;
  idParam: string;
  kind: ResourceKind;
  label: string;
  /** Operation IDs start with this (`cloud.volumes`). */
  operationPrefix: string;
  /** Which calls the reference has for this resource. */
  calls: ('list' | 'merge' | 'replace' | 'item')[];
  /** The item calls read the key from the path (`metadata/:key`) rather than the query (`metadata_item?key=`). */
  keyInPath?: boolean;
  /** Replace answers the resource itself (snapshots) instead of no content. */
  replaceAnswers?: { schema: TSchema; present: (row: ResourceRow) => unknown };
}

type Args = readonly [ResourceKind, string];
/** Params of the metadata calls, typed by project and region only: the resource's ID is under the name the spec gives (see itemId). */
type ResourceParams = TObject<{ project_id: TInteger; region_id: TInteger }>;
const docOf = (spec: MetadataSpec) => (name: string, summary: string) => ({
  tags: [CLOUD_TAG],
  operationId: `${spec.operationPrefix}.metadata.${name}`,
  summary,
  deprecated: true,
});

export function metadataRoutes(fastify: FastifyInstance, metadata: MetadataService, spec: MetadataSpec): void {
  const app = typed(fastify);
  const params: ResourceParams = Type.Object({ project_id: Type.Integer({ minimum: 1 }), region_id: Type.Integer({ minimum: 1 }), [spec.idParam]: Uuid() });
  const schema = docOf(spec);
  const args: Args = [spec.kind, spec.label];
  if (spec.calls.includes('list')) {
    app.get(
      `${spec.item}/metadata`,
      { schema: { ...schema('list', 'The tags of the resource (deprecated: read the resource)'), params, response: { 200: TagList } } },
      async (request) => {
        const { caller, p } = at(request);
        return metadata.list(caller, ...args, p, itemId(p, spec.idParam));
      },
    );
  }
  if (spec.calls.includes('merge')) {
    app.post(
      `${spec.item}/metadata`,
      { schema: { ...schema('merge', 'Set tags (null removes one) (deprecated: PATCH the resource)'), params, body: TagsBody, response: { 204: NoBody() } } },
      async (request, reply) => {
        const { caller, p } = at(request);
        await metadata.write(caller, ...args, p, itemId(p, spec.idParam), request.body, true);
        return reply.code(204).send();
      },
    );
  }
  if (spec.calls.includes('replace')) {
    const answer = spec.replaceAnswers;
    app.put(
      `${spec.item}/metadata`,
      {
        schema: {
          ...schema('replace', 'Replace every tag (deprecated: PATCH the resource)'),
          params,
          body: TagsBody,
          response: answer ? { 200: answer.schema } : { 204: NoBody() },
        },
      },
      async (request, reply) => {
        const { caller, p } = at(request);
        const row = await metadata.write(caller, ...args, p, itemId(p, spec.idParam), request.body, false);
        return answer ? answer.present(row) : reply.code(204).send();
      },
    );
  }
  if (!spec.calls.includes('item')) return;
  if (spec.keyInPath) tagRoutes(app, metadata, spec, params);
  else itemRoutes(app, metadata, spec, params);
}

/** One tag, its key in the path: `metadata/:key`. */
function tagRoutes(app: TypedApp, metadata: MetadataService, spec: MetadataSpec, resource: ResourceParams): void {
  const url = `${spec.item}/metadata/:key`;
  const params = Type.Object({ ...resource.properties, key: TAG_KEY });
  const schema = docOf(spec);
  const args: Args = [spec.kind, spec.label];
  app.get(url, { schema: { ...schema('tag.get', 'One tag of the resource'), params, response: { 200: TagSchema } } }, async (request) => {
    const { caller, p } = at(request);
    return metadata.item(caller, ...args, p, itemId(p, spec.idParam), p.key);
  });
  app.delete(url, { schema: { ...schema('tag.delete', 'Remove one tag of the resource'), params, response: { 204: NoBody() } } }, async (request, reply) => {
    const { caller, p } = at(request);
    await metadata.remove(caller, ...args, p, itemId(p, spec.idParam), p.key);
    return reply.code(204).send();
  });
}

/** One tag, its key in the query: `metadata_item?key=`. */
function itemRoutes(app: TypedApp, metadata: MetadataService, spec: MetadataSpec, params: ResourceParams): void {
  const url = `${spec.item}/metadata_item`;
  // The key is required; the query schema leaves it out so that another client's resource is a 404 before a missing key is a 400.
  const querystring = Type.Object({ key: Type.Optional(TAG_KEY) });
  const schema = docOf(spec);
  const args: Args = [spec.kind, spec.label];
  app.get(url, { schema: { ...schema('item.get', 'One tag of the resource'), params, querystring, response: { 200: TagSchema } } }, async (request) => {
    const { caller, p } = at(request);
    return metadata.item(caller, ...args, p, itemId(p, spec.idParam), request.query.key);
  });
  app.delete(
    url,
    { schema: { ...schema('item.delete', 'Remove one tag of the resource'), params, querystring, response: { 204: NoBody() } } },
    async (request, reply) => {
      const { caller, p } = at(request);
      await metadata.remove(caller, ...args, p, itemId(p, spec.idParam), request.query.key);
      return reply.code(204).send();
    },
  );
}

/** The metadata calls of every tagged cloud resource, as the reference has them. */
export function allMetadataRoutes(app: FastifyInstance, metadata: MetadataService, snapshot: MetadataSpec['replaceAnswers']): void {
  const all: MetadataSpec['calls'] = ['list', 'merge', 'replace', 'item'];
  const regional = (path: string) => `/cloud/v1/${path}/:project_id/:region_id`;
  const specs: MetadataSpec[] = [
    { item: `${regional('networks')}/:network_id`, idParam: 'network_id', kind: 'network', label: 'Network', operationPrefix: 'cloud.networks', calls: all },
    { item: `${regional('subnets')}/:subnet_id`, idParam: 'subnet_id', kind: 'subnet', label: 'Subnet', operationPrefix: 'cloud.subnets', calls: all },
    { item: `${regional('volumes')}/:volume_id`, idParam: 'volume_id', kind: 'volume', label: 'Volume', operationPrefix: 'cloud.volumes', calls: all },
    { item: `${regional('images')}/:image_id`, idParam: 'image_id', kind: 'image', label: 'Image', operationPrefix: 'cloud.images', calls: all },
    {
      item: `${regional('floatingips')}/:floating_ip_id`,
      idParam: 'floating_ip_id',
      kind: 'floatingip',
      label: 'Floating IP',
      operationPrefix: 'cloud.floatingIps',
      calls: all,
    },
    {
      item: `${regional('securitygroups')}/:group_id`,
      idParam: 'group_id',
      kind: 'security_group',
      label: 'Security group',
      operationPrefix: 'cloud.securityGroups',
      calls: all,
    },
    {
      item: `${regional('instances')}/:instance_id`,
      idParam: 'instance_id',
      kind: 'instance',
      label: 'Instance',
      operationPrefix: 'cloud.instances',
      calls: all,
      keyInPath: true,
    },
    {
      item: '/cloud/v2/instances/:project_id/:region_id/:instance_id',
      idParam: 'instance_id',
      kind: 'instance',
      label: 'Instance',
      operationPrefix: 'cloud.instances.v2',
      calls: ['item'],
    },
    {
      item: `${regional('loadbalancers')}/:load_balancer_id`,
      idParam: 'load_balancer_id',
      kind: 'loadbalancer',
      label: 'Load balancer',
      operationPrefix: 'cloud.loadBalancers',
      calls: all,
    },
    {
      item: `${regional('file_shares')}/:file_share_id`,
      idParam: 'file_share_id',
      kind: 'file_share',
      label: 'File share',
      operationPrefix: 'cloud.fileShares',
      calls: all,
    },
    {
      item: `${regional('snapshots')}/:snapshot_id`,
      idParam: 'snapshot_id',
      kind: 'snapshot',
      label: 'Snapshot',
      operationPrefix: 'cloud.snapshots',
      calls: ['replace'],
      replaceAnswers: snapshot,
    },
  ];
  for (const spec of specs) metadataRoutes(app, metadata, spec);
}
