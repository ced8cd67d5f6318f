import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { callerOf, type Caller } from '../../platform/auth/caller.js';
import { CLOUD_TAG, pageQuery, ProjectRegionParams, TaskIdList } from '../common/schemas.js';
import { InstanceSchema } from '../instances/schemas.js';
import type { PoolService } from './pools.js';
import {
  CertificateSchema, CheckClusterBody, CheckPoolBody, ClusterCreateBody, ClusterDeleteQuery, ClusterParams, ClusterSchema, ClusterUpdateBody, K8sFlavorQuery, K8sFlavorSchema,
  KubeconfigSchema, NodeListQuery, NodeParams, PoolInput, PoolNodeParams, PoolParams, PoolSchema, PoolUpdateBody, QuotaCheckSchema, ResizeBody, UpgradeBody, VersionList,
} from './schemas.js';
import type { ClusterService } from './service.js';

const base = '/cloud/v2/k8s/clusters/:project_id/:region_id';
type P = { project_id: number; region_id: number; cluster_name: string; pool_name: string; instance_id: string };
type Handler = (caller: Caller, p: P, input: never, reply: FastifyReply) => Promise<unknown>;
const List = (item: TSchema) => Type.Object({ count: Type.Integer({ minimum: 0 }), results: Type.Array(item) });

