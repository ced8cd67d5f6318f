// The Cloud product: projects, regions, tasks and the resources made through them, on the durable
// task engine of src/platform/tasks.
import { exceptionEnvelope } from '../platform/envelopes.js';
import type { PlatformDeps, Product } from '../platform/product.js';
import { TaskEngine } from '../platform/tasks/engine.js';
import { allMetadataRoutes, MetadataService } from './common/metadata.js';
import { Operations } from './common/operations.js';
import { ResourceStore } from './common/resource-store.js';
import { applyCloudRouteRules } from './common/route-rules.js';
import { taskControlRoutes } from './control/routes.js';
import { fileShareRoutes } from './file-shares/routes.js';
import { FileShareService } from './file-shares/service.js';
import { floatingIpRoutes } from './floating-ips/routes.js';
import { FloatingIpService } from './floating-ips/service.js';
import { imageRoutes } from './images/routes.js';
import { ImageService } from './images/service.js';
import { InstanceBuilder } from './instances/builder.js';
import { InstanceGroups } from './instances/groups.js';
import { instanceRoutes } from './instances/routes.js';
import { InstanceService } from './instances/service.js';
import { InterfaceService } from './instances/interfaces.js';
import { PoolService } from './k8s/pools.js';
import { Balancers } from './load-balancers/balancers.js';
import { LbBuilder } from './load-balancers/builder.js';
import { l7Routes, listenerRoutes, poolRoutes } from './load-balancers/child-routes.js';
import { L7Service } from './load-balancers/l7.js';
import { ListenerService } from './load-balancers/listeners.js';
import { LbPlacement } from './load-balancers/placement.js';
import { PoolService as LbPoolService } from './load-balancers/pools.js';
import { LbPresenter } from './load-balancers/present.js';
import { loadBalancerRoutes } from './load-balancers/routes.js';
import { LoadBalancerService } from './load-balancers/service.js';
import { clusterRoutes } from './k8s/routes.js';
import { ClusterService } from './k8s/service.js';
import { networkRoutes } from './networks/routes.js';
import { NetworkService } from './networks/service.js';
import { subnetRoutes } from './networks/subnets/routes.js';
import { SubnetService } from './networks/subnets/service.js';
import { projectRoutes } from './projects/routes.js';
import { ProjectService } from './projects/service.js';
import { ProjectStore } from './projects/store.js';
import { placementGroupRoutes } from './placement-groups/routes.js';
import { PlacementGroupService } from './placement-groups/service.js';
import { portRoutes } from './ports/routes.js';
import { PortService } from './ports/service.js';
import { quotaRoutes } from './quotas/routes.js';
import { QuotaService } from './quotas/service.js';
import { QuotaStore } from './quotas/store.js';
import { regionRoutes } from './regions/routes.js';
import { RegionService } from './regions/service.js';
import { reservedIpRoutes } from './reserved-ips/routes.js';
import { ReservedIpService } from './reserved-ips/service.js';
import { routerRoutes } from './routers/routes.js';
import { RouterService } from './routers/service.js';
import { RuleService } from './security-groups/rule-service.js';
import { securityGroupRoutes } from './security-groups/routes.js';
import { SecurityGroupService } from './security-groups/service.js';
import { snapshotRoutes } from './snapshots/routes.js';
import { SnapshotSchema } from './snapshots/schemas.js';
import { SnapshotService } from './snapshots/service.js';
import { sshKeyRoutes } from './ssh-keys/routes.js';
import { SshKeyService } from './ssh-keys/service.js';
import { cloudTaskTypes } from './task-types.js';
import { taskRoutes } from './tasks/routes.js';
import { TaskService } from './tasks/service.js';
import { TaskStore } from './tasks/store.js';
import { VolumeActions } from './volumes/actions.js';
import { volumeRoutes } from './volumes/routes.js';
import { VolumeService } from './volumes/service.js';

export interface CloudProduct extends Product {
  engine: TaskEngine;
}

