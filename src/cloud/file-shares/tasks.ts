// Task types of file shares: create_sfs (the server takes its subnet address), update_sfs (v3 PATCH),
// extend_sfs and delete_sfs (with its access rules and server port).
import type { TaskType } from '../../platform/tasks/types.js';
import { attrsOf, pendingRow, ResourceStore } from '../common/resource-store.js';
import { deleteTask } from '../common/task-plans.js';
import type { PortAttrs } from '../instances/builder.js';
import { firstFreeAddress } from '../networks/service.js';
import type { QuotaService } from '../quotas/service.js';
import type { ShareAttrs } from './service.js';

// Seed, Limits: not listed. A share is provisioned storage, like a volume (5 to 15 s); extending it too.
const DURATION = [5_000, 15_000] as const;

export function fileShareTaskTypes(quotas: QuotaService): TaskType[] {
  return [
    {
      type: 'create_sfs',
      durationMs: DURATION,
      async complete(ctx) {
        const { trx, task, data, now } = ctx;
        const store = new ResourceStore(trx);
        const share = await pendingRow(store, data.file_share_id, 'File share');
        // The check takes the client's quota row first: its tasks pick server addresses one at a time.
        await quotas.check(ctx, { sfs_count: 1, sfs_size: Number(share.size_gb) });
        const portId = attrsOf<ShareAttrs>(share).port_id;
        const port = portId ? await store.byId(portId) : undefined;
        if (port) {
          const { address, subnet } = await firstFreeAddress(store, port.parent_id!, data.subnet_ids);
          await store.update(port.id, {
            attrs: JSON.stringify({ ...attrsOf<PortAttrs>(port), ip_address: address, subnet_id: subnet.id, subnet_name: subnet.name }),
          });
        }
        await store.updateCreatedBy(task.task_id, { ready: 1, task_id: null, updated_at: now });
        await store.update(share.id, { status: 'available' });
        return { file_shares: [share.id] };
      },
      async fail({ trx, task }) {
        await new ResourceStore(trx).deleteCreatedBy(task.task_id);
      },
    },
    {
      type: 'update_sfs',
      durationMs: [2_000, 5_000],
      async complete({ trx, data, now }) {
        const store = new ResourceStore(trx);
        await pendingRow(store, data.file_share_id, 'File share');
        await store.update(data.file_share_id, { name: data.name, attrs: JSON.stringify(data.attrs), task_id: null, updated_at: now });
      },
      async fail({ trx, data, now }) {
        await new ResourceStore(trx).update(data.file_share_id, { task_id: null, updated_at: now });
      },
    },
    {
      type: 'extend_sfs',
      durationMs: DURATION,
      async complete(ctx) {
        const { trx, data, now } = ctx;
        const store = new ResourceStore(trx);
        const share = await pendingRow(store, data.file_share_id, 'File share');
        await quotas.checkAtCommit(ctx, { sfs_size: data.size - Number(share.size_gb) });
        await store.update(share.id, { size_gb: data.size, status: 'available', task_id: null, updated_at: now });
      },
      async fail({ trx, data, now }) {
        await new ResourceStore(trx).update(data.file_share_id, { status: 'available', task_id: null, updated_at: now });
      },
    },
    deleteTask({
      type: 'delete_sfs',
      durationMs: DURATION,
      idKey: 'file_share_id',
      restore: { status: 'available' },
      async remove(store, id) {
        const share = await store.byId(id);
        const portId = share ? attrsOf<ShareAttrs>(share).port_id : null;
        await store.deleteMany([...(await store.children(id, 'sfs_access_rule')).map((r) => r.id), ...(portId ? [portId] : []), id]);
      },
    }),
  ];
}
