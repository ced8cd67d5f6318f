// Placing an instance on a host when a task makes it or moves it into a placement group: the client's
// instances in the region and the group's members decide (hosts.ts). No host that fits fails the task, as
// the provider's scheduler does ("No valid host was found").
import { TaskFailure } from '../../platform/tasks/types.js';
import { attrsOf, type ResourceRow, type ResourceStore } from '../common/resource-store.js';
import { REGIONS } from '../regions/catalogue.js';
import { chooseHost, hostsOf, type Policy } from './hosts.js';

/** What instances record of their placement. */
export interface Placed {
  host?: string | null;
  servergroup_id?: string | null;
}

export interface GroupAttrs {
  policy: Policy;
}

/** The host for `instance`, in group `groupId` if not null. */
export async function schedule(store: ResourceStore, instance: ResourceRow, groupId: string | null): Promise<string> {
  const region = REGIONS.find((r) => r.id === Number(instance.region_id))!;
  const scope = { clientId: instance.client_id, projectId: Number(instance.project_id), regionId: region.id };
  // Hosts are shared by the client's projects in the region: every project's instances load them.
  const load = await store.hostLoad(instance.client_id, region.id, instance.id);
  let group = null;
  if (groupId) {
    const row = await store.byId(groupId);
    if (!row) throw new TaskFailure(`Placement group ${groupId} was deleted before instance ${instance.id} could join it`);
    group = { policy: attrsOf<GroupAttrs>(row).policy, memberHosts: await store.groupHosts(scope, groupId) };
  }
  const host = chooseHost({ hosts: hostsOf(region), load, need: Number(instance.vcpus), group });
  if (!host)
    throw new TaskFailure(
      `No valid host was found for instance ${instance.id}: ${group ? `placement group ${groupId} (${group.policy}) allows none of the ${hostsOf(region).length} hosts of region ${region.id}` : `every host of region ${region.id} is full`}`,
    );
  return host;
}
