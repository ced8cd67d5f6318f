import type { FastifyInstance } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { typed, type TypedApp } from '../../platform/typed.js';
import { at } from '../common/regional-routes.js';
import { CLOUD_TAG, NoBody, pageQuery, ProjectRegionParams, TaskIdList } from '../common/schemas.js';
import { InstanceSchema } from '../instances/schemas.js';
import type { PoolService } from './pools.js';
import {
  CertificateSchema,
  CheckClusterBody,
  CheckPoolBody,
  ClusterCreateBody,
  ClusterDeleteQuery,
  ClusterParams,
  ClusterSchema,
  ClusterUpdateBody,
  K8sFlavorQuery,
  K8sFlavorSchema,
  KubeconfigSchema,
  NodeListQuery,
  NodeParams,
  PoolInput,
  PoolNodeParams,
  PoolParams,
  PoolSchema,
  PoolUpdateBody,
  QuotaCheckSchema,
  ResizeBody,
  UpgradeBody,
  VersionList,
} from './schemas.js';
import type { ClusterService } from './service.js';

const base = '/cloud/v2/k8s/clusters/:project_id/:region_id';
// Items typed only as schemas: nodes are presented by the instance service, which this module does not type.
const List = (item: TSchema) => Type.Object({ count: Type.Integer({ minimum: 0 }), results: Type.Array(item) });
const page = Type.Object(pageQuery());
const doc = (operationId: string, summary: string) => ({ tags: [CLOUD_TAG], operationId, summary });

/** Clusters, their pools, and what a new cluster can have, in this order in the document. */
export function clusterRoutes(fastify: FastifyInstance, clusters: ClusterService, pools: PoolService): void {
  const app = typed(fastify);
  clusterItemRoutes(app, clusters, pools);
  poolRoutes(app, pools);
  optionRoutes(app, clusters);
}

