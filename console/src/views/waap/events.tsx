// The WAAP request log: every filter of the API (kept in the URL, so a view can be shared and the back
// button works), exact counts, server-side ordering, and paging that stays quick at any depth: pages are
// prefetched, and past the API's offset limit (100,000) the window is re-anchored at the last event
// shown (`end` = its time), so paging goes on through millions of events in time order.
import { useLocation } from 'preact-iso';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { SortingState } from '@tanstack/preact-table';
import { ApiError, call, fieldErrors, queryString, type Query } from '../../api';
import { time } from '../../format';
import { AnswerCache, useResource } from '../../hooks';
import { loadSession } from '../../session';
import { Pager } from '../../ui/pager';
import { columnsFor, DataTable } from '../../ui/table';
import { ErrorNote, Status } from '../../ui/widgets';
import { useServerClock } from '../server-clock';
import { EventDetails } from './event-details';
import { FILTER_FIELDS, ORDERING_FIELDS, type FilterField } from './filter-fields';
import { RangePicker, windowOf } from './range';

export interface EventRow {
  id: string;
  request_time: number;
  decision: string;
  optional_action: string;
  action: string;
  result: string;
  domain: string;
  domain_id: number;
  method: string;
  path: string;
  status_code: number;
  client_ip: string;
  country: string;
  rule_name: string;
  user_agent_client: string;
  organization: string;
  session_id: string;
}

interface Page {
  count: number;
  limit: number;
  offset: number;
  results: EventRow[];
}

export const LOG_PATH = '/waap/v1/analytics/requests';
const MAX_OFFSET = 100_000;
const DEFAULT_ORDER = '-request_time';
const answers = new AnswerCache<Page>(30_000, 40);
const fetchPage = (query: Query) => {
  const key = JSON.stringify(query);
  return answers.get(key, () => call<Page>(LOG_PATH, { query }));
};

const helper = columnsFor<EventRow>();
const COLUMNS = [
  helper.accessor('request_time', { header: 'Time (UTC)', cell: (c) => <span class="mono nowrap">{time(c.getValue())}</span> }),
  helper.accessor('decision', { header: 'Decision', cell: (c) => <Status value={c.getValue()} /> }),
  helper.accessor('domain_id', { header: 'Domain', cell: (c) => <span class="nowrap">{c.row.original.domain}</span> }),
  helper.accessor('method', { header: 'Method' }),
  helper.accessor('path', {
    header: 'Path',
    cell: (c) => (
      <span class="mono clip" title={c.getValue()}>
        {c.getValue()}
      </span>
    ),
  }),
  helper.accessor('status_code', { header: 'Status' }),
  helper.accessor('client_ip', { header: 'Client IP', cell: (c) => <span class="mono">{c.getValue()}</span> }),
  helper.accessor('country', { header: 'Country' }),
  helper.accessor('rule_name', {
    header: 'Rule',
    cell: (c) => (
      <span class="clip" title={c.getValue()}>
        {c.getValue() || '–'}
      </span>
    ),
  }),
  helper.accessor('user_agent_client', { header: 'Client', enableSorting: false }),
];

/** The filters of the URL query as the API takes them (comma lists pass through). */
function filtersOf(query: Record<string, string>): Query {
  const filters: Query = {};
  for (const field of FILTER_FIELDS) {
    for (const param of [field.param, `exclude_${field.param}`]) if (query[param]) filters[param] = query[param];
  }
  return filters;
}