export function createCloud({ db, clock, config }: PlatformDeps): CloudProduct {
  const regions = new RegionService();
  const projectStore = new ProjectStore(db.kysely);
  const projects = new ProjectService(projectStore, clock);
  const quotas = new QuotaService(new QuotaStore(db.kysely, db.engine), new ResourceStore(db.kysely), regions, clock, (id) => projectStore.countActive(id));
  const engine = new TaskEngine({ db, clock, types: cloudTaskTypes(quotas), mode: { mode: config.taskMode, speed: config.taskSpeed } });
  const ops = new Operations(db, clock, engine, projects, regions);
  projects.operations = ops;
  // Resources, in the order they depend on one another.
  const keys = new SshKeyService(ops, quotas);
  const groups = new SecurityGroupService(ops, quotas);
  const rules = new RuleService(ops, groups);
  const images = new ImageService(ops);
  const snapshots = new SnapshotService(ops);
  const networks = new NetworkService(ops);
  const subnets = new SubnetService(ops, networks);
  const floatingIps = new FloatingIpService(ops);
  const reservedIps = new ReservedIpService(ops, networks, subnets);
  const routers = new RouterService(ops, networks, quotas);
  const fileShares = new FileShareService(ops, networks, quotas);
  const builder = new InstanceBuilder(ops, networks, images, snapshots, groups, floatingIps);
  const placementGroups = new PlacementGroupService(ops, quotas);
  const instances = new InstanceService(ops, builder, keys, placementGroups);
  const interfaces = new InterfaceService(ops, networks, subnets, floatingIps, builder, groups);
  const instanceGroups = new InstanceGroups(ops, groups);
  const volumes = new VolumeService(ops, images, snapshots);
  const volumeActions = new VolumeActions(ops, volumes);
  const pools = new PoolService(ops, groups, quotas);
  const clusters = new ClusterService(ops, keys, pools);
  const lb = loadBalancers(ops, networks, floatingIps, quotas);
  // Lists of groups, floating IPs and nodes show instances, which are made after them.
  const presentInstance = (row: Parameters<InstanceService['present']>[0]) => instances.present(row);
  groups.presentInstance = presentInstance;
  floatingIps.presentInstance = presentInstance;
  floatingIps.presentLoadBalancer = async (row) =>
    lb.presenter.loadBalancer(
      row,
      await lb.presenter.liveness({ clientId: row.client_id, projectId: Number(row.project_id), regionId: Number(row.region_id) }),
    );
  pools.presentInstance = presentInstance;
  const tasks = new TaskService(new TaskStore(db.kysely, db.raw.sqlite), clock, (clientId, projectId, regionId) =>
    ops.readable({ clientId, userId: 0, requestId: '', injectedFailure: null }, projectId, regionId),
  );
  return {
    name: 'cloud',
    prefixes: ['/cloud'],
    envelope: exceptionEnvelope,
    tags: [
      {
        name: 'Cloud',
        description:
          'Projects, regions, asynchronous tasks, instances, images, volumes, snapshots, networks, floating IPs, reserved fixed IPs, ports, routers, file shares, placement groups, security groups, SSH keys, Kubernetes, load balancers, quotas',
      },
    ],
    engine,
    register(app) {
      applyCloudRouteRules(app);
      // Every client has a default project from its first cloud call.
      // Callback style: this hook sees every request of every product, most of which return at once.
      app.addHook('preHandler', (request, _reply, done) => {
        const principal = request.principal;
        // Known already on all but a client's first call: answered without a promise and its turns.
        if (principal?.kind !== 'client' || !request.url.startsWith('/cloud/') || projects.hasDefault(principal.clientId)) return done();
        projects.ensureDefault(principal.clientId).then(() => done(), done);
      });
      app.addHook('onReady', async () => engine.start());
      app.addHook('onClose', async () => engine.stop());
      projectRoutes(app, projects);
      regionRoutes(app, regions);
      taskRoutes(app, tasks);
      networkRoutes(app, networks);
      subnetRoutes(app, subnets);
      instanceRoutes(app, instances, interfaces, instanceGroups);
      imageRoutes(app, images);
      volumeRoutes(app, volumes, volumeActions);
      snapshotRoutes(app, snapshots);
      floatingIpRoutes(app, floatingIps);
      reservedIpRoutes(app, reservedIps);
      routerRoutes(app, routers);
      fileShareRoutes(app, fileShares);
      placementGroupRoutes(app, placementGroups);
      portRoutes(app, new PortService(ops));
      securityGroupRoutes(app, groups, rules);
      sshKeyRoutes(app, keys);
      clusterRoutes(app, clusters, pools);
      // Innermost first in the document: a walk through it reaches a balancer's children before the balancer's delete takes them.
      l7Routes(app, lb.l7);
      poolRoutes(app, lb.pools);
      listenerRoutes(app, lb.listeners);
      loadBalancerRoutes(app, lb.balancers);
      allMetadataRoutes(app, new MetadataService(ops), { schema: SnapshotSchema, present: (row) => snapshots.present(row) });
      quotaRoutes(app, quotas);
      taskControlRoutes(app, engine);
    },
  };
}

/** The load balancer services: balancers, listeners, pools (members, monitors) and L7 policies. */
function loadBalancers(ops: Operations, networks: NetworkService, floatingIps: FloatingIpService, quotas: QuotaService) {
  const records = new Balancers(ops);
  const placement = new LbPlacement(ops, networks);
  const builder = new LbBuilder(placement);
  const presenter = new LbPresenter(ops, floatingIps);
  return {
    presenter,
    balancers: new LoadBalancerService(ops, records, placement, builder, presenter, floatingIps, quotas),
    listeners: new ListenerService(ops, records, builder, presenter),
    pools: new LbPoolService(ops, records, builder, placement, presenter),
    l7: new L7Service(ops, records),
  };
}
