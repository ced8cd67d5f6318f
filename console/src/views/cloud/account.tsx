// Projects, regions (with what each can run) and the client's quotas.
import { call } from '../../api';
import { time } from '../../format';
import { useResource } from '../../hooks';
import { columnsFor, DataTable } from '../../ui/table';
import { Card, ErrorNote, Status } from '../../ui/widgets';
import type { CloudContext, Project, Region } from './context';

const p = columnsFor<Project>();
const PROJECT_COLUMNS = [
  p.accessor('id', { header: 'ID' }),
  p.accessor('name', { header: 'Name', cell: (c) => <strong>{c.getValue()}</strong> }),
  p.accessor('state', { header: 'State', cell: (c) => <Status value={c.getValue()} /> }),
  p.accessor('is_default', { header: 'Default', cell: (c) => (c.getValue() ? 'yes' : '') }),
  p.accessor('description', { header: 'Description' }),
  p.accessor('created_at', { header: 'Created (UTC)', cell: (c) => time(c.getValue()) }),
];

const r = columnsFor<Region>();
const yes = (value: boolean) => (value ? '✓' : '');
const REGION_COLUMNS = [
  r.accessor('id', { header: 'ID' }),
  r.accessor('display_name', { header: 'Region', cell: (c) => <strong>{c.getValue()}</strong> }),
  r.accessor('state', { header: 'State', cell: (c) => <Status value={c.getValue()} /> }),
  r.accessor('access_level', { header: 'Level' }),
  r.accessor('country', { header: 'Country' }),
  r.accessor('has_kvm', { header: 'VMs', cell: (c) => yes(c.getValue()) }),
  r.accessor('has_k8s', { header: 'Kubernetes', cell: (c) => yes(c.getValue()) }),
  r.accessor('has_baremetal', { header: 'Bare metal', cell: (c) => yes(c.getValue()) }),
  r.accessor((x) => x.available_volume_types.join(', '), { id: 'volume_types', header: 'Volume types' }),
];

export function AccountView(props: { context: CloudContext }) {
  const { context } = props;
  const quotas = useResource('quotas', (signal) => call<Record<string, unknown>>('/cloud/v2/client_quotas', { signal }));
  return (
    <div class="stack">
      <Card title="Projects">
        <ErrorNote error={context.projects.error} />
        <DataTable
          label="Projects"
          columns={PROJECT_COLUMNS}
          rows={context.projects.data?.results ?? []}
          rowId={(x) => String(x.id)}
          onOpen={(x) => context.update({ project: String(x.id) })}
          openId={String(context.projectId)}
        />
      </Card>
      <Card title="Regions">
        <ErrorNote error={context.regions.error} />
        <DataTable
          label="Regions"
          columns={REGION_COLUMNS}
          rows={context.regions.data?.results ?? []}
          rowId={(x) => String(x.id)}
          onOpen={(x) => context.update({ region: String(x.id) })}
          openId={String(context.regionId)}
        />
      </Card>
      <Card title="Quotas">
        <ErrorNote error={quotas.error} />
        <QuotaTable quotas={quotas.data} />
      </Card>
    </div>
  );
}

/** Client quotas: `<name>_limit` and `<name>_usage` pairs, globally and per region. */
function QuotaTable(props: { quotas?: Record<string, unknown> }) {
  const scopes: { scope: string; values: Record<string, number> }[] = [];
  const global = props.quotas?.global_quotas as Record<string, number> | undefined;
  if (global) scopes.push({ scope: 'global', values: global });
  for (const regional of (props.quotas?.regional_quotas as Record<string, number>[] | undefined) ?? [])
    scopes.push({ scope: `region ${regional.region_id}`, values: regional });
  const rows = scopes.flatMap(({ scope, values }) =>
    Object.keys(values)
      .filter((key) => key.endsWith('_limit'))
      .map((key) => {
        const name = key.slice(0, -'_limit'.length);
        return { scope, name, limit: values[key], usage: values[`${name}_usage`] };
      })
      .filter((row) => row.usage > 0 || scope === 'global' || row.limit > 0),
  );
  return (
    <div class="table-wrap">
      <table class="data" aria-label="Quotas">
        <thead>
          <tr>
            <th scope="col">Scope</th>
            <th scope="col">Quota</th>
            <th scope="col">Used</th>
            <th scope="col">Limit</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr>
              <td>{row.scope}</td>
              <td>{row.name.replace(/_/g, ' ')}</td>
              <td>{row.usage ?? '–'}</td>
              <td>{row.limit}</td>
            </tr>
          ))}
          {rows.length === 0 && (
            <tr class="empty">
              <td colSpan={4}>{props.quotas ? 'No quota.' : 'Loading…'}</td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
