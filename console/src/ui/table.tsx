// Every table of the console: TanStack Table (headless) for columns, sorting and row models; the markup,
// keyboard behaviour and fixed row heights (no layout jumps while data changes) are ours.
import {
  createColumnHelper,
  createSortedRowModel,
  rowSortingFeature,
  sortFn_alphanumeric,
  sortFn_basic,
  tableFeatures,
  useTable,
  type ColumnDef,
  type RowData,
  type SortingState,
} from '@tanstack/preact-table';
import type { ComponentChildren } from 'preact';
import { useMemo, useRef, useState } from 'preact/hooks';

export const features = tableFeatures({
  rowSortingFeature,
  sortedRowModel: createSortedRowModel(),
  sortFns: { alphanumeric: sortFn_alphanumeric, basic: sortFn_basic },
});

export type Columns<T extends RowData> = ColumnDef<typeof features, T, any>[];
export const columnsFor = <T extends RowData>() => createColumnHelper<typeof features, T>();

export interface DataTableProps<T extends RowData> {
  label: string;
  columns: Columns<T>;
  rows: T[];
  rowId: (row: T) => string;
  /** Called with the row on Enter or a click (opens its details). */
  onOpen?: (row: T) => void;
  /** Id of the row whose details are open. */
  openId?: string;
  /** Sorting done by the server (the WAAP log): the table only shows and reports it. */
  sorting?: { state: SortingState; onChange: (next: SortingState) => void };
  /** Keeps this many row slots when the page is shorter, so the pager does not move. */
  minRows?: number;
  empty?: ComponentChildren;
  loading?: boolean;
  /** Extra class per row (statuses). */
  rowClass?: (row: T) => string | undefined;
}

export function DataTable<T extends RowData>(props: DataTableProps<T>) {
  const [localSorting, setLocalSorting] = useState<SortingState>([]);
  const sorting = props.sorting?.state ?? localSorting;
  const table = useTable({
    features,
    columns: props.columns,
    data: props.rows,
    getRowId: props.rowId,
    manualSorting: Boolean(props.sorting),
    enableSortingRemoval: !props.sorting,
    state: { sorting },
    onSortingChange: (updater) => {
      const next = typeof updater === 'function' ? updater(sorting) : updater;
      if (props.sorting) props.sorting.onChange(next);
      else setLocalSorting(next);
    },
  });
  const body = useRef<HTMLTableSectionElement>(null);
  const rows = table.getRowModel().rows;
  const filler = Math.max(0, (props.minRows ?? 0) - rows.length);
  const columnCount = props.columns.length;

  // Arrow keys move between rows (one tab stop for the whole table), Enter opens, Home/End jump.
  const onKeyDown = (event: KeyboardEvent) => {
    const current = (event.target as HTMLElement).closest('tr');
    if (!current || !body.current?.contains(current)) return;
    const all = [...body.current.querySelectorAll<HTMLTableRowElement>('tr[data-row]')];
    const index = all.indexOf(current as HTMLTableRowElement);
    const move = { ArrowDown: index + 1, j: index + 1, ArrowUp: index - 1, k: index - 1, Home: 0, End: all.length - 1 }[event.key];
    if (move !== undefined) {
      event.preventDefault();
      all[Math.max(0, Math.min(all.length - 1, move))]?.focus();
    } else if (event.key === 'Enter' && props.onOpen) {
      event.preventDefault();
      const row = rows[index];
      if (row) props.onOpen(row.original);
    }
  };
  const firstFocusable = useMemo(
    () =>
      Math.max(
        0,
        rows.findIndex((row) => row.id === props.openId),
      ),
    [rows, props.openId],
  );

  return (
    <div class={`table-wrap${props.loading ? ' is-loading' : ''}`} aria-busy={props.loading ? 'true' : 'false'}>
      <table class="data" aria-label={props.label}>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => {
                const sorted = header.column.getIsSorted();
                const label = <table.FlexRender header={header} />;
                return (
                  <th key={header.id} scope="col" aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}>
                    {header.column.getCanSort() ? (
                      <button type="button" class="sort" onClick={header.column.getToggleSortingHandler()}>
                        {label}
                        <span class="sort-mark" aria-hidden="true">
                          {sorted === 'asc' ? '▲' : sorted === 'desc' ? '▼' : ''}
                        </span>
                      </button>
                    ) : (
                      label
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody ref={body} onKeyDown={onKeyDown}>
          {rows.map((row, index) => (
            <tr
              key={row.id}
              data-row={row.id}
              tabIndex={index === firstFocusable ? 0 : -1}
              class={[row.id === props.openId ? 'is-open' : '', props.onOpen ? 'is-clickable' : '', props.rowClass?.(row.original) ?? ''].join(' ')}
              onClick={props.onOpen ? () => props.onOpen?.(row.original) : undefined}
            >
              {row.getAllCells().map((cell) => (
                <td key={cell.id}>
                  <table.FlexRender cell={cell} />
                </td>
              ))}
            </tr>
          ))}
          {rows.length === 0 && (
            <tr class="empty">
              <td colSpan={columnCount}>{props.loading ? 'Loading…' : (props.empty ?? 'Nothing here yet.')}</td>
            </tr>
          )}
          {Array.from({ length: rows.length === 0 ? Math.max(0, filler - 1) : filler }, (_, i) => (
            <tr key={`filler-${i}`} class="filler" aria-hidden="true">
              <td colSpan={columnCount} />
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
