// The cloud resource tables. Each resource is one entry: where it is listed, its columns and status,
// whether it can be created or deleted from here. A table polls every second while any row is changing.
import type { AnyComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../../api';
import { shortId, time } from '../../format';
import { useAction, useResource } from '../../hooks';
import { columnsFor, DataTable, type Columns } from '../../ui/table';
import { Drawer, ErrorNote, Json, Status } from '../../ui/widgets';
import type { CloudContext, List, TaskIds } from './context';
import { InstanceForm, NetworkForm, SubnetForm, VolumeForm } from './create-forms';

type Row = Record<string, any>;

export interface ResourceDef {
  id: string;
  title: string;
  singular: string;
  /** List path without /{project}/{region}. */
  base: string;
  /** Path of one item, when it differs from `${base}/.../{id}`. */
  rowId: (row: Row) => string;
  columns: Columns<Row>;
  busy: (row: Row) => boolean;
  deletable?: boolean;
  create?: AnyComponent<{ context: CloudContext; onCreated: (answer: TaskIds) => void }>;
}

const h = columnsFor<Row>();
const nameColumn = h.accessor('name', { header: 'Name', cell: (c) => <strong>{c.getValue() || '–'}</strong> });
const idColumn = h.accessor('id', {
  header: 'ID',
  cell: (c) => (
    <span class="mono" title={c.getValue()}>
      {shortId(c.getValue())}
    </span>
  ),
});
const createdColumn = h.accessor('created_at', { header: 'Created (UTC)', cell: (c) => time(c.getValue()) });
const taskColumn = h.accessor('task_id', { header: 'Task', cell: (c) => (c.getValue() ? <Status value="RUNNING" /> : <span class="muted">–</span>) });
const statusColumn = (key = 'status') => h.accessor(key, { header: 'Status', cell: (c) => <Status value={c.getValue()} /> });
const BUSY = /creating|deleting|attaching|detaching|BUILD|REBOOT|PROVISIONING|DELETING|CREATING|UPGRADING|resizing/i;
const busyByStatus = (key: string) => (row: Row) => Boolean(row.task_id) || BUSY.test(String(row[key] ?? ''));

export const RESOURCES: ResourceDef[] = [
  {
    id: 'instances',
    title: 'Instances',
    singular: 'instance',
    base: '/cloud/v1/instances',
    rowId: (r) => r.id,
    columns: [
      nameColumn,
      statusColumn(),
      h.accessor('vm_state', { header: 'VM state' }),
      h.accessor((r) => r.flavor?.flavor_name, { id: 'flavor', header: 'Flavor' }),
      h.accessor(
        (r) =>
          Object.values(r.addresses ?? {})
            .flat()
            .map((a: any) => a.addr)
            .join(', '),
        { id: 'addresses', header: 'Addresses', cell: (c) => <span class="mono">{c.getValue() || '–'}</span> },
      ),
      h.accessor((r) => (r.volumes ?? []).length, { id: 'volumes', header: 'Volumes' }),
      idColumn,
      createdColumn,
    ],
    busy: busyByStatus('status'),
    deletable: true,
    create: InstanceForm,
  },
  {
    id: 'volumes',
    title: 'Volumes',
    singular: 'volume',
    base: '/cloud/v1/volumes',
    rowId: (r) => r.id,
    columns: [
      nameColumn,
      statusColumn(),
      h.accessor('size', { header: 'Size (GiB)' }),
      h.accessor('volume_type', { header: 'Type' }),
      h.accessor('bootable', { header: 'Bootable', cell: (c) => (c.getValue() ? 'yes' : 'no') }),
      h.accessor((r) => (r.attachments ?? []).map((a: any) => a.instance_name ?? a.server_id).join(', '), { id: 'attached', header: 'Attached to' }),
      idColumn,
      createdColumn,
    ],
    busy: busyByStatus('status'),
    deletable: true,
    create: VolumeForm,
  },
  {
    id: 'networks',
    title: 'Networks',
    singular: 'network',
    base: '/cloud/v1/networks',
    rowId: (r) => r.id,
    columns: [
      nameColumn,
      taskColumn,
      h.accessor('type', { header: 'Type' }),
      h.accessor('mtu', { header: 'MTU' }),
      h.accessor((r) => (r.subnets ?? []).length, { id: 'subnets', header: 'Subnets' }),
      h.accessor('external', { header: 'External', cell: (c) => (c.getValue() ? 'yes' : 'no') }),
      idColumn,
      createdColumn,
    ],
    busy: (r) => Boolean(r.task_id),
    deletable: true,
    create: NetworkForm,
  },
  {
    id: 'subnets',
    title: 'Subnets',
    singular: 'subnet',
    base: '/cloud/v1/subnets',
    rowId: (r) => r.id,
    columns: [
      nameColumn,
      taskColumn,
      h.accessor('cidr', { header: 'CIDR', cell: (c) => <span class="mono">{c.getValue()}</span> }),
      h.accessor('gateway_ip', { header: 'Gateway' }),
      h.accessor((r) => `${r.available_ips}/${r.total_ips}`, { id: 'ips', header: 'Free IPs' }),
      h.accessor('network_id', { header: 'Network', cell: (c) => <span class="mono">{shortId(c.getValue())}</span> }),
      idColumn,
      createdColumn,
    ],
    busy: (r) => Boolean(r.task_id),
    deletable: true,
    create: SubnetForm,
  },
  {
    id: 'floatingips',
    title: 'Floating IPs',
    singular: 'floating IP',
    base: '/cloud/v1/floatingips',
    rowId: (r) => r.id,
    columns: [
      h.accessor('floating_ip_address', { header: 'Address', cell: (c) => <span class="mono">{c.getValue() ?? '–'}</span> }),
      statusColumn(),
      h.accessor('fixed_ip_address', { header: 'Fixed IP' }),
      h.accessor((r) => r.instance?.name, { id: 'instance', header: 'Instance' }),
      idColumn,
      createdColumn,
    ],
    busy: busyByStatus('status'),
  },
  {
    id: 'k8s',
    title: 'Kubernetes clusters',
    singular: 'cluster',
    base: '/cloud/v2/k8s/clusters',
    rowId: (r) => r.name,
    columns: [
      nameColumn,
      statusColumn(),
      h.accessor('version', { header: 'Version' }),
      h.accessor((r) => (r.pools ?? []).length, { id: 'pools', header: 'Pools' }),
      h.accessor('id', { header: 'ID', cell: (c) => <span class="mono">{shortId(c.getValue())}</span> }),
      createdColumn,
    ],
    busy: busyByStatus('status'),
  },
];

export function ResourceView(props: { resource: ResourceDef; context: CloudContext }) {
  const { resource, context } = props;
  const path = context.scoped(resource.base);
  const [busy, setBusy] = useState(false);
  const list = useResource(path, (signal) => call<List<Row>>(path as string, { signal }), { interval: busy ? 1000 : 5000 });
  const rows = list.data?.results ?? [];
  const nowBusy = rows.some(resource.busy);
  useEffect(() => setBusy(nowBusy), [nowBusy]);
  const [openId, setOpenId] = useState<string>();
  const [creating, setCreating] = useState(false);
  const [started, setStarted] = useState<TaskIds>();
  const [confirm, setConfirm] = useState<string>();
  const remove = useAction(async (id: string) => {
    const answer = await call<TaskIds>(`${path}/${encodeURIComponent(id)}`, { method: 'DELETE' });
    setConfirm(undefined);
    setStarted(answer);
    list.reload();
  });
  const columns: Columns<Row> = resource.deletable
    ? [
        ...resource.columns,
        h.display({
          id: 'actions',
          header: '',
          cell: (c) => {
            const id = resource.rowId(c.row.original);
            return (
              <span class="row-actions" onClick={(e) => e.stopPropagation()}>
                <button
                  type="button"
                  class="danger"
                  disabled={remove.pending}
                  onClick={() => (confirm === id ? remove.run(id) : setConfirm(id))}
                  aria-label={`Delete ${resource.singular} ${c.row.original.name ?? id}`}
                >
                  {confirm === id ? 'Confirm delete' : 'Delete'}
                </button>
              </span>
            );
          },
        }),
      ]
    : resource.columns;
  const open = rows.find((r) => resource.rowId(r) === openId);
  const Create = resource.create;
  return (
    <section class="stack" aria-label={resource.title}>
      <div class="card-head">
        <h2>
          {resource.title} <span class="muted">({list.data?.count ?? '…'})</span>
        </h2>
        <div class="card-actions">
          {Create && (
            <button type="button" class="primary" onClick={() => setCreating(!creating)} aria-expanded={creating}>
              {creating ? 'Close form' : `Create ${resource.singular}`}
            </button>
          )}
          <button type="button" onClick={list.reload}>
            Refresh
          </button>
        </div>
      </div>
      {started && (
        <p class="note info" role="status">
          Task <a href={context.hrefTo('tasks', { task: started.tasks[0] })}>{started.tasks[0]}</a> started; this table follows it.
        </p>
      )}
      {creating && Create && (
        <Create
          context={context}
          onCreated={(answer) => {
            setStarted(answer);
            setCreating(false);
            list.reload();
          }}
        />
      )}
      <ErrorNote error={list.error ?? remove.error} />
      <DataTable
        label={resource.title}
        columns={columns}
        rows={rows}
        rowId={resource.rowId}
        onOpen={(row) => setOpenId(resource.rowId(row))}
        openId={openId}
        loading={list.loading && !list.data}
        empty={`No ${resource.singular} in this project and region.`}
      />
      {open && (
        <Drawer title={`${resource.singular} ${open.name ?? resource.rowId(open)}`} onClose={() => setOpenId(undefined)}>
          {open.creator_task_id && (
            <p>
              Created by task <a href={context.hrefTo('tasks', { task: open.creator_task_id })}>{shortId(open.creator_task_id)}</a>
            </p>
          )}
          <Json value={open} label={`${resource.singular} as JSON`} />
        </Drawer>
      )}
    </section>
  );
}
