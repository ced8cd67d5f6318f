// The time window of the WAAP views, kept in the URL: a preset (`range=24h`, measured back from the
// server's now) or an explicit `from`/`to`. The log and the statistics share it.
import { fromLocalInput, toLocalInput } from '../../format';
import { useServerClock } from '../server-clock';

export const PRESETS: Record<string, number> = { '15m': 900_000, '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 - 60_000 };
export const DEFAULT_RANGE = '24h';

export interface Window {
  start: string;
  /** Absent: up to the server's now. */
  end?: string;
}

/** The API window of the URL query; a preset's start is rounded to the minute so answers can be reused. */
export function windowOf(query: Record<string, string>, now: number): Window {
  if (query.from) return { start: query.from, end: query.to || undefined };
  const span = PRESETS[query.range ?? DEFAULT_RANGE] ?? PRESETS[DEFAULT_RANGE];
  return { start: new Date(Math.floor((now - span) / 60_000) * 60_000).toISOString() };
}

export function RangePicker(props: { query: Record<string, string>; onChange: (changes: Record<string, string | undefined>) => void }) {
  const { now, known } = useServerClock();
  const custom = Boolean(props.query.from);
  const current = custom ? 'custom' : (props.query.range ?? DEFAULT_RANGE);
  return (
    <div class="range" role="group" aria-label="Time range">
      <label class="inline">
        <span>Window</span>
        <select
          name="range"
          value={current}
          onChange={(e) => {
            const value = (e.target as HTMLSelectElement).value;
            if (value === 'custom')
              props.onChange({ range: undefined, from: new Date(now() - PRESETS['24h']).toISOString(), to: new Date(now()).toISOString() });
            else props.onChange({ range: value, from: undefined, to: undefined });
          }}
        >
          {Object.keys(PRESETS).map((key) => (
            <option value={key}>last {key}</option>
          ))}
          <option value="custom">custom…</option>
        </select>
      </label>
      {custom && (
        <>
          <label class="inline">
            <span>from (UTC)</span>
            <input
              type="datetime-local"
              value={toLocalInput(Date.parse(props.query.from))}
              onChange={(e) => props.onChange({ from: fromLocalInput((e.target as HTMLInputElement).value) })}
            />
          </label>
          <label class="inline">
            <span>to (UTC)</span>
            <input
              type="datetime-local"
              value={props.query.to ? toLocalInput(Date.parse(props.query.to)) : ''}
              onChange={(e) => props.onChange({ to: fromLocalInput((e.target as HTMLInputElement).value) })}
            />
          </label>
        </>
      )}
      <span class="muted small" title={known ? 'Read from the control API' : 'Sign in with an operator token to measure windows on the server clock'}>
        server now {new Date(now()).toISOString().slice(0, 16).replace('T', ' ')}
        {known ? '' : ' (browser)'}
      </span>
    </div>
  );
}
