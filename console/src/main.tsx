import { render } from 'preact';
import { App } from './app';
import { BASE, SECTIONS } from './sections';
import { loadSession } from './session';
import { applyTheme, savedTheme } from './theme';
import { refreshServerClock } from './views/server-clock';
import './styles.css';

applyTheme(savedTheme());
// What the first view needs is fetched now, in parallel, not one after the other as it renders: the
// code of the section in the URL and, for the time windows, the server's clock.
if (loadSession()) {
  SECTIONS.find((section) => location.pathname.startsWith(`${BASE}/${section.id}`))
    ?.load()
    .catch(() => undefined);
  refreshServerClock().catch(() => undefined);
}
render(<App />, document.getElementById('app')!);