export function clusterRoutes(app: FastifyInstance, clusters: ClusterService, pools: PoolService): void {
  const route = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, operationId: string, summary: string, params: TSchema, response: Record<number, TSchema>, handler: Handler, extra: { body?: TSchema; querystring?: TSchema } = {}) =>
    app.route({
      method, url,
      schema: { tags: [CLOUD_TAG], operationId, summary, params, response, ...extra },
      handler: async (request: FastifyRequest, reply: FastifyReply) => handler(callerOf(request), request.params as P, (request.body ?? request.query) as never, reply),
    });
  const noContent = async (reply: FastifyReply, work: Promise<void>) => {
    await work;
    return reply.code(204).send();
  };
  const page = { querystring: Type.Object(pageQuery()) };

  // Clusters are addressed by name, not by a UUID; the literal `pools/check_limits` is matched before a cluster name.
  route('POST', base, 'cloud.k8s.clusters.create', 'Create a Kubernetes cluster with its pools (asynchronous)', ProjectRegionParams, { 200: TaskIdList }, (c, p, b) => clusters.create(c, p.project_id, p.region_id, b), { body: ClusterCreateBody });
  route('GET', base, 'cloud.k8s.clusters.list', 'List Kubernetes clusters', ProjectRegionParams, { 200: List(ClusterSchema) }, (c, p, q: { limit: number; offset: number }) => clusters.list(c, p.project_id, p.region_id, q), page);
  route('POST', `${base}/check_limits`, 'cloud.k8s.clusters.checkLimits', 'Which quotas a new cluster would exceed ({} when it fits)', ProjectRegionParams, { 200: QuotaCheckSchema }, (c, p, b: { pools?: never[] }) => pools.checkLimits(c, p.project_id, p.region_id, b.pools ?? [], true), { body: CheckClusterBody });
  route('POST', `${base}/pools/check_limits`, 'cloud.k8s.pools.checkLimits', 'Which quotas a new pool would exceed ({} when it fits)', ProjectRegionParams, { 200: QuotaCheckSchema }, (c, p, b) => pools.checkLimits(c, p.project_id, p.region_id, [b], false), { body: CheckPoolBody });
  route('GET', `${base}/:cluster_name`, 'cloud.k8s.clusters.get', 'Get a Kubernetes cluster', ClusterParams, { 200: ClusterSchema }, (c, p) => clusters.get(c, p.project_id, p.region_id, p.cluster_name));
  route('PATCH', `${base}/:cluster_name`, 'cloud.k8s.clusters.update', 'Change a cluster\'s add-ons, authentication, autoscaler, CNI, DDoS profile or logging (asynchronous; no task when nothing changes)', ClusterParams, { 200: TaskIdList }, (c, p, b) => clusters.update(c, p.project_id, p.region_id, p.cluster_name, b), { body: ClusterUpdateBody });
  route('DELETE', `${base}/:cluster_name`, 'cloud.k8s.clusters.delete', 'Delete a cluster with its pools and nodes (asynchronous)', ClusterParams, { 200: TaskIdList }, (c, p, q) => clusters.delete(c, p.project_id, p.region_id, p.cluster_name, q), { querystring: ClusterDeleteQuery });
  route('GET', `${base}/:cluster_name/upgrade_versions`, 'cloud.k8s.clusters.upgradeVersions', 'Versions a cluster can be upgraded to', ClusterParams, { 200: VersionList }, (c, p) => clusters.upgradeVersions(c, p.project_id, p.region_id, p.cluster_name));
  route('POST', `${base}/:cluster_name/upgrade`, 'cloud.k8s.clusters.upgrade', 'Upgrade a cluster to a newer version (asynchronous)', ClusterParams, { 200: TaskIdList }, (c, p, b: { version: string }) => clusters.upgrade(c, p.project_id, p.region_id, p.cluster_name, b.version), { body: UpgradeBody });
  route('GET', `${base}/:cluster_name/config`, 'cloud.k8s.clusters.kubeconfig', 'The kubeconfig of a provisioned cluster', ClusterParams, { 200: KubeconfigSchema }, (c, p) => clusters.kubeconfig(c, p.project_id, p.region_id, p.cluster_name));
  route('GET', `${base}/:cluster_name/certificates`, 'cloud.k8s.clusters.certificates', 'The CA certificate and key of a provisioned cluster', ClusterParams, { 200: CertificateSchema }, (c, p) => clusters.certificates(c, p.project_id, p.region_id, p.cluster_name));
  route('GET', `${base}/:cluster_name/instances`, 'cloud.k8s.clusters.nodes', 'The nodes of a cluster (instances)', ClusterParams, { 200: List(InstanceSchema) }, (c, p, q: { limit: number; offset: number }) => pools.nodes(c, p.project_id, p.region_id, p.cluster_name, undefined, q), { querystring: NodeListQuery });
  route('DELETE', `${base}/:cluster_name/instances/:instance_id`, 'cloud.k8s.clusters.deleteNode', 'Delete a node; its pool shrinks by one', NodeParams, { 204: Type.Null() }, (c, p, _q, reply) => noContent(reply, pools.deleteNode(c, p.project_id, p.region_id, p.cluster_name, undefined, p.instance_id)));

  route('POST', `${base}/:cluster_name/pools`, 'cloud.k8s.pools.create', 'Add a pool to a cluster (asynchronous)', ClusterParams, { 200: TaskIdList }, (c, p, b) => pools.create(c, p.project_id, p.region_id, p.cluster_name, b), { body: PoolInput });
  route('GET', `${base}/:cluster_name/pools`, 'cloud.k8s.pools.list', 'The pools of a cluster', ClusterParams, { 200: List(PoolSchema) }, (c, p) => pools.list(c, p.project_id, p.region_id, p.cluster_name), page);
  route('GET', `${base}/:cluster_name/pools/:pool_name`, 'cloud.k8s.pools.get', 'Get a pool', PoolParams, { 200: PoolSchema }, (c, p) => pools.get(c, p.project_id, p.region_id, p.cluster_name, p.pool_name));
  route('PATCH', `${base}/:cluster_name/pools/:pool_name`, 'cloud.k8s.pools.update', 'Change a pool at once (a new node_count adds or removes nodes)', PoolParams, { 200: PoolSchema }, (c, p, b) => pools.update(c, p.project_id, p.region_id, p.cluster_name, p.pool_name, b), { body: PoolUpdateBody });
  route('DELETE', `${base}/:cluster_name/pools/:pool_name`, 'cloud.k8s.pools.delete', 'Delete a pool and its nodes (asynchronous)', PoolParams, { 200: TaskIdList }, (c, p) => pools.delete(c, p.project_id, p.region_id, p.cluster_name, p.pool_name));
  route('POST', `${base}/:cluster_name/pools/:pool_name/resize`, 'cloud.k8s.pools.resize', 'Change the number of nodes of a pool (asynchronous)', PoolParams, { 200: TaskIdList }, (c, p, b: { node_count: number }) => pools.resize(c, p.project_id, p.region_id, p.cluster_name, p.pool_name, b.node_count), { body: ResizeBody });
  route('GET', `${base}/:cluster_name/pools/:pool_name/instances`, 'cloud.k8s.pools.nodes', 'The nodes of a pool (instances)', PoolParams, { 200: List(InstanceSchema) }, (c, p, q: { limit: number; offset: number }) => pools.nodes(c, p.project_id, p.region_id, p.cluster_name, p.pool_name, q), { querystring: NodeListQuery });
  route('DELETE', `${base}/:cluster_name/pools/:pool_name/instances/:instance_id`, 'cloud.k8s.pools.deleteNode', 'Delete a node of a pool; the pool shrinks by one', PoolNodeParams, { 204: Type.Null() }, (c, p, _q, reply) => noContent(reply, pools.deleteNode(c, p.project_id, p.region_id, p.cluster_name, p.pool_name, p.instance_id)));

  route('GET', '/cloud/v2/k8s/:project_id/:region_id/create_versions', 'cloud.k8s.versions', 'Versions a new cluster can have', ProjectRegionParams, { 200: VersionList }, (c, p) => clusters.createVersions(c, p.project_id, p.region_id));
  route('GET', '/cloud/v1/k8s/:project_id/:region_id/flavors', 'cloud.k8s.flavors', 'Flavors Kubernetes nodes can have', ProjectRegionParams, { 200: List(K8sFlavorSchema) }, (c, p, q: { limit: number; offset: number }) => clusters.flavors(c, p.project_id, p.region_id, q), { querystring: K8sFlavorQuery });
}
