// Code loaded on first use (its own chunk): a section, or a heavy view such as the charts. Not preact-iso's
// lazy(), whose thrown-promise suspension left effects of the loaded view unrun under Preact 11.
import type { AnyComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';

type Loader<P> = () => Promise<{ default: AnyComponent<P> }>;
const loaded = new Map<Loader<any>, AnyComponent<any>>();

export function Lazy<P extends object>(props: { load: Loader<P>; props: P }) {
  const [, setReady] = useState(0);
  const View = loaded.get(props.load) as AnyComponent<P> | undefined;
  useEffect(() => {
    if (View) return;
    let current = true;
    props.load().then((module) => {
      loaded.set(props.load, module.default);
      if (current) setReady((n) => n + 1);
    });
    return () => {
      current = false;
    };
  }, [props.load]);
  return View ? <View {...props.props} /> : <p class="muted">Loading…</p>;
}
