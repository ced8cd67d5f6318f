import { Lazy } from '../../ui/lazy';
import { DomainsView } from './domains';
import { EventsView } from './events';

// The charts (uPlot) load with the statistics tab only, so the request log opens without them.
const loadStats = () => import('./stats');

export default function WaapView(props: { tab: string }) {
  if (props.tab === 'stats') return <Lazy load={loadStats} props={{}} />;
  if (props.tab === 'domains') return <DomainsView />;
  return <EventsView />;
}