export function EventsView() {
  const { query, path, route } = useLocation();
  const clock = useServerClock();
  const waitForClock = Boolean(loadSession()?.operatorToken) && !clock.known;
  const update = (changes: Record<string, string | undefined>) => route(path + queryString({ ...query, ...changes }));
  const filters = filtersOf(query);
  const window = windowOf(query, clock.now());
  const limit = Number(query.limit ?? 100);
  const offset = Number(query.offset ?? 0);
  const ordering = query.ordering ?? DEFAULT_ORDER;
  const anchor = query.anchor;
  const listQuery: Query = { ...window, ...filters, ordering, limit, offset, ...(anchor ? { end: anchor } : {}) };
  const totalQuery: Query = { ...window, ...filters, limit: 0 };
  const key = waitForClock ? null : JSON.stringify(listQuery);
  const page = useResource(key, () => fetchPage(listQuery));
  const total = useResource(anchor && key ? JSON.stringify(totalQuery) : null, () => fetchPage(totalQuery));
  const rows = page.data?.results ?? [];
  const grandTotal = anchor ? total.data?.count : page.data?.count;
  const position = anchor && total.data && page.data ? total.data.count - page.data.count + offset : offset;
  const byTime = ordering === DEFAULT_ORDER;

  const next = nextPage(rows, { offset, limit, byTime });
  // The next page is fetched ahead, so "Next" shows at once.
  useEffect(() => {
    if (page.data && next && position + rows.length < (grandTotal ?? 0)) {
      fetchPage({ ...listQuery, offset: next.offset, ...(next.anchor ? { end: next.anchor } : {}) }).catch(() => undefined);
    }
  }, [page.data]);

  const sorting: SortingState = [{ id: ordering.replace(/^-/, ''), desc: ordering.startsWith('-') }];
  const openId = query.event;
  const open = rows.find((row) => `${row.domain_id}:${row.id}` === openId);

  return (
    <div class={`split${openId ? ' has-drawer' : ''}`}>
      <section class="panel" aria-label="Request log">
        <FilterBar query={query} error={page.error} onApply={(changes) => update({ ...changes, offset: undefined, anchor: undefined, event: undefined })} />
        <Pager
          position={position}
          shown={rows.length}
          total={grandTotal}
          canPrevious={offset > 0 || Boolean(anchor)}
          canNext={Boolean(next) && position + rows.length < (grandTotal ?? 0)}
          onFirst={() => update({ offset: undefined, anchor: undefined })}
          onPrevious={() => {
            if (offset >= limit) update({ offset: String(offset - limit) });
            else if (anchor && position - limit >= 0 && position - limit <= MAX_OFFSET) update({ anchor: undefined, offset: String(position - limit) });
            else history.back();
          }}
          onNext={() => next && update({ offset: String(next.offset), anchor: next.anchor ?? anchor })}
          pageSize={limit}
          pageSizes={[25, 50, 100]}
          onPageSize={(size) => update({ limit: String(size), offset: undefined })}
          note={!byTime && offset + limit > MAX_OFFSET ? 'The API pages 100,000 events deep; narrow the window or order by time to go further.' : undefined}
        />
        {page.error && !(page.error instanceof ApiError && Object.keys(page.error.fields).length > 0) ? <ErrorNote error={page.error} /> : null}
        <DataTable
          label="WAAP request events"
          columns={COLUMNS}
          rows={rows}
          rowId={(row) => `${row.domain_id}:${row.id}`}
          openId={openId}
          onOpen={(row) => update({ event: `${row.domain_id}:${row.id}` })}
          loading={page.loading}
          minRows={Math.min(limit, 25)}
          sorting={{
            state: sorting,
            onChange: (next) =>
              update({
                ordering: next[0] ? `${next[0].desc ? '-' : ''}${ORDERING_FIELDS[next[0].id] ?? 'request_time'}` : undefined,
                offset: undefined,
                anchor: undefined,
              }),
          }}
          empty="No event matches these filters in this window."
        />
      </section>
      {openId && (
        <EventDetails
          id={openId}
          summary={open}
          onClose={() => update({ event: undefined })}
          onFilter={(param, value) => update({ [param]: value, offset: undefined, anchor: undefined })}
        />
      )}
    </div>
  );
}

/**
 * Where "Next" goes: the next offset while it is within the API's limit; past it, in time order, the
 * window's end moves to the last event shown and the offset skips the events of that same millisecond
 * already shown (they come first again: equal times keep their order).
 */
export function nextPage(rows: EventRow[], at: { offset: number; limit: number; byTime: boolean }): { offset: number; anchor?: string } | undefined {
  if (rows.length === 0) return undefined;
  if (at.offset + at.limit <= MAX_OFFSET) return { offset: at.offset + at.limit };
  if (!at.byTime) return undefined;
  const last = rows[rows.length - 1].request_time;
  const sameTime = rows.length - rows.findIndex((row) => row.request_time === last);
  if (sameTime === rows.length) return undefined;
  return { offset: sameTime, anchor: new Date(last).toISOString() };
}

interface Draft {
  param: string;
  negate: boolean;
  value: string;
}

function draftsOf(query: Record<string, string>): Draft[] {
  return FILTER_FIELDS.flatMap((field) => [
    ...(query[field.param] ? [{ param: field.param, negate: false, value: query[field.param] }] : []),
    ...(query[`exclude_${field.param}`] ? [{ param: field.param, negate: true, value: query[`exclude_${field.param}`] }] : []),
  ]);
}

