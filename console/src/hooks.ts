// Data loading for views: the previous answer stays on screen while the next one loads (no blank
// flashes, no layout jumps), a newer request aborts an older one, and a view can poll.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { asRefresh } from './api';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

interface Options {
  /** Poll every this many milliseconds (paused while the tab is hidden). */
  interval?: number;
}

/**
 * Loads `fetcher` whenever `key` changes (null: nothing to load). The key says what is loaded, so it
 * must change when the request does.
 */
export function useResource<T>(key: string | null, fetcher: (signal: AbortSignal) => Promise<T>, options: Options = {}): Resource<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: key !== null });
  const [tick, setTick] = useState(0);
  const fetcherRef = useRef(fetcher);
  fetcherRef.current = fetcher;
  // Whether the next load is a periodic refresh (kept out of the request journal) or asked for.
  const refreshing = useRef(false);

  useEffect(() => {
    if (key === null) return;
    const controller = new AbortController();
    setState((previous) => ({ ...previous, loading: true }));
    const load = () => fetcherRef.current(controller.signal);
    const loading = refreshing.current ? asRefresh(load) : load();
    refreshing.current = false;
    loading.then(
      (data) => !controller.signal.aborted && setState({ data, loading: false }),
      (error: unknown) => !controller.signal.aborted && setState((previous) => ({ data: previous.data, error, loading: false })),
    );
    return () => controller.abort();
  }, [key, tick]);

  useEffect(() => {
    if (!options.interval || key === null) return;
    const timer = setInterval(() => {
      if (document.hidden) return;
      refreshing.current = true;
      setTick((n) => n + 1);
    }, options.interval);
    return () => clearInterval(timer);
  }, [options.interval, key]);

  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** Runs an action (a create, a delete), keeping its error for the form and its pending state for buttons. */
export function useAction<A extends unknown[], R>(action: (...args: A) => Promise<R>) {
  const [state, setState] = useState<{ pending: boolean; error?: unknown; result?: R }>({ pending: false });
  const run = useCallback(
    async (...args: A): Promise<R | undefined> => {
      setState({ pending: true });
      try {
        const result = await action(...args);
        setState({ pending: false, result });
        return result;
      } catch (error) {
        setState({ pending: false, error });
        return undefined;
      }
    },
    [action],
  );
  const clear = useCallback(() => setState({ pending: false }), []);
  return { ...state, run, clear };
}

/** Answers kept for a short while by request key, so a prefetched next page shows at once. */
export class AnswerCache<T> {
  private readonly entries = new Map<string, { at: number; value: Promise<T> }>();
  constructor(
    private readonly ttlMs: number,
    private readonly size: number,
  ) {}

  get(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.value;
    const value = load();
    value.catch(() => this.entries.delete(key));
    this.entries.set(key, { at: Date.now(), value });
    while (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value as string);
    return value;
  }
}
