// How routers are stored: a router row, and its ports - one per attached subnet (on the subnet's network,
// taking the subnet's gateway address) and one on the provider's public network for its gateway.
import { Static } from 'typebox';
import { attrsOf, type ResourceRow, ResourceStore } from '../common/resource-store.js';
import type { RouterCreateBody } from './schemas.js';

export type RouteInput = NonNullable<Static<typeof RouterCreateBody>['routes']>[number];

export interface RouterAttrs {
  /** The gateway to the public network, with the port holding its address; null when it has none. */
  gateway: { network_id: string; enable_snat: boolean; port_id: string } | null;
  routes: { destination: string; nexthop: string }[];
}

/** The router's interfaces: its ports on the project's networks (not its gateway). */
export async function interfacesOf(store: ResourceStore, routerId: string): Promise<ResourceRow[]> {
  return (await store.attachedTo(routerId, 'port')).filter((p) => p.parent_id !== null);
}

/**
 * Whether a router joins network `from` to network `to` (an interface on each), or, with `to` null, to
 * the public network (it has a gateway).
 */
export async function routed(store: ResourceStore, from: string, to: string | null): Promise<boolean> {
  const owners = new Set((await store.children(from, 'port')).map((p) => p.owner_id).filter((id): id is string => id !== null));
  for (const id of owners) {
    const router = await store.byId(id);
    if (router?.kind !== 'router' || !router.ready) continue;
    if (to === null ? attrsOf<RouterAttrs>(router).gateway !== null : (await interfacesOf(store, id)).some((p) => p.parent_id === to)) return true;
  }
  return false;
}
