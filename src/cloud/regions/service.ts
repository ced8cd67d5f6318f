// Regions: the catalogue, and the rule that an operation needs an ACTIVE region with the capability.
import { Static } from 'typebox';
import { AppError, notFound } from '../../platform/errors.js';
import { REGIONS, type Capability, type RegionDefinition } from './catalogue.js';
import type { RegionListQuery, RegionSchema } from './schemas.js';

type Region = Static<typeof RegionSchema>;

const CAPABILITY_NAMES: Record<Capability, string> = {
  has_kvm: 'virtual machines (has_kvm)',
  has_k8s: 'managed Kubernetes (has_k8s)',
  has_sfs: 'file shares (has_sfs)',
  network: 'networking',
};

export class RegionService {
  list(query: Static<typeof RegionListQuery>): { count: number; results: Region[] } {
    let regions = REGIONS.slice();
    if (query.display_name) regions = regions.filter((r) => r.display_name.toLowerCase().includes(query.display_name!.toLowerCase()));
    if (query.product === 'inference') regions = regions.filter((r) => r.has_ai);
    if (query.order_by) {
      const [field, dir] = query.order_by.split('.') as ['created_at' | 'display_name', 'asc' | 'desc'];
      regions.sort((a, b) => a[field].localeCompare(b[field]) * (dir === 'asc' ? 1 : -1));
    }
    return { count: regions.length, results: regions.slice(query.offset, query.offset + query.limit).map(present) };
  }

  /** Whether `get` would find the region. */
  exists(id: number): boolean {
    return REGIONS.some((r) => r.id === id);
  }

  get(id: number): Region {
    const region = REGIONS.find((r) => r.id === id);
    if (!region) throw notFound(`Region ${id}`);
    return present(region);
  }

  /** The catalogue entry of a region, or a 404. */
  definition(id: number): RegionDefinition {
    const region = REGIONS.find((r) => r.id === id);
    if (!region) throw notFound(`Region ${id}`);
    return region;
  }

  /** The region a resource operation runs in: it must exist, be ACTIVE and offer the capability. */
  require(id: number, capability: Capability): RegionDefinition {
    const region = REGIONS.find((r) => r.id === id);
    if (!region) throw notFound(`Region ${id}`);
    if (region.state !== 'ACTIVE')
      throw new AppError('bad_request', `Region ${id} (${region.display_name}) is ${region.state}; only ACTIVE regions accept operations`);
    if (capability !== 'network' && !region[capability]) {
      throw new AppError('bad_request', `Region ${id} (${region.display_name}) does not offer ${CAPABILITY_NAMES[capability]}`);
    }
    return region;
  }

  name(id: number): string {
    return REGIONS.find((r) => r.id === id)?.display_name ?? String(id);
  }

  /** Every region a quota report covers. */
  ids(): number[] {
    return REGIONS.map((r) => r.id);
  }
}

function present(r: RegionDefinition): Region {
  return {
    id: r.id,
    display_name: r.display_name,
    slug: r.slug,
    country: r.country,
    state: r.state,
    access_level: r.access_level,
    zone: r.zone,
    has_kvm: r.has_kvm,
    has_baremetal: r.has_baremetal,
    has_basic_vm: r.has_kvm,
    has_k8s: r.has_k8s,
    has_dbaas: r.has_dbaas,
    has_ai: r.has_ai,
    has_ai_gpu: r.has_ai,
    has_sfs: r.has_sfs,
    has_ddos: r.has_ddos,
    available_volume_types: r.available_volume_types,
    file_share_types: r.file_share_types,
    coordinates: r.coordinates,
    created_at: r.created_at,
    created_on: r.created_at,
    ddos_endpoint_id: r.has_ddos ? r.id : null,
    endpoint_type: 'public',
    external_network_id: null,
    keystone_id: r.id,
    keystone_name: r.slug,
    metrics_database_id: null,
    task_id: null,
    vlan_physical_network: 'physnet1',
  };
}
