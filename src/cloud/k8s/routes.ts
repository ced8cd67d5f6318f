import type { FastifyInstance } from 'fastify';
import { callerOf } from '../common/operations.js';
import { regionalRoutes } from '../common/regional-routes.js';
import { CLOUD_TAG, ProjectRegionParams, TaskIdList } from '../common/schemas.js';
import { ClusterCreateBody, ClusterParams, ClusterSchema, UpgradeBody, VersionList } from './schemas.js';
import type { ClusterService } from './service.js';
import { Type } from 'typebox';

const base = '/cloud/v2/k8s/clusters/:project_id/:region_id';
type P = { project_id: number; region_id: number; cluster_name: string };

export function clusterRoutes(app: FastifyInstance, clusters: ClusterService): void {
  // Clusters are addressed by name, not by a UUID.
  regionalRoutes(app, clusters, {
    base,
    idParam: 'cluster_name',
    itemParams: ClusterParams,
    create: { operationId: 'cloud.k8s.clusters.create', summary: 'Create a Kubernetes cluster (asynchronous)', body: ClusterCreateBody },
    list: { operationId: 'cloud.k8s.clusters.list', summary: 'List Kubernetes clusters', response: Type.Object({ count: Type.Integer(), results: Type.Array(ClusterSchema) }) },
    get: { operationId: 'cloud.k8s.clusters.get', summary: 'Get a Kubernetes cluster', response: ClusterSchema },
    delete: { operationId: 'cloud.k8s.clusters.delete', summary: 'Delete a Kubernetes cluster (asynchronous)' },
  });
  const common = { tags: [CLOUD_TAG] };
  app.get(`${base}/:cluster_name/upgrade_versions`, { schema: { ...common, operationId: 'cloud.k8s.clusters.upgradeVersions', summary: 'Versions a cluster can be upgraded to', params: ClusterParams, response: { 200: VersionList } } }, async (request) => {
    const p = request.params as P;
    return clusters.upgradeVersions(callerOf(request), p.project_id, p.region_id, p.cluster_name);
  });
  app.post(`${base}/:cluster_name/upgrade`, { schema: { ...common, operationId: 'cloud.k8s.clusters.upgrade', summary: 'Upgrade a cluster to a newer version (asynchronous)', params: ClusterParams, body: UpgradeBody, response: { 200: TaskIdList } } }, async (request) => {
    const p = request.params as P;
    return clusters.upgrade(callerOf(request), p.project_id, p.region_id, p.cluster_name, (request.body as { version: string }).version);
  });
  app.get('/cloud/v2/k8s/:project_id/:region_id/create_versions', { schema: { ...common, operationId: 'cloud.k8s.versions', summary: 'Versions a new cluster can have', params: ProjectRegionParams, response: { 200: VersionList } } }, async (request) => {
    const p = request.params as P;
    return clusters.createVersions(callerOf(request), p.project_id, p.region_id);
  });
}
