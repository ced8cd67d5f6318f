// The console's sections and their tabs. A product view slots in here: add a tab to its section (or a
// new section) with a lazily loaded component, and the navigation, routing and keyboard shortcuts follow.
// CDN resources, the effective options of a URL path and DNS zones/records are added this way once their
// APIs exist in the server.
import type { AnyComponent } from 'preact';

export interface Tab {
  id: string;
  title: string;
}

export interface Section {
  id: string;
  title: string;
  /** Key after `g` that opens it (g w, g c, ...). */
  key: string;
  /** Which token its calls need. */
  needs: 'client' | 'operator';
  tabs: Tab[];
  /** Loads the section's code (its own chunk). */
  load: () => Promise<{ default: AnyComponent<{ tab: string }> }>;
}

export const SECTIONS: Section[] = [
  {
    id: 'waap',
    title: 'WAAP',
    key: 'w',
    needs: 'client',
    tabs: [
      { id: 'events', title: 'Request log' },
      { id: 'stats', title: 'Statistics' },
      { id: 'domains', title: 'Domains' },
    ],
    load: () => import('./views/waap/waap'),
  },
  {
    id: 'cloud',
    title: 'Cloud',
    key: 'c',
    needs: 'client',
    tabs: [
      { id: 'instances', title: 'Instances' },
      { id: 'volumes', title: 'Volumes' },
      { id: 'networks', title: 'Networks' },
      { id: 'subnets', title: 'Subnets' },
      { id: 'floatingips', title: 'Floating IPs' },
      { id: 'k8s', title: 'Kubernetes' },
      { id: 'tasks', title: 'Tasks' },
      { id: 'account', title: 'Projects, regions, quotas' },
    ],
    load: () => import('./views/cloud/cloud'),
  },
  {
    id: 'cdn',
    title: 'CDN',
    key: 'd',
    needs: 'client',
    tabs: [{ id: 'rule-templates', title: 'Rule templates' }],
    load: () => import('./views/cdn/cdn'),
  },
  {
    id: 'operator',
    title: 'Operator',
    key: 'o',
    needs: 'operator',
    tabs: [
      { id: 'overview', title: 'Clock, tasks, faults' },
      { id: 'journal', title: 'Journal' },
      { id: 'state', title: 'State' },
    ],
    load: () => import('./views/operator/operator'),
  },
];

export const BASE = '/console';
export const sectionHref = (section: Section, tab = section.tabs[0].id) => `${BASE}/${section.id}/${tab}`;
