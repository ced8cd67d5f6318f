// The shell: sign-in, navigation between sections, keyboard shortcuts, theme.
import { ErrorBoundary, LocationProvider, Route, Router, useLocation, useRoute } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { call } from './api';
import { BASE, SECTIONS, sectionHref, type Section } from './sections';
import { saveSession, useSession, type Session } from './session';
import { applyTheme, nextTheme, savedTheme } from './theme';
import { Lazy } from './ui/lazy';
import { ErrorNote, Field } from './ui/widgets';

export function App() {
  return (
    <LocationProvider scope={BASE}>
      <ErrorBoundary>
        <Router>
          <Route path={`${BASE}/login`} component={LoginPage} />
          <Route path={`${BASE}/:section/:tab?`} component={SectionPage} />
          <Route default component={Home} />
        </Router>
      </ErrorBoundary>
    </LocationProvider>
  );
}

function Home() {
  const { route } = useLocation();
  const session = useSession();
  useEffect(() => route(session ? sectionHref(SECTIONS[0]) : `${BASE}/login`, true), [session]);
  return null;
}

function SectionPage() {
  const { params } = useRoute();
  const { route, url } = useLocation();
  const session = useSession();
  const section = SECTIONS.find((s) => s.id === params.section);
  useEffect(() => {
    if (!session) route(`${BASE}/login?next=${encodeURIComponent(url)}`, true);
    else if (!section) route(sectionHref(SECTIONS[0]), true);
    else if (!section.tabs.some((t) => t.id === params.tab)) route(sectionHref(section), true);
  }, [session, section, params.tab]);
  if (!session || !section || !section.tabs.some((t) => t.id === params.tab)) return null;
  return (
    <Shell section={section} session={session}>
      {section.needs === 'operator' && !session.operatorToken ? (
        <OperatorTokenForm session={session} />
      ) : (
        <Lazy load={section.load} props={{ tab: params.tab }} />
      )}
    </Shell>
  );
}

function Shell(props: { section: Section; session: Session; children: preact.ComponentChildren }) {
  const [theme, setTheme] = useState(savedTheme);
  const [help, setHelp] = useState(false);
  useShortcuts(() => setHelp((shown) => !shown));
  const cycleTheme = () => {
    const next = nextTheme(theme);
    applyTheme(next);
    setTheme(next);
  };
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={sectionHref(SECTIONS[0])}>
          Edgeplane <span>console</span>
        </a>
        <nav class="sections" aria-label="Sections">
          {SECTIONS.map((section) => (
            <a href={sectionHref(section)} aria-current={section.id === props.section.id ? 'page' : undefined} title={`${section.title} (g ${section.key})`}>
              {section.title}
            </a>
          ))}
        </nav>
        <div class="who">
          <span title={props.session.email}>client {props.session.clientId ?? '?'}</span>
          <button type="button" class="ghost" onClick={cycleTheme} title="Theme: system, light, dark" aria-label={`Theme: ${theme}`}>
            {theme === 'dark' ? '☾' : theme === 'light' ? '☀' : '◐'}
          </button>
          <button type="button" class="ghost" onClick={() => setHelp(true)} title="Keyboard shortcuts (?)" aria-label="Keyboard shortcuts">
            ?
          </button>
          <button type="button" class="ghost" onClick={() => saveSession(null)}>
            Sign out
          </button>
        </div>
      </header>
      <nav class="tabs-row" aria-label={`${props.section.title} views`}>
        <SectionTabs section={props.section} />
      </nav>
      <main id="main" tabIndex={-1}>
        {props.children}
      </main>
      {help && <HelpDialog onClose={() => setHelp(false)} />}
    </div>
  );
}

function SectionTabs(props: { section: Section }) {
  const { params } = useRoute();
  return (
    <div class="tabs" onKeyDown={arrowTabs}>
      {props.section.tabs.map((tab) => (
        <a href={sectionHref(props.section, tab.id)} aria-current={tab.id === params.tab ? 'page' : undefined}>
          {tab.title}
        </a>
      ))}
    </div>
  );
}

function arrowTabs(event: KeyboardEvent) {
  if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
  const links = [...(event.currentTarget as HTMLElement).querySelectorAll<HTMLAnchorElement>('a')];
  const index = links.indexOf(event.target as HTMLAnchorElement);
  if (index < 0) return;
  links[(index + (event.key === 'ArrowRight' ? 1 : links.length - 1)) % links.length].focus();
}

const SHORTCUTS: [string, string][] = [
  ...SECTIONS.map((s): [string, string] => [`g ${s.key}`, `go to ${s.title}`]),
  ['/', 'focus the first filter or search field'],
  ['↑ ↓ or j k', 'move between table rows'],
  ['Enter', 'open the focused row'],
  ['Esc', 'close the details panel'],
  ['[ ]', 'previous / next page'],
  ['← →', 'move between tabs'],
  ['?', 'show or hide this help'],
];