function clusterItemRoutes(app: TypedApp, clusters: ClusterService, pools: PoolService): void {
  // Clusters are addressed by name, not by a UUID; the literal `pools/check_limits` is matched before a cluster name.
  app.post(
    base,
    {
      schema: {
        ...doc('cloud.k8s.clusters.create', 'Create a Kubernetes cluster with its pools (asynchronous)'),
        params: ProjectRegionParams,
        response: { 200: TaskIdList },
        body: ClusterCreateBody,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return clusters.create(caller, p.project_id, p.region_id, request.body);
    },
  );
  app.get(
    base,
    {
      schema: {
        ...doc('cloud.k8s.clusters.list', 'List Kubernetes clusters'),
        params: ProjectRegionParams,
        response: { 200: List(ClusterSchema) },
        querystring: page,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return clusters.list(caller, p.project_id, p.region_id, request.query);
    },
  );
  app.post(
    `${base}/check_limits`,
    {
      schema: {
        ...doc('cloud.k8s.clusters.checkLimits', 'Which quotas a new cluster would exceed ({} when it fits)'),
        params: ProjectRegionParams,
        response: { 200: QuotaCheckSchema },
        body: CheckClusterBody,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return pools.checkLimits(caller, p.project_id, p.region_id, request.body.pools ?? [], true);
    },
  );
  app.post(
    `${base}/pools/check_limits`,
    {
      schema: {
        ...doc('cloud.k8s.pools.checkLimits', 'Which quotas a new pool would exceed ({} when it fits)'),
        params: ProjectRegionParams,
        response: { 200: QuotaCheckSchema },
        body: CheckPoolBody,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return pools.checkLimits(caller, p.project_id, p.region_id, [request.body], false);
    },
  );
  app.get(
    `${base}/:cluster_name`,
    { schema: { ...doc('cloud.k8s.clusters.get', 'Get a Kubernetes cluster'), params: ClusterParams, response: { 200: ClusterSchema } } },
    async (request) => {
      const { caller, p } = at(request);
      return clusters.get(caller, p.project_id, p.region_id, p.cluster_name);
    },
  );
  app.patch(
    `${base}/:cluster_name`,
    {
      schema: {
        ...doc(
          'cloud.k8s.clusters.update',
          "Change a cluster's add-ons, authentication, autoscaler, CNI, DDoS profile or logging (asynchronous; no task when nothing changes)",
        ),
        params: ClusterParams,
        response: { 200: TaskIdList },
        body: ClusterUpdateBody,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return clusters.update(caller, p.project_id, p.region_id, p.cluster_name, request.body);
    },
  );
  app.delete(
    `${base}/:cluster_name`,
    {
      schema: {
        ...doc('cloud.k8s.clusters.delete', 'Delete a cluster with its pools and nodes (asynchronous)'),
        params: ClusterParams,
        response: { 200: TaskIdList },
        querystring: ClusterDeleteQuery,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return clusters.delete(caller, p.project_id, p.region_id, p.cluster_name, request.query);
    },
  );
  app.get(
    `${base}/:cluster_name/upgrade_versions`,
    {
      schema: { ...doc('cloud.k8s.clusters.upgradeVersions', 'Versions a cluster can be upgraded to'), params: ClusterParams, response: { 200: VersionList } },
    },
    async (request) => {
      const { caller, p } = at(request);
      return clusters.upgradeVersions(caller, p.project_id, p.region_id, p.cluster_name);
    },
  );
  app.post(
    `${base}/:cluster_name/upgrade`,
    {
      schema: {
        ...doc('cloud.k8s.clusters.upgrade', 'Upgrade a cluster to a newer version (asynchronous)'),
        params: ClusterParams,
        response: { 200: TaskIdList },
        body: UpgradeBody,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return clusters.upgrade(caller, p.project_id, p.region_id, p.cluster_name, request.body.version);
    },
  );
  app.get(
    `${base}/:cluster_name/config`,
    {
      schema: {
        ...doc('cloud.k8s.clusters.kubeconfig', 'The kubeconfig of a provisioned cluster'),
        params: ClusterParams,
        response: { 200: KubeconfigSchema },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return clusters.kubeconfig(caller, p.project_id, p.region_id, p.cluster_name);
    },
  );
  app.get(
    `${base}/:cluster_name/certificates`,
    {
      schema: {
        ...doc('cloud.k8s.clusters.certificates', 'The CA certificate and key of a provisioned cluster'),
        params: ClusterParams,
        response: { 200: CertificateSchema },
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return clusters.certificates(caller, p.project_id, p.region_id, p.cluster_name);
    },
  );
  app.get(
    `${base}/:cluster_name/instances`,
    {
      schema: {
        ...doc('cloud.k8s.clusters.nodes', 'The nodes of a cluster (instances)'),
        params: ClusterParams,
        response: { 200: List(InstanceSchema) },
        querystring: NodeListQuery,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return pools.nodes(caller, p.project_id, p.region_id, p.cluster_name, undefined, request.query);
    },
  );
  app.delete(
    `${base}/:cluster_name/instances/:instance_id`,
    { schema: { ...doc('cloud.k8s.clusters.deleteNode', 'Delete a node; its pool shrinks by one'), params: NodeParams, response: { 204: NoBody() } } },
    async (request, reply) => {
      const { caller, p } = at(request);
      await pools.deleteNode(caller, p.project_id, p.region_id, p.cluster_name, undefined, p.instance_id);
      return reply.code(204).send();
    },
  );
}

function poolRoutes(app: TypedApp, pools: PoolService): void {
  app.post(
    `${base}/:cluster_name/pools`,
    {
      schema: {
        ...doc('cloud.k8s.pools.create', 'Add a pool to a cluster (asynchronous)'),
        params: ClusterParams,
        response: { 200: TaskIdList },
        body: PoolInput,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return pools.create(caller, p.project_id, p.region_id, p.cluster_name, request.body);
    },
  );
  app.get(
    `${base}/:cluster_name/pools`,
    { schema: { ...doc('cloud.k8s.pools.list', 'The pools of a cluster'), params: ClusterParams, response: { 200: List(PoolSchema) }, querystring: page } },
    async (request) => {
      const { caller, p } = at(request);
      return pools.list(caller, p.project_id, p.region_id, p.cluster_name);
    },
  );
  app.get(
    `${base}/:cluster_name/pools/:pool_name`,
    { schema: { ...doc('cloud.k8s.pools.get', 'Get a pool'), params: PoolParams, response: { 200: PoolSchema } } },
    async (request) => {
      const { caller, p } = at(request);
      return pools.get(caller, p.project_id, p.region_id, p.cluster_name, p.pool_name);
    },
  );
  app.patch(
    `${base}/:cluster_name/pools/:pool_name`,
    {
      schema: {
        ...doc('cloud.k8s.pools.update', 'Change a pool at once (a new node_count adds or removes nodes)'),
        params: PoolParams,
        response: { 200: PoolSchema },
        body: PoolUpdateBody,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return pools.update(caller, p.project_id, p.region_id, p.cluster_name, p.pool_name, request.body);
    },
  );
  app.delete(
    `${base}/:cluster_name/pools/:pool_name`,
    { schema: { ...doc('cloud.k8s.pools.delete', 'Delete a pool and its nodes (asynchronous)'), params: PoolParams, response: { 200: TaskIdList } } },
    async (request) => {
      const { caller, p } = at(request);
      return pools.delete(caller, p.project_id, p.region_id, p.cluster_name, p.pool_name);
    },
  );
  app.post(
    `${base}/:cluster_name/pools/:pool_name/resize`,
    {
      schema: {
        ...doc('cloud.k8s.pools.resize', 'Change the number of nodes of a pool (asynchronous)'),
        params: PoolParams,
        response: { 200: TaskIdList },
        body: ResizeBody,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return pools.resize(caller, p.project_id, p.region_id, p.cluster_name, p.pool_name, request.body.node_count);
    },
  );
  app.get(
    `${base}/:cluster_name/pools/:pool_name/instances`,
    {
      schema: {
        ...doc('cloud.k8s.pools.nodes', 'The nodes of a pool (instances)'),
        params: PoolParams,
        response: { 200: List(InstanceSchema) },
        querystring: NodeListQuery,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return pools.nodes(caller, p.project_id, p.region_id, p.cluster_name, p.pool_name, request.query);
    },
  );
  app.delete(
    `${base}/:cluster_name/pools/:pool_name/instances/:instance_id`,
    {
      schema: { ...doc('cloud.k8s.pools.deleteNode', 'Delete a node of a pool; the pool shrinks by one'), params: PoolNodeParams, response: { 204: NoBody() } },
    },
    async (request, reply) => {
      const { caller, p } = at(request);
      await pools.deleteNode(caller, p.project_id, p.region_id, p.cluster_name, p.pool_name, p.instance_id);
      return reply.code(204).send();
    },
  );
}

function optionRoutes(app: TypedApp, clusters: ClusterService): void {
  app.get(
    '/cloud/v2/k8s/:project_id/:region_id/create_versions',
    { schema: { ...doc('cloud.k8s.versions', 'Versions a new cluster can have'), params: ProjectRegionParams, response: { 200: VersionList } } },
    async (request) => {
      const { caller, p } = at(request);
      return clusters.createVersions(caller, p.project_id, p.region_id);
    },
  );
  app.get(
    '/cloud/v1/k8s/:project_id/:region_id/flavors',
    {
      schema: {
        ...doc('cloud.k8s.flavors', 'Flavors Kubernetes nodes can have'),
        params: ProjectRegionParams,
        response: { 200: List(K8sFlavorSchema) },
        querystring: K8sFlavorQuery,
      },
    },
    async (request) => {
      const { caller, p } = at(request);
      return clusters.flavors(caller, p.project_id, p.region_id, request.query);
    },
  );
}
