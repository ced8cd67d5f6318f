// The server clock (freeze, resume, advance, set), cloud task progression, and fault injection with
// live counts.
import { useState } from 'preact/hooks';
import { call } from '../../api';
import { duration, fromLocalInput, time, toLocalInput } from '../../format';
import { useAction, useResource } from '../../hooks';
import { columnsFor, DataTable } from '../../ui/table';
import { Card, ErrorNote, Field } from '../../ui/widgets';
import { refreshServerClock, type ClockState } from '../server-clock';

const op = { as: 'operator' } as const;

export function OverviewView() {
  return (
    <div class="stack">
      <div class="grid-2">
        <ClockCard />
        <TasksCard />
      </div>
      <FaultsCard />
    </div>
  );
}

const UNITS = { seconds: 1, minutes: 60, hours: 3600, days: 86400 } as const;

function ClockCard() {
  const clock = useResource('clock', (signal) => call<ClockState>('/_edgeplane/clock', { ...op, signal }), { interval: 1000 });
  const [amount, setAmount] = useState('1');
  const [unit, setUnit] = useState<keyof typeof UNITS>('minutes');
  const [target, setTarget] = useState('');
  const act = useAction(async (path: string, body?: unknown) => {
    const answer = await call<ClockState>(`/_edgeplane/clock/${path}`, { ...op, method: 'POST', body });
    clock.reload();
    await refreshServerClock();
    return answer;
  });
  const c = clock.data;
  return (
    <Card title="Server clock" aria-label="Server clock">
      <div class="stats-row">
        <div class="stat">
          <span class="muted small">now (UTC)</span>
          <strong class="mono" data-testid="clock-now">
            {c ? time(c.now) : '…'}
          </strong>
        </div>
        <div class="stat">
          <span class="muted small">state</span>
          <strong data-testid="clock-state">{c ? (c.frozen ? 'frozen' : 'running') : '…'}</strong>
        </div>
        <div class="stat">
          <span class="muted small">offset from real time</span>
          <strong>{c ? duration(c.offsetMs) : '…'}</strong>
        </div>
      </div>
      <div class="toolbar">
        {c?.frozen ? (
          <button type="button" onClick={() => act.run('resume')}>
            Resume
          </button>
        ) : (
          <button type="button" onClick={() => act.run('freeze')}>
            Freeze
          </button>
        )}
      </div>
      <form
        class="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          void act.run('advance', { seconds: Number(amount) * UNITS[unit] });
        }}
      >
        <Field label="Advance by" error={act.error} path="seconds">
          <input name="advance" type="number" min={0} step="any" value={amount} onInput={(e) => setAmount((e.target as HTMLInputElement).value)} />
        </Field>
        <select aria-label="Unit" value={unit} onChange={(e) => setUnit((e.target as HTMLSelectElement).value as keyof typeof UNITS)}>
          {Object.keys(UNITS).map((u) => (
            <option value={u}>{u}</option>
          ))}
        </select>
        <button type="submit">Advance</button>
      </form>
      <form
        class="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          const at = fromLocalInput(target);
          if (at) void act.run('set', { time: at });
        }}
      >
        <Field label="Set to (UTC)" error={act.error} path="time">
          <input
            name="set"
            type="datetime-local"
            value={target || (c ? toLocalInput(c.epochMs) : '')}
            onInput={(e) => setTarget((e.target as HTMLInputElement).value)}
          />
        </Field>
        <button type="submit">Set</button>
      </form>
      <ErrorNote error={act.error} shown={['seconds', 'time']} />
      <p class="muted small">Moving the clock runs what became due (task steps, retention) before it answers.</p>
    </Card>
  );
}

interface Modes {
  default: { mode: string; speed: number };
  task_types: Record<string, { mode: string; speed: number }>;
  registered: string[];
}