function HelpDialog(props: { onClose: () => void }) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && props.onClose();
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  return (
    <div class="overlay" onClick={props.onClose}>
      <div class="dialog" role="dialog" aria-label="Keyboard shortcuts" onClick={(e) => e.stopPropagation()}>
        <h2>Keyboard shortcuts</h2>
        <dl class="pairs">
          {SHORTCUTS.map(([keys, what]) => (
            <>
              <dt>
                <kbd>{keys}</kbd>
              </dt>
              <dd>{what}</dd>
            </>
          ))}
        </dl>
        <button type="button" onClick={props.onClose} autoFocus>
          Close
        </button>
      </div>
    </div>
  );
}

/** `g` then a section key navigates; `/` focuses a search field; `[` `]` page; `?` help. Not while typing. */
function useShortcuts(toggleHelp: () => void) {
  const { route } = useLocation();
  useEffect(() => {
    let pendingG = false;
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      if (event.ctrlKey || event.metaKey || event.altKey || target.closest('input, textarea, select, [contenteditable]')) return;
      if (pendingG) {
        pendingG = false;
        const section = SECTIONS.find((s) => s.key === event.key);
        if (section) route(sectionHref(section));
        return;
      }
      if (event.key === 'g') pendingG = true;
      else if (event.key === '?') toggleHelp();
      else if (event.key === '/') {
        const field = document.querySelector<HTMLElement>('[data-search]');
        if (field) {
          event.preventDefault();
          field.focus();
        }
      } else if (event.key === '[' || event.key === ']') {
        document.querySelector<HTMLButtonElement>(`.pager button[title^="${event.key === '[' ? 'Previous' : 'Next'}"]`)?.click();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

interface Account {
  id: number;
  email?: string;
}

function LoginPage() {
  const { route, query } = useLocation();
  const [apiKey, setApiKey] = useState('');
  const [operatorToken, setOperatorToken] = useState('');
  const [error, setError] = useState<unknown>();
  const [pending, setPending] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setPending(true);
    setError(undefined);
    const session: Session = { apiKey: apiKey.trim(), operatorToken: operatorToken.trim() || undefined };
    saveSession(session);
    try {
      const account = await call<Account>('/iam/clients/me');
      if (session.operatorToken) await call('/_edgeplane/clock', { as: 'operator' });
      saveSession({ ...session, clientId: account.id, email: account.email });
      route(query.next?.startsWith(`${BASE}/`) ? query.next : sectionHref(SECTIONS[0]), true);
    } catch (failure) {
      saveSession(null);
      setError(failure);
    } finally {
      setPending(false);
    }
  };
  return (
    <main class="login" id="main">
      <form class="card" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">Edgeplane console</h1>
        <p class="muted">Sign in with an API token of your account. It is kept in this tab's session storage only, and sent only to this server.</p>
        <Field label="API token" hint="Authorization: APIKey <token>; the demo account's is printed at first start.">
          <input
            name="apiKey"
            type="password"
            autoComplete="off"
            required
            value={apiKey}
            onInput={(e) => setApiKey((e.target as HTMLInputElement).value)}
            autoFocus
          />
        </Field>
        <Field label="Operator token (optional)" hint="For the Operator views: clock, faults, journal, state.">
          <input
            name="operatorToken"
            type="password"
            autoComplete="off"
            value={operatorToken}
            onInput={(e) => setOperatorToken((e.target as HTMLInputElement).value)}
          />
        </Field>
        <ErrorNote error={error} />
        <button type="submit" class="primary" disabled={pending}>
          {pending ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

function OperatorTokenForm(props: { session: Session }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>();
  const submit = async (event: Event) => {
    event.preventDefault();
    saveSession({ ...props.session, operatorToken: token.trim() });
    try {
      await call('/_edgeplane/clock', { as: 'operator' });
    } catch (failure) {
      saveSession({ ...props.session, operatorToken: undefined });
      setError(failure);
    }
  };
  return (
    <form class="card narrow" onSubmit={submit}>
      <h2>Operator token needed</h2>
      <p class="muted">
        The operator views call the control API (/_edgeplane), which takes the operator token (EDGEPLANE_ADMIN_TOKEN, or the one printed at first start).
      </p>
      <Field label="Operator token">
        <input name="operatorToken" type="password" autoComplete="off" required value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} />
      </Field>
      <ErrorNote error={error} />
      <button type="submit" class="primary">
        Use operator token
      </button>
    </form>
  );
}
