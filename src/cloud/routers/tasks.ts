// Task types of routers: create_router (with its interfaces and gateway), update_router (v2 PATCH) and
// delete_router.
import type { TaskType } from '../../platform/tasks/types.js';
import { attrsOf, pendingRow, ResourceStore } from '../common/resource-store.js';
import { deleteTask } from '../common/task-plans.js';
import { requireOwnAddresses } from '../networks/service.js';
import type { QuotaService } from '../quotas/service.js';
import type { RouterAttrs } from './records.js';
import { applyGateway, gatewayPort } from './service.js';

// Seed, Limits: networks and subnets take 5 to 10 s; a router is a network object of the same kind.
const DURATION = [5_000, 10_000] as const;

export function routerTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    {
      type: 'create_router',
      durationMs: DURATION,
      async complete(ctx) {
        const { trx, task, data, now } = ctx;
        const store = new ResourceStore(trx);
        const router = await pendingRow(store, data.router_id, 'Router');
        const ports = await store.attachedTo(router.id, 'port');
        await quotas.check(ctx, {
          router_count: 1,
          external_ip_count: ports.filter((p) => p.parent_id === null).length,
        });
        await requireOwnAddresses(store, ports);
        await store.updateCreatedBy(task.task_id, { ready: 1, task_id: null, updated_at: now });
        await store.update(router.id, { status: 'ACTIVE' });
        return { routers: [router.id] };
      },
      async fail({ trx, task }) {
        await new ResourceStore(trx).deleteCreatedBy(task.task_id);
      },
    },
    {
      type: 'update_router',
      durationMs: DURATION,
      async complete(ctx) {
        const { trx, task, data, now } = ctx;
        const store = new ResourceStore(trx);
        const router = await pendingRow(store, data.router_id, 'Router');
        const scope = { clientId: task.client_id, projectId: Number(router.project_id), regionId: Number(router.region_id) };
        if ((data.attrs as RouterAttrs).gateway && !attrsOf<RouterAttrs>(router).gateway) await quotas.check(ctx, { external_ip_count: 1 }, scope.regionId);
        const attrs = await applyGateway(store, router, data.attrs, () => gatewayPort(scope, router.id, now));
        await store.update(router.id, { name: data.name, attrs: JSON.stringify(attrs), task_id: null, updated_at: now });
      },
      async fail({ trx, data, now }) {
        await new ResourceStore(trx).update(data.router_id, { task_id: null, updated_at: now });
      },
    },
    deleteTask({
      type: 'delete_router',
      durationMs: DURATION,
      idKey: 'router_id',
      restore: { status: 'ACTIVE' },
      // Its gateway goes with it (the request refused it while subnets were attached).
      async remove(store, id) {
        await store.deleteMany([...(await store.attachedTo(id, 'port')).map((p) => p.id), id]);
      },
    }),
  ];
}
