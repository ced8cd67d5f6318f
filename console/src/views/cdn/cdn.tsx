// CDN. Rule templates today; CDN resources and the effective options of a URL path get their own tab in
// sections.ts (and a component here) once the server has their APIs.
import { RuleTemplatesView } from './rule-templates';

export default function CdnView(_props: { tab: string }) {
  return <RuleTemplatesView />;
}
