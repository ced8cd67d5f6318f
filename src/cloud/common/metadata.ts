// The deprecated "metadata" calls: the tags of a resource under another name (list, merge, replace,
// read and delete one). They change the same tags the resources' own updates do, so a tag set one way
// is seen the other way.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { notFound } from '../../platform/errors.js';
import { badInput, queryField } from './errors.js';
import { patchTags, tagList, type Tag } from './format.js';
import { type Operations } from './operations.js';
import { callerOf, type Caller } from '../../platform/auth/caller.js';
import { attrsOf, type ResourceKind, type ResourceRow } from './resource-store.js';
import { CLOUD_TAG, LIMITS, TagSchema, Uuid } from './schemas.js';

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
  async write(caller: Caller, kind: ResourceKind, label: string, p: Params, id: string, tags: Record<string, string | null> | null, merge: boolean): Promise<ResourceRow> {
    const row = await this.row(caller, kind, label, p, id);
    const attrs = attrsOf<{ tags: Record<string, string> }>(row);
    attrs.tags = patchTags(merge ? attrs.tags ?? {} : {}, tags ?? {});
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

export function metadataRoutes(app: FastifyInstance, metadata: MetadataService, spec: MetadataSpec): void {
  const params = Type.Object({ project_id: Type.Integer({ minimum: 1 }), region_id: Type.Integer({ minimum: 1 }), [spec.idParam]: Uuid() });
  const keyParams = Type.Object({ ...params.properties, key: TAG_KEY });
  const at = (request: FastifyRequest) => {
    const p = request.params as Params & Record<string, string>;
    return { caller: callerOf(request), p, id: p[spec.idParam], key: p.key ?? (request.query as { key?: string }).key };
  };
  const schema = (name: string, summary: string, extra: Record<string, unknown>) => ({ tags: [CLOUD_TAG], operationId: `${spec.operationPrefix}.metadata.${name}`, summary, deprecated: true, ...extra });
  const noContent = (reply: FastifyReply) => reply.code(204).send();
  const args = [spec.kind, spec.label] as const;
  if (spec.calls.includes('list')) {
    app.get(`${spec.item}/metadata`, { schema: schema('list', 'The tags of the resource (deprecated: read the resource)', { params, response: { 200: TagList } }) }, async (request) => {
      const { caller, p, id } = at(request);
      return metadata.list(caller, ...args, p, id);
    });
  }
  if (spec.calls.includes('merge')) {
    app.post(`${spec.item}/metadata`, { schema: schema('merge', 'Set tags (null removes one) (deprecated: PATCH the resource)', { params, body: TagsBody, response: { 204: Type.Null() } }) }, async (request, reply) => {
      const { caller, p, id } = at(request);
      await metadata.write(caller, ...args, p, id, request.body as Record<string, string | null>, true);
      return noContent(reply);
    });
  }
  if (spec.calls.includes('replace')) {
    const answer = spec.replaceAnswers;
    app.put(`${spec.item}/metadata`, { schema: schema('replace', 'Replace every tag (deprecated: PATCH the resource)', { params, body: TagsBody, response: answer ? { 200: answer.schema } : { 204: Type.Null() } }) }, async (request, reply) => {
      const { caller, p, id } = at(request);
      const row = await metadata.write(caller, ...args, p, id, request.body as Record<string, string | null>, false);
      return answer ? answer.present(row) : noContent(reply);
    });
  }
  if (spec.calls.includes('item')) {
    const url = spec.keyInPath ? `${spec.item}/metadata/:key` : `${spec.item}/metadata_item`;
    // The key is required; the query schema leaves it out so that another client's resource is a 404 before a missing key is a 400.
    const where = spec.keyInPath ? { params: keyParams } : { params, querystring: Type.Object({ key: Type.Optional(TAG_KEY) }) };
    const suffix = spec.keyInPath ? 'tag' : 'item';
    app.get(url, { schema: schema(`${suffix}.get`, 'One tag of the resource', { ...where, response: { 200: TagSchema } }) }, async (request) => {
      const { caller, p, id, key } = at(request);
      return metadata.item(caller, ...args, p, id, key);
    });
    app.delete(url, { schema: schema(`${suffix}.delete`, 'Remove one tag of the resource', { ...where, response: { 204: Type.Null() } }) }, async (request, reply) => {
      const { caller, p, id, key } = at(request);
      await metadata.remove(caller, ...args, p, id, key);
      return noContent(reply);
    });
  }
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
    { item: `${regional('floatingips')}/:floating_ip_id`, idParam: 'floating_ip_id', kind: 'floatingip', label: 'Floating IP', operationPrefix: 'cloud.floatingIps', calls: all },
    { item: `${regional('securitygroups')}/:group_id`, idParam: 'group_id', kind: 'security_group', label: 'Security group', operationPrefix: 'cloud.securityGroups', calls: all },
    { item: `${regional('instances')}/:instance_id`, idParam: 'instance_id', kind: 'instance', label: 'Instance', operationPrefix: 'cloud.instances', calls: all, keyInPath: true },
    { item: '/cloud/v2/instances/:project_id/:region_id/:instance_id', idParam: 'instance_id', kind: 'instance', label: 'Instance', operationPrefix: 'cloud.instances.v2', calls: ['item'] },
    { item: `${regional('loadbalancers')}/:load_balancer_id`, idParam: 'load_balancer_id', kind: 'loadbalancer', label: 'Load balancer', operationPrefix: 'cloud.loadBalancers', calls: all },
    { item: `${regional('file_shares')}/:file_share_id`, idParam: 'file_share_id', kind: 'file_share', label: 'File share', operationPrefix: 'cloud.fileShares', calls: all },
    { item: `${regional('snapshots')}/:snapshot_id`, idParam: 'snapshot_id', kind: 'snapshot', label: 'Snapshot', operationPrefix: 'cloud.snapshots', calls: ['replace'], replaceAnswers: snapshot },
  ];
  for (const spec of specs) metadataRoutes(app, metadata, spec);
}
