// Small shared pieces: form fields with inline errors, status badges, notices, JSON, the drawer.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError, fieldErrors } from '../api';
import { json } from '../format';

export function Field(props: { label: string; error?: unknown; path?: string; hint?: ComponentChildren; children: ComponentChildren; wide?: boolean }) {
  const messages = props.path ? fieldErrors(props.error, props.path) : [];
  return (
    <label class={`field${messages.length ? ' has-error' : ''}${props.wide ? ' wide' : ''}`}>
      <span class="field-label">{props.label}</span>
      {props.children}
      {props.hint && <span class="field-hint">{props.hint}</span>}
      {messages.map((message) => (
        <span class="field-error" role="alert">
          {message}
        </span>
      ))}
    </label>
  );
}

/** The error of a call, for the fields no input shows (`shown` lists the paths the form shows inline). */
export function ErrorNote(props: { error: unknown; shown?: string[] }) {
  if (!props.error) return null;
  if (!(props.error instanceof ApiError))
    return (
      <p class="note error" role="alert">
        {String((props.error as Error)?.message ?? props.error)}
      </p>
    );
  const shown = props.shown ?? [];
  const others = Object.entries(props.error.fields).filter(([path]) => !shown.some((s) => path === s || path.startsWith(`${s}.`)));
  return (
    <div class="note error" role="alert">
      <strong>
        {props.error.status}: {props.error.message}
      </strong>
      {others.length > 0 && (
        <ul>
          {others.map(([path, messages]) => (
            <li>
              <code>{path || '(request)'}</code> {messages.join('; ')}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

const STATUS_TONES: Record<string, string> = {
  FINISHED: 'ok',
  ACTIVE: 'ok',
  active: 'ok',
  available: 'ok',
  'in-use': 'ok',
  allowed: 'ok',
  passed: 'ok',
  ERROR: 'bad',
  error: 'bad',
  blocked: 'bad',
  DELETED: 'bad',
  locked: 'bad',
  NEW: 'busy',
  RUNNING: 'busy',
  creating: 'busy',
  deleting: 'busy',
  BUILD: 'busy',
  attaching: 'busy',
  PROVISIONING: 'busy',
  monitored: 'warn',
  monitor: 'warn',
  bypass: 'warn',
  SHUTOFF: 'warn',
  SUSPENDED: 'warn',
  DOWN: 'warn',
  MAINTENANCE: 'warn',
};

export function Status(props: { value: string | null | undefined }) {
  const value = props.value ?? '–';
  return <span class={`status tone-${STATUS_TONES[value] ?? 'plain'}`}>{value}</span>;
}

export function Json(props: { value: unknown; label?: string }) {
  return (
    <pre class="json" aria-label={props.label} tabIndex={0}>
      {typeof props.value === 'string' ? props.value : json(props.value)}
    </pre>
  );
}

/** A panel over the right side: Escape closes it, focus moves in and back to where it was. */
export function Drawer(props: { title: ComponentChildren; onClose: () => void; children: ComponentChildren; wide?: boolean }) {
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    panel.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') props.onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      before?.focus?.();
    };
  }, []);
  return (
    <div
      class={`drawer${props.wide ? ' wide' : ''}`}
      role="dialog"
      aria-modal="false"
      aria-label={typeof props.title === 'string' ? props.title : 'Details'}
      tabIndex={-1}
      ref={panel}
    >
      <header class="drawer-head">
        <h2>{props.title}</h2>
        <button type="button" class="ghost" onClick={props.onClose} aria-label="Close details" title="Close (Esc)">
          ✕
        </button>
      </header>
      <div class="drawer-body">{props.children}</div>
    </div>
  );
}

export function Pairs(props: { items: [string, ComponentChildren][] }) {
  return (
    <dl class="pairs">
      {props.items.map(([name, value]) => (
        <>
          <dt>{name}</dt>
          <dd>{value === '' || value === null || value === undefined ? '–' : value}</dd>
        </>
      ))}
    </dl>
  );
}

export function Card(props: { title: ComponentChildren; children: ComponentChildren; actions?: ComponentChildren; 'aria-label'?: string }) {
  const { title, children, actions } = props;
  return (
    <section class="card" aria-label={props['aria-label']}>
      <header class="card-head">
        <h2>{title}</h2>
        {actions && <div class="card-actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}
