// Cloud tasks followed live: the list polls every second while a task is NEW or RUNNING (every few
// seconds otherwise); a task's panel shows its error and the resources it created.
import { useEffect, useState } from 'preact/hooks';
import { call } from '../../api';
import { shortId, time } from '../../format';
import { useAction, useResource } from '../../hooks';
import { columnsFor, DataTable } from '../../ui/table';
import { Drawer, ErrorNote, Json, Pairs, Status } from '../../ui/widgets';
import type { CloudContext, List } from './context';

export interface Task {
  id: string;
  task_type: string;
  state: 'NEW' | 'RUNNING' | 'FINISHED' | 'ERROR';
  error: string | null;
  created_on: string | null;
  updated_on: string | null;
  finished_on: string | null;
  created_resources: Record<string, (string | number)[]> | null;
  data: unknown;
  project_id: number | null;
  region_id: number | null;
  acknowledged_at: string | null;
  request_id: string | null;
}

const STATES = ['NEW', 'RUNNING', 'FINISHED', 'ERROR'];
const h = columnsFor<Task>();
const COLUMNS = [
  h.accessor('id', {
    header: 'Task',
    cell: (c) => (
      <span class="mono" title={c.getValue()}>
        {shortId(c.getValue())}
      </span>
    ),
  }),
  h.accessor('task_type', { header: 'Type' }),
  h.accessor('state', { header: 'State', cell: (c) => <Status value={c.getValue()} /> }),
  h.accessor('created_on', { header: 'Created (UTC)', cell: (c) => time(c.getValue()) }),
  h.accessor('finished_on', { header: 'Finished (UTC)', cell: (c) => time(c.getValue()) }),
  h.accessor((t) => createdList(t).join(', '), {
    id: 'created',
    header: 'Created resources',
    cell: (c) => <span class="clip mono">{c.getValue() || '–'}</span>,
  }),
  h.accessor('error', {
    header: 'Error',
    cell: (c) => (
      <span class="clip" title={c.getValue() ?? ''}>
        {c.getValue() ?? '–'}
      </span>
    ),
  }),
];

function createdList(task: Task): string[] {
  return Object.entries(task.created_resources ?? {}).flatMap(([kind, ids]) => ids.map((id) => `${kind}: ${id}`));
}

export function TasksView(props: { context: CloudContext }) {
  const { context } = props;
  const state = context.query.state;
  const [live, setLive] = useState(false);
  const query = {
    project_id: context.projectId,
    region_id: context.regionId,
    state: state ? state.split(',') : undefined,
    task_type: context.query.task_type,
    order_by: 'desc',
    limit: 100,
  };
  const tasks = useResource(context.projectId ? JSON.stringify(query) : null, (signal) => call<List<Task>>('/cloud/v1/tasks', { query, signal }), {
    interval: live ? 1000 : 4000,
  });
  const rows = tasks.data?.results ?? [];
  const running = rows.some((t) => t.state === 'NEW' || t.state === 'RUNNING');
  useEffect(() => setLive(running), [running]);
  const openId = context.query.task;
  const open = useResource(openId ?? null, (signal) => call<Task>(`/cloud/v1/tasks/${encodeURIComponent(openId as string)}`, { signal }), { interval: 1000 });
  const acknowledge = useAction(async (id: string) => {
    await call(`/cloud/v1/tasks/${encodeURIComponent(id)}/acknowledge`, { method: 'POST' });
    open.reload();
    tasks.reload();
  });
  return (
    <section class="stack" aria-label="Tasks">
      <div class="toolbar">
        <label class="inline">
          <span>State</span>
          <select name="state" value={state ?? ''} onChange={(e) => context.update({ state: (e.target as HTMLSelectElement).value || undefined })}>
            <option value="">any</option>
            {STATES.map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </label>
        <label class="inline">
          <span>Type</span>
          <input
            data-search
            name="task_type"
            value={context.query.task_type ?? ''}
            placeholder="create_vm"
            onChange={(e) => context.update({ task_type: (e.target as HTMLInputElement).value || undefined })}
          />
        </label>
        <span class="muted small" role="status">
          {running ? 'following running tasks (every second)' : 'refreshing every 4 s'} · {tasks.data?.count ?? '…'} tasks
        </span>
      </div>
      <ErrorNote error={tasks.error} />
      <DataTable
        label="Cloud tasks"
        columns={COLUMNS}
        rows={rows}
        rowId={(t) => t.id}
        openId={openId}
        onOpen={(t) => context.update({ task: t.id })}
        loading={tasks.loading && !tasks.data}
        rowClass={(t) => `state-${t.state}`}
        empty="No task in this project and region."
      />
      {openId && (
        <Drawer title={`Task ${shortId(openId)}`} onClose={() => context.update({ task: undefined })}>
          <ErrorNote error={open.error ?? acknowledge.error} />
          {open.data && <TaskDetails task={open.data} onAcknowledge={() => acknowledge.run(open.data!.id)} />}
        </Drawer>
      )}
    </section>
  );
}

function TaskDetails(props: { task: Task; onAcknowledge: () => void }) {
  const t = props.task;
  const created = createdList(t);
  return (
    <>
      <Pairs
        items={[
          ['ID', <span class="mono">{t.id}</span>],
          ['Type', t.task_type],
          ['State', <Status value={t.state} />],
          ['Error', t.error ? <span class="field-error">{t.error}</span> : '–'],
          ['Created (UTC)', time(t.created_on)],
          ['Updated (UTC)', time(t.updated_on)],
          ['Finished (UTC)', time(t.finished_on)],
          ['Project / region', `${t.project_id ?? '–'} / ${t.region_id ?? '–'}`],
          ['Request ID', <span class="mono">{t.request_id ?? '–'}</span>],
          ['Acknowledged', t.acknowledged_at ?? 'no'],
        ]}
      />
      <h3>Created resources</h3>
      {created.length ? (
        <ul class="plain mono">
          {created.map((item) => (
            <li>{item}</li>
          ))}
        </ul>
      ) : (
        <p class="muted">
          {t.state === 'ERROR' ? 'None: a failed task leaves nothing created.' : t.state === 'FINISHED' ? 'None.' : 'Known when the task finishes.'}
        </p>
      )}
      {t.acknowledged_at === null && (t.state === 'FINISHED' || t.state === 'ERROR') && (
        <button type="button" onClick={props.onAcknowledge}>
          Acknowledge
        </button>
      )}
      <details>
        <summary>Raw answer</summary>
        <Json value={t} label="Task as JSON" />
      </details>
    </>
  );
}
