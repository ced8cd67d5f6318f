// Offset paging with exact totals: "1–100 of 1,234,567", first/previous/next, page size.
import { count } from '../format';

export interface PagerProps {
  /** Index (0-based) of the first row shown, across the whole result. */
  position: number;
  shown: number;
  total: number | undefined;
  canPrevious: boolean;
  canNext: boolean;
  onFirst(): void;
  onPrevious(): void;
  onNext(): void;
  pageSize?: number;
  pageSizes?: number[];
  onPageSize?(size: number): void;
  note?: string;
}

export function Pager(props: PagerProps) {
  const from = props.shown === 0 ? 0 : props.position + 1;
  return (
    <div class="pager" role="navigation" aria-label="Pages">
      <span class="pager-range" aria-live="polite">
        {count(from)}–{count(props.position + props.shown)} of <strong>{count(props.total)}</strong>
      </span>
      {props.note && <span class="pager-note">{props.note}</span>}
      <span class="pager-buttons">
        {props.onPageSize && (
          <label class="inline">
            <span class="visually-hidden">Rows per page</span>
            <select value={String(props.pageSize)} onChange={(e) => props.onPageSize?.(Number((e.target as HTMLSelectElement).value))}>
              {(props.pageSizes ?? [25, 50, 100]).map((size) => (
                <option value={String(size)}>{size} / page</option>
              ))}
            </select>
          </label>
        )}
        <button type="button" onClick={props.onFirst} disabled={!props.canPrevious} title="First page">
          ⇤
        </button>
        <button type="button" onClick={props.onPrevious} disabled={!props.canPrevious} title="Previous page ([)">
          ← Prev
        </button>
        <button type="button" onClick={props.onNext} disabled={!props.canNext} title="Next page (])">
          Next →
        </button>
      </span>
    </div>
  );
}