function TasksCard() {
  const modes = useResource('task-modes', (signal) => call<Modes>('/_edgeplane/tasks/mode', { ...op, signal }));
  const status = useResource('task-status', (signal) => call<{ pending: number; next_due: string | null }>('/_edgeplane/tasks/status', { ...op, signal }), {
    interval: 1000,
  });
  const [speed, setSpeed] = useState('');
  const setMode = useAction(async (mode: string) => {
    await call('/_edgeplane/tasks/mode', { ...op, method: 'PUT', body: { mode, ...(speed ? { speed: Number(speed) } : {}) } });
    modes.reload();
  });
  const advance = useAction(async (to: 'step' | 'end') => {
    const answer = await call<{ count: number }>('/_edgeplane/tasks/advance', { ...op, method: 'POST', body: { to } });
    status.reload();
    return answer;
  });
  const current = modes.data?.default;
  const overrides = Object.entries(modes.data?.task_types ?? {});
  return (
    <Card title="Cloud task progression" aria-label="Cloud task progression">
      <div class="stats-row">
        <div class="stat">
          <span class="muted small">mode</span>
          <strong data-testid="task-mode">{current ? `${current.mode}${current.mode === 'realistic' ? ` ×${current.speed}` : ''}` : '…'}</strong>
        </div>
        <div class="stat">
          <span class="muted small">pending tasks</span>
          <strong>{status.data?.pending ?? '…'}</strong>
        </div>
        <div class="stat">
          <span class="muted small">next step due (UTC)</span>
          <strong class="mono">{status.data ? time(status.data.next_due) : '…'}</strong>
        </div>
      </div>
      {overrides.length > 0 && <p class="muted small">Per type: {overrides.map(([type, m]) => `${type}: ${m.mode}`).join(', ')}</p>}
      <div class="toolbar">
        <Field label="Speed (realistic)" error={setMode.error} path="speed">
          <input
            name="speed"
            type="number"
            min={0}
            step="any"
            placeholder={String(current?.speed ?? 1)}
            value={speed}
            onInput={(e) => setSpeed((e.target as HTMLInputElement).value)}
          />
        </Field>
        {['instant', 'realistic', 'manual'].map((mode) => (
          <button type="button" class={current?.mode === mode ? 'primary' : ''} aria-pressed={current?.mode === mode} onClick={() => setMode.run(mode)}>
            {mode}
          </button>
        ))}
      </div>
      <div class="toolbar">
        <button type="button" onClick={() => advance.run('step')}>
          Advance every task one step
        </button>
        <button type="button" onClick={() => advance.run('end')}>
          Finish every task
        </button>
        {advance.result && <span class="muted small">{advance.result.count} task(s) moved</span>}
      </div>
      <ErrorNote error={setMode.error ?? advance.error} shown={['speed']} />
    </Card>
  );
}

interface Fault {
  id: number;
  operationId: string | null;
  method: string | null;
  path: string | null;
  scenario: string | null;
  status: number | null;
  message: string | null;
  latencyMs: number | null;
  taskError: string | null;
  times: number | null;
  probability: number;
  matched: number;
  fired: number;
  remaining: number | null;
}

const f = columnsFor<Fault>();

function FaultsCard() {
  const faults = useResource('faults', (signal) => call<Fault[] | { results: Fault[] }>('/_edgeplane/faults', { ...op, signal }), { interval: 1000 });
  const list = Array.isArray(faults.data) ? faults.data : (faults.data?.results ?? []);
  const remove = useAction(async (id?: number) => {
    await call(id === undefined ? '/_edgeplane/faults' : `/_edgeplane/faults/${id}`, { ...op, method: 'DELETE' });
    faults.reload();
  });
  const columns = [
    f.accessor('id', { header: 'ID' }),
    f.accessor((x) => x.operationId ?? `${x.method ?? '*'} ${x.path ?? ''}`, {
      id: 'selector',
      header: 'Matches',
      cell: (c) => <span class="mono">{c.getValue()}</span>,
    }),
    f.accessor('scenario', { header: 'Scenario', cell: (c) => c.getValue() ?? 'all' }),
    f.accessor(
      (x) => [x.status && `status ${x.status}`, x.latencyMs && `+${x.latencyMs} ms`, x.taskError && `task error "${x.taskError}"`].filter(Boolean).join(', '),
      { id: 'effect', header: 'Effect' },
    ),
    f.accessor('probability', { header: 'Probability' }),
    f.accessor('matched', { header: 'Matched', cell: (c) => <span data-testid={`fault-${c.row.original.id}-matched`}>{c.getValue()}</span> }),
    f.accessor('fired', { header: 'Fired', cell: (c) => <strong data-testid={`fault-${c.row.original.id}-fired`}>{c.getValue()}</strong> }),
    f.accessor('remaining', { header: 'Remaining', cell: (c) => c.getValue() ?? '∞' }),
    f.display({
      id: 'actions',
      header: '',
      cell: (c) => (
        <button type="button" class="danger" onClick={() => remove.run(c.row.original.id)} aria-label={`Delete fault ${c.row.original.id}`}>
          Delete
        </button>
      ),
    }),
  ];
  return (
    <Card
      title="Faults"
      aria-label="Faults"
      actions={
        list.length > 0 && (
          <button type="button" class="danger" onClick={() => remove.run(undefined)}>
            Delete all
          </button>
        )
      }
    >
      <FaultForm onAdded={faults.reload} />
      <ErrorNote error={faults.error ?? remove.error} />
      <DataTable label="Faults" columns={columns} rows={list} rowId={(x) => String(x.id)} empty="No fault declared: every request is answered normally." />
    </Card>
  );
}