function FilterBar(props: { query: Record<string, string>; error: unknown; onApply: (changes: Record<string, string | undefined>) => void }) {
  const applied = useMemo(() => draftsOf(props.query), [props.query]);
  const [drafts, setDrafts] = useState<Draft[]>(applied);
  useEffect(() => setDrafts(applied), [applied]);
  const change = (index: number, patch: Partial<Draft>) => setDrafts(drafts.map((d, i) => (i === index ? { ...d, ...patch } : d)));
  const apply = (next = drafts) => {
    const changes: Record<string, string | undefined> = {};
    for (const field of FILTER_FIELDS) changes[field.param] = changes[`exclude_${field.param}`] = undefined;
    for (const draft of next) {
      const value = draft.value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
        .join(',');
      if (value) changes[draft.negate ? `exclude_${draft.param}` : draft.param] = value;
    }
    props.onApply(changes);
  };
  const unused = FILTER_FIELDS.filter((field) => !drafts.some((d) => d.param === field.param && !d.negate));
  return (
    <form
      class="filters"
      aria-label="Filters"
      onSubmit={(event) => {
        event.preventDefault();
        apply();
      }}
    >
      <div class="filters-head">
        <RangePicker query={props.query} onChange={(changes) => props.onApply(changes)} />
        <label class="inline">
          <span class="visually-hidden">Add a filter</span>
          <select
            data-search
            name="add-filter"
            value=""
            onChange={(e) => {
              const param = (e.target as HTMLSelectElement).value;
              if (param) setDrafts([...drafts, { param, negate: false, value: '' }]);
              (e.target as HTMLSelectElement).value = '';
            }}
          >
            <option value="">+ Add filter…</option>
            {unused.map((field) => (
              <option value={field.param}>{field.label}</option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary">
          Apply
        </button>
        {drafts.length > 0 && (
          <button type="button" class="ghost" onClick={() => apply([])}>
            Clear filters
          </button>
        )}
      </div>
      {fieldErrors(props.error, 'start')
        .concat(fieldErrors(props.error, 'end'))
        .map((message) => (
          <p class="field-error" role="alert">
            Window: {message}
          </p>
        ))}
      {drafts.length > 0 && (
        <ul class="filter-rows">
          {drafts.map((draft, index) => {
            const field = FILTER_FIELDS.find((f) => f.param === draft.param) as FilterField;
            const param = draft.negate ? `exclude_${draft.param}` : draft.param;
            const messages = fieldErrors(props.error, param);
            return (
              <li class={messages.length ? 'has-error' : ''} data-filter={param}>
                <span class="filter-label">{field.label}</span>
                <select
                  aria-label={`${field.label}: is or is not`}
                  value={draft.negate ? 'not' : 'is'}
                  onChange={(e) => change(index, { negate: (e.target as HTMLSelectElement).value === 'not' })}
                >
                  <option value="is">is</option>
                  <option value="not">is not</option>
                </select>
                {field.choices ? (
                  <span class="choices" role="group" aria-label={field.label}>
                    {field.choices.map((choice) => {
                      const values = draft.value.split(',').filter(Boolean);
                      const checked = values.includes(choice);
                      return (
                        <label class="choice">
                          <input
                            type="checkbox"
                            checked={checked}
                            onChange={() => change(index, { value: (checked ? values.filter((v) => v !== choice) : [...values, choice]).join(',') })}
                          />
                          {choice}
                        </label>
                      );
                    })}
                  </span>
                ) : (
                  <input
                    aria-label={`${field.label} values`}
                    name={param}
                    value={draft.value}
                    placeholder={field.placeholder}
                    inputMode={field.numeric ? 'numeric' : undefined}
                    onInput={(e) => change(index, { value: (e.target as HTMLInputElement).value })}
                    autoFocus={draft.value === ''}
                  />
                )}
                <button
                  type="button"
                  class="ghost"
                  aria-label={`Remove the ${field.label} filter`}
                  onClick={() => setDrafts(drafts.filter((_, i) => i !== index))}
                >
                  ✕
                </button>
                {messages.map((message) => (
                  <span class="field-error" role="alert">
                    {message}
                  </span>
                ))}
              </li>
            );
          })}
        </ul>
      )}
      <p class="muted small">Several values of one filter: any of them (comma-separated). Several filters: all of them.</p>
    </form>
  );
}
