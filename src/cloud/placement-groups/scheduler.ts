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
  const members = (await store.all('instance', scope)).filter((i) => i.id !== instance.id && attrsOf<Placed>(i).host);
  // Hosts are shared by the client's projects in the region: every project's instances load them.
  const load = new Map<string, number>();
  for (const i of await allProjects(store, instance)) load.set(attrsOf<Placed>(i).host!, (load.get(attrsOf<Placed>(i).host!) ?? 0) + Number(i.vcpus));
  let group = null;
  if (groupId) {
    const row = await store.byId(groupId);
    if (!row) throw new TaskFailure(`Placement group ${groupId} was deleted before instance ${instance.id} could join it`);
    const memberHosts = new Set(members.filter((i) => attrsOf<Placed>(i).servergroup_id === groupId).map((i) => attrsOf<Placed>(i).host!));
    group = { policy: attrsOf<GroupAttrs>(row).policy, memberHosts };
  }
  const host = chooseHost({ hosts: hostsOf(region), load, need: Number(instance.vcpus), group });
  if (!host)
    throw new TaskFailure(
      `No valid host was found for instance ${instance.id}: ${group ? `placement group ${groupId} (${group.policy}) allows none of the ${hostsOf(region).length} hosts of region ${region.id}` : `every host of region ${region.id} is full`}`,
    );
  return host;
}

/** The client's placed instances in the instance's region, every project, the instance itself left out. */
async function allProjects(store: ResourceStore, instance: ResourceRow): Promise<ResourceRow[]> {
  return (await store.allInRegion('instance', instance.client_id, Number(instance.region_id))).filter((i) => i.id !== instance.id && attrsOf<Placed>(i).host);
}
