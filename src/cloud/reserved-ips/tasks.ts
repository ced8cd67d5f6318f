// Task types of reserved fixed IPs: create_reserved_fixed_ip (takes the address, or reserves an instance
// port) and delete_reserved_fixed_ip.
import type { TaskType } from '../../platform/tasks/types.js';
import { TaskFailure } from '../../platform/tasks/types.js';
import { attrsOf, pendingRow, ResourceStore } from '../common/resource-store.js';
import { deleteTask } from '../common/task-plans.js';
import type { PortAttrs } from '../instances/builder.js';
import { addressHolder, firstFreeAddress } from '../networks/service.js';
import type { QuotaService } from '../quotas/service.js';

// Not in the seed's Limits table: a port is a quick network object, like a floating IP.
const DURATION = [3_000, 10_000] as const;

export function reservedIpTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    {
      type: 'create_reserved_fixed_ip',
      durationMs: DURATION,
      async complete(ctx) {
        const { trx, data, now } = ctx;
        const store = new ResourceStore(trx);
        const port = await pendingRow(store, data.port_id, 'Reserved fixed IP');
        const a = attrsOf<PortAttrs>(port);
        if (data.convert) {
          await store.update(port.id, { attrs: JSON.stringify({ ...a, reserved: true, is_vip: false, connected: [] }), task_id: null, updated_at: now });
          return { ports: [port.id] };
        }
        // Checking takes the client's quota row (locked on PostgreSQL): its tasks pick addresses one at a time.
        await quotas.check(ctx, { external_ip_count: data.external ? 1 : 0 });
        if (data.subnet_ids) {
          const { address, subnet } = await firstFreeAddress(store, port.parent_id!, data.subnet_ids);
          Object.assign(a, { ip_address: address, subnet_id: subnet.id, subnet_name: subnet.name });
        } else if (!data.external && (await addressHolder(store, port.parent_id!, a.ip_address, port.id))) {
          throw new TaskFailure(`${a.ip_address} was taken on network ${port.parent_id} before the reservation finished`);
        }
        await store.update(port.id, { attrs: JSON.stringify(a), ready: 1, task_id: null, updated_at: now });
        return { ports: [port.id] };
      },
      async fail({ trx, data, now }) {
        const store = new ResourceStore(trx);
        if (data.convert) await store.update(data.port_id, { task_id: null, updated_at: now });
        else await store.delete(data.port_id);
      },
    },
    deleteTask({
      type: 'delete_reserved_fixed_ip',
      durationMs: DURATION,
      idKey: 'port_id',
      restore: {},
      // Its floating IPs stay in the project, unassigned.
      async remove(store, id) {
        for (const fip of await store.children(id, 'floatingip')) await store.update(fip.id, { parent_id: null, owner_id: null, status: 'DOWN' });
        await store.delete(id);
      },
    }),
  ];
}