interface Info {
  operations: { method: string; path: string; operationId: string }[];
}

const FAULT_STATUSES = [400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 500, 503];

function FaultForm(props: { onAdded: () => void }) {
  const info = useResource('info', (signal) => call<Info>('/_edgeplane/info', { ...op, signal }));
  const operations = (info.data?.operations ?? []).filter((o) => !o.path.startsWith('/_edgeplane'));
  const [draft, setDraft] = useState({
    operationId: '',
    method: '',
    path: '',
    scenario: '',
    status: '503',
    latencyMs: '',
    taskError: '',
    times: '1',
    probability: '',
    message: '',
  });
  const set = (name: keyof typeof draft) => (e: Event) => setDraft({ ...draft, [name]: (e.target as HTMLInputElement).value });
  const add = useAction(async () => {
    const number = (text: string) => (text === '' ? undefined : Number.isFinite(Number(text)) ? Number(text) : text);
    const text = (value: string) => value || undefined;
    await call('/_edgeplane/faults', {
      ...op,
      method: 'POST',
      body: {
        operationId: text(draft.operationId),
        method: text(draft.method),
        path: text(draft.path),
        scenario: text(draft.scenario),
        status: number(draft.status),
        latencyMs: number(draft.latencyMs),
        taskError: text(draft.taskError),
        times: number(draft.times),
        probability: number(draft.probability),
        message: text(draft.message),
      },
    });
    props.onAdded();
  });
  const fields = ['operationId', 'method', 'path', 'scenario', 'status', 'latencyMs', 'taskError', 'times', 'probability', 'message'];
  return (
    <form
      aria-label="Add a fault"
      onSubmit={(e) => {
        e.preventDefault();
        void add.run();
      }}
    >
      <div class="form-grid">
        <Field label="Operation" error={add.error} path="operationId">
          <select name="operationId" value={draft.operationId} onChange={set('operationId')}>
            <option value="">(by method and path)</option>
            {operations.map((o) => (
              <option value={o.operationId}>
                {o.operationId} ({o.method} {o.path})
              </option>
            ))}
          </select>
        </Field>
        <Field label="Method" error={add.error} path="method">
          <input name="method" value={draft.method} placeholder="any" onInput={set('method')} size={6} />
        </Field>
        <Field label="Path glob" error={add.error} path="path">
          <input name="path" value={draft.path} placeholder="/cloud/v1/**" onInput={set('path')} />
        </Field>
        <Field label="Status" error={add.error} path="status">
          <select name="status" value={draft.status} onChange={set('status')}>
            <option value="">none</option>
            {FAULT_STATUSES.map((s) => (
              <option value={String(s)}>{s}</option>
            ))}
          </select>
        </Field>
        <Field label="Latency (ms)" error={add.error} path="latencyMs">
          <input name="latencyMs" value={draft.latencyMs} onInput={set('latencyMs')} size={6} />
        </Field>
        <Field label="Task error" error={add.error} path="taskError">
          <input name="taskError" value={draft.taskError} placeholder="no capacity" onInput={set('taskError')} />
        </Field>
        <Field label="Times" error={add.error} path="times">
          <input name="times" value={draft.times} placeholder="unlimited" onInput={set('times')} size={6} />
        </Field>
        <Field label="Probability" error={add.error} path="probability">
          <input name="probability" value={draft.probability} placeholder="1" onInput={set('probability')} size={5} />
        </Field>
        <Field label="Scenario" error={add.error} path="scenario">
          <input name="scenario" value={draft.scenario} placeholder="everyone" onInput={set('scenario')} />
        </Field>
        <Field label="Message" error={add.error} path="message">
          <input name="message" value={draft.message} onInput={set('message')} />
        </Field>
      </div>
      <ErrorNote error={add.error} shown={fields} />
      <div class="form-actions">
        <button type="submit" class="primary" disabled={add.pending}>
          Add fault
        </button>
      </div>
    </form>
  );
}
