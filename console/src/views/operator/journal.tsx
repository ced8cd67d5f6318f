// The request journal as a live table: every filter of GET /_edgeplane/journal, newest first, refreshed
// every second while "live" is on; a row opens the request and response with headers and bodies.
import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { call, queryString } from '../../api';
import { time } from '../../format';
import { useAction, useResource } from '../../hooks';
import { Pager } from '../../ui/pager';
import { columnsFor, DataTable } from '../../ui/table';
import { Drawer, ErrorNote, Field, Json, Pairs } from '../../ui/widgets';

interface Entry {
  seq: number;
  time: string;
  requestId: string;
  clientId: number | null;
  operationId: string | null;
  method: string;
  path: string;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  scenario: string | null;
  status: number;
  durationMs: number;
  requestBody: unknown;
  responseBody: unknown;
}

const FILTERS = [
  { param: 'operationId', label: 'Operation', placeholder: 'cloud.instances.create' },
  { param: 'method', label: 'Method', placeholder: 'POST' },
  { param: 'path', label: 'Path glob', placeholder: '/cloud/**' },
  { param: 'status', label: 'Status', placeholder: '429, 503' },
  { param: 'clientId', label: 'Client', placeholder: '1' },
  { param: 'scenario', label: 'Scenario', placeholder: 'test-42' },
  { param: 'requestId', label: 'Request ID', placeholder: '' },
  { param: 'since', label: 'Since (ISO)', placeholder: '2026-01-01T00:00:00Z' },
  { param: 'until', label: 'Until (ISO)', placeholder: '' },
];
const PAGE = 50;

const j = columnsFor<Entry>();
const COLUMNS = [
  j.accessor('seq', { header: '#' }),
  j.accessor('time', { header: 'Time (UTC)', cell: (c) => <span class="mono nowrap">{time(c.getValue())}</span> }),
  j.accessor('method', { header: 'Method' }),
  j.accessor('path', {
    header: 'Path',
    cell: (c) => (
      <span class="mono clip" title={c.getValue()}>
        {c.getValue()}
      </span>
    ),
  }),
  j.accessor('status', {
    header: 'Status',
    cell: (c) => <span class={`status tone-${c.getValue() >= 500 ? 'bad' : c.getValue() >= 400 ? 'warn' : 'ok'}`}>{c.getValue()}</span>,
  }),
  j.accessor('operationId', { header: 'Operation', cell: (c) => <span class="mono">{c.getValue() ?? '–'}</span> }),
  j.accessor('clientId', { header: 'Client', cell: (c) => c.getValue() ?? 'operator' }),
  j.accessor('scenario', { header: 'Scenario', cell: (c) => c.getValue() ?? '–' }),
  j.accessor('durationMs', { header: 'ms', cell: (c) => c.getValue().toFixed(1) }),
];

export function JournalView() {
  const { query, path, route } = useLocation();
  const update = (changes: Record<string, string | undefined>) => route(path + queryString({ ...query, ...changes }));
  const [live, setLive] = useState(true);
  const [drafts, setDrafts] = useState<Record<string, string>>(() => Object.fromEntries(FILTERS.map((f) => [f.param, query[f.param] ?? ''])));
  const offset = Number(query.offset ?? 0);
  const apiQuery = { ...Object.fromEntries(FILTERS.map((f) => [f.param, query[f.param]])), order: 'desc', limit: PAGE, offset };
  const journal = useResource(
    JSON.stringify(apiQuery),
    (signal) => call<{ count: number; results: Entry[] }>('/_edgeplane/journal', { as: 'operator', query: apiQuery, signal }),
    { interval: live && offset === 0 ? 1000 : undefined },
  );
  const clear = useAction(async () => {
    await call('/_edgeplane/journal', { as: 'operator', method: 'DELETE' });
    journal.reload();
  });
  const rows = journal.data?.results ?? [];
  const openSeq = query.entry;
  const open = rows.find((e) => String(e.seq) === openSeq);
  return (
    <div class="stack">
      <form
        class="filters"
        aria-label="Journal filters"
        onSubmit={(e) => {
          e.preventDefault();
          update({ ...Object.fromEntries(Object.entries(drafts).map(([k, v]) => [k, v.trim() || undefined])), offset: undefined, entry: undefined });
        }}
      >
        <div class="form-grid">
          {FILTERS.map((filter, index) => (
            <Field label={filter.label} error={journal.error} path={filter.param}>
              <input
                data-search={index === 0 ? '' : undefined}
                name={filter.param}
                value={drafts[filter.param]}
                placeholder={filter.placeholder}
                onInput={(e) => setDrafts({ ...drafts, [filter.param]: (e.target as HTMLInputElement).value })}
                size={14}
              />
            </Field>
          ))}
        </div>
        <div class="form-actions">
          <button type="submit" class="primary">
            Apply
          </button>
          <label class="inline">
            <input type="checkbox" name="live" checked={live} onChange={(e) => setLive((e.target as HTMLInputElement).checked)} /> live (every second)
          </label>
          <button type="button" class="danger" onClick={() => clear.run()}>
            Empty the journal
          </button>
        </div>
      </form>
      <ErrorNote error={journal.error ?? clear.error} shown={FILTERS.map((f) => f.param)} />
      <Pager
        position={offset}
        shown={rows.length}
        total={journal.data?.count}
        canPrevious={offset > 0}
        canNext={offset + rows.length < (journal.data?.count ?? 0)}
        onFirst={() => update({ offset: undefined })}
        onPrevious={() => update({ offset: String(Math.max(0, offset - PAGE)) })}
        onNext={() => update({ offset: String(offset + PAGE) })}
      />
      <DataTable
        label="Request journal"
        columns={COLUMNS}
        rows={rows}
        rowId={(e) => String(e.seq)}
        openId={openSeq}
        onOpen={(e) => update({ entry: String(e.seq) })}
        minRows={10}
        empty="Nothing journaled yet (or the journal is off: --journal-size 0)."
      />
      {openSeq && open && (
        <Drawer title={`${open.method} ${open.path}`} onClose={() => update({ entry: undefined })} wide>
          <Pairs
            items={[
              ['Time (UTC)', time(open.time)],
              ['Status', String(open.status)],
              ['Operation', open.operationId ?? '–'],
              ['Request ID', <span class="mono">{open.requestId}</span>],
              ['Client', open.clientId === null ? 'operator or anonymous' : String(open.clientId)],
              ['Scenario', open.scenario ?? '–'],
              ['Duration', `${open.durationMs.toFixed(1)} ms (real time)`],
            ]}
          />
          <h3>Query</h3>
          <Json value={open.query} label="Query" />
          <h3>Request headers</h3>
          <Json value={open.headers} label="Request headers" />
          <h3>Request body</h3>
          {open.requestBody === null ? (
            <p class="muted">None kept (none sent, or the server runs without --journal-bodies).</p>
          ) : (
            <Json value={open.requestBody} label="Request body" />
          )}
          <h3>Response body</h3>
          {open.responseBody === null ? (
            <p class="muted">None kept (start the server with --journal-bodies to keep bodies).</p>
          ) : (
            <Json value={open.responseBody} label="Response body" />
          )}
        </Drawer>
      )}
    </div>
  );
}
