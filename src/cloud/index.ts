// The Cloud product: projects, regions, tasks and the resources made through them, on the durable
// task engine of src/platform/tasks.
import { exceptionEnvelope } from '../platform/envelopes.js';
import type { PlatformDeps, Product } from '../platform/product.js';
import { TaskEngine } from '../platform/tasks/engine.js';
import { Operations } from './common/operations.js';
import { ResourceStore } from './common/resource-store.js';
import { taskControlRoutes } from './control/routes.js';
import { floatingIpRoutes } from './floating-ips/routes.js';
import { FloatingIpService } from './floating-ips/service.js';
import { instanceRoutes } from './instances/routes.js';
import { InstanceService } from './instances/service.js';
import { InterfaceService } from './instances/interfaces.js';
import { clusterRoutes } from './k8s/routes.js';
import { ClusterService } from './k8s/service.js';
import { networkRoutes } from './networks/routes.js';
import { NetworkService } from './networks/service.js';
import { subnetRoutes } from './networks/subnets/routes.js';
import { SubnetService } from './networks/subnets/service.js';
import { projectRoutes } from './projects/routes.js';
import { ProjectService } from './projects/service.js';
import { ProjectStore } from './projects/store.js';
import { quotaRoutes } from './quotas/routes.js';
import { QuotaService } from './quotas/service.js';
import { QuotaStore } from './quotas/store.js';
import { regionRoutes } from './regions/routes.js';
import { RegionService } from './regions/service.js';
import { cloudTaskTypes } from './task-types.js';
import { taskRoutes } from './tasks/routes.js';
import { TaskService } from './tasks/service.js';
import { TaskStore } from './tasks/store.js';
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
  const networks = new NetworkService(ops);
  const subnets = new SubnetService(ops, networks);
  const instances = new InstanceService(ops, networks);
  const volumes = new VolumeService(ops, instances);
  const floatingIps = new FloatingIpService(ops, instances);
  const interfaces = new InterfaceService(ops, networks, subnets, floatingIps);
  const clusters = new ClusterService(ops);
  const tasks = new TaskService(new TaskStore(db.kysely, db.raw.sqlite), clock, (clientId, projectId, regionId) =>
    ops.readable({ clientId, userId: 0, requestId: '', injectedFailure: null }, projectId, regionId),
  );
  return {
    name: 'cloud',
    prefixes: ['/cloud'],
    envelope: exceptionEnvelope,
    tags: [{ name: 'Cloud', description: 'Projects, regions, asynchronous tasks, instances, volumes, networks, floating IPs, Kubernetes, quotas' }],
    engine,
    register(app) {
      // Every client has a default project from its first cloud call.
      // Callback style: this hook sees every request of every product, most of which return at once.
      app.addHook('preHandler', (request, _reply, done) => {
        const principal = request.principal;
        if (principal?.kind !== 'client' || !request.url.startsWith('/cloud/')) return done();
        projects.ensureDefault(principal.clientId).then(() => done(), done);
      });
      app.addHook('onReady', async () => engine.start());
      app.addHook('onClose', async () => engine.stop());
      projectRoutes(app, projects);
      regionRoutes(app, regions);
      taskRoutes(app, tasks);
      networkRoutes(app, networks);
      subnetRoutes(app, subnets);
      instanceRoutes(app, instances, interfaces);
      volumeRoutes(app, volumes);
      floatingIpRoutes(app, floatingIps);
      clusterRoutes(app, clusters);
      quotaRoutes(app, quotas);
      taskControlRoutes(app, engine);
    },
  };
}
