// WAAP domains: list, status changes (active / monitor), deletion of bypassed ones.
import { useState } from 'preact/hooks';
import { call } from '../../api';
import { time } from '../../format';
import { useAction, useResource } from '../../hooks';
import { columnsFor, DataTable } from '../../ui/table';
import { ErrorNote, Status } from '../../ui/widgets';

interface Domain {
  id: number;
  name: string;
  status: string;
  custom_page_set: number | null;
  created_at: string;
  aliases: string[];
}

interface Account {
  service_enabled?: boolean;
  quotas?: Record<string, { allowed: number; current: number }>;
}

const helper = columnsFor<Domain>();

export function DomainsView() {
  const domains = useResource('domains', (signal) => call<{ count: number; results: Domain[] }>('/waap/v1/domains', { query: { limit: 100 }, signal }));
  const account = useResource('waap-account', (signal) => call<Account>('/waap/v1/clients/me', { signal }));
  const [confirm, setConfirm] = useState<number>();
  const change = useAction(async (id: number, body: unknown) => {
    await call(`/waap/v1/domains/${id}`, { method: 'PATCH', body });
    domains.reload();
  });
  const remove = useAction(async (id: number) => {
    await call(`/waap/v1/domains/${id}`, { method: 'DELETE' });
    setConfirm(undefined);
    domains.reload();
  });
  const columns = [
    helper.accessor('id', { header: 'ID' }),
    helper.accessor('name', { header: 'Name', cell: (c) => <strong>{c.getValue()}</strong> }),
    helper.accessor('status', { header: 'Status', cell: (c) => <Status value={c.getValue()} /> }),
    helper.accessor('aliases', { header: 'Aliases', enableSorting: false, cell: (c) => c.getValue().join(', ') || '–' }),
    helper.accessor('created_at', { header: 'Created (UTC)', cell: (c) => time(c.getValue()) }),
    helper.display({
      id: 'actions',
      header: 'Actions',
      cell: (c) => {
        const domain = c.row.original;
        return (
          <span class="row-actions">
            {(domain.status === 'active' || domain.status === 'monitor') && (
              <button type="button" onClick={() => change.run(domain.id, { status: domain.status === 'active' ? 'monitor' : 'active' })}>
                {domain.status === 'active' ? 'Monitor only' : 'Activate'}
              </button>
            )}
            {domain.status === 'bypass' && (
              <button type="button" class="danger" onClick={() => (confirm === domain.id ? remove.run(domain.id) : setConfirm(domain.id))}>
                {confirm === domain.id ? 'Confirm delete' : 'Delete'}
              </button>
            )}
          </span>
        );
      },
    }),
  ];
  const quota = account.data?.quotas?.['number-of-domains'];
  return (
    <section class="stack" aria-label="WAAP domains">
      <p class="muted">
        WAAP service {account.data?.service_enabled === false ? 'disabled' : 'enabled'}
        {quota ? `; ${quota.current} of ${quota.allowed} domains used` : ''}. Domains are added by the provider (here: the control API or a seed).
      </p>
      <ErrorNote error={domains.error ?? change.error ?? remove.error} />
      <DataTable
        label="WAAP domains"
        columns={columns}
        rows={domains.data?.results ?? []}
        rowId={(d) => String(d.id)}
        loading={domains.loading}
        empty="No WAAP domain yet."
      />
    </section>
  );
}
