// Operator views: everything under /_edgeplane, called with the operator token.
import { JournalView } from './journal';
import { OverviewView } from './overview';
import { StateView } from './state';

export default function OperatorView(props: { tab: string }) {
  if (props.tab === 'journal') return <JournalView />;
  if (props.tab === 'state') return <StateView />;
  return <OverviewView />;
}
