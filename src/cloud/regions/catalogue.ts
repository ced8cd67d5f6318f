// The simulated provider's regions. A fixed catalogue (regions are the provider's, not the client's):
// both access levels, differing capabilities and volume types, and regions that are not ACTIVE, so
// clients meet the same refusals they would meet for real.

export interface RegionDefinition {
  id: number;
  display_name: string;
  slug: string;
  country: string;
  state: 'ACTIVE' | 'MAINTENANCE' | 'NEW' | 'INACTIVE';
  access_level: 'core' | 'edge';
  zone: 'AMERICAS' | 'APAC' | 'EMEA' | 'RUSSIA_AND_CIS';
  has_kvm: boolean;
  has_baremetal: boolean;
  has_k8s: boolean;
  has_dbaas: boolean;
  has_ai: boolean;
  has_sfs: boolean;
  /** The kinds of file share the region offers (none without has_sfs). */
  file_share_types: ('standard' | 'vast')[];
  has_ddos: boolean;
  available_volume_types: string[];
  coordinates: { latitude: string; longitude: string };
  created_at: string;
}

const ALL_VOLUMES = ['standard', 'ssd_hiiops', 'cold', 'ultra', 'ssd_lowlatency'];

export const REGIONS: RegionDefinition[] = [
  {
    id: 76,
    display_name: 'Luxembourg-2',
    slug: 'luxembourg-2',
    country: 'LU',
    state: 'ACTIVE',
    access_level: 'core',
    zone: 'EMEA',
    has_kvm: true,
    has_baremetal: true,
    has_k8s: true,
    has_dbaas: true,
    has_ai: true,
    has_sfs: true,
    file_share_types: ['standard', 'vast'],
    has_ddos: true,
    available_volume_types: ALL_VOLUMES,
    coordinates: { latitude: '49.6116', longitude: '6.1319' },
    created_at: '2021-03-10T09:00:00+00:00',
  },
  {
    id: 38,
    display_name: 'Frankfurt',
    slug: 'frankfurt',
    country: 'DE',
    state: 'ACTIVE',
    access_level: 'core',
    zone: 'EMEA',
    has_kvm: true,
    has_baremetal: false,
    has_k8s: true,
    has_dbaas: false,
    has_ai: false,
    has_sfs: true,
    file_share_types: ['standard'],
    has_ddos: true,
    available_volume_types: ['standard', 'ssd_hiiops', 'cold'],
    coordinates: { latitude: '50.1109', longitude: '8.6821' },
    created_at: '2019-05-20T09:00:00+00:00',
  },
  {
    id: 116,
    display_name: 'Manassas',
    slug: 'manassas',
    country: 'US',
    state: 'ACTIVE',
    access_level: 'core',
    zone: 'AMERICAS',
    has_kvm: true,
    has_baremetal: true,
    has_k8s: true,
    has_dbaas: true,
    has_ai: false,
    has_sfs: false,
    file_share_types: [],
    has_ddos: true,
    available_volume_types: ['standard', 'ssd_hiiops', 'ultra'],
    coordinates: { latitude: '38.7509', longitude: '-77.4753' },
    created_at: '2022-08-01T09:00:00+00:00',
  },
  {
    id: 80,
    display_name: 'Singapore-2',
    slug: 'singapore-2',
    country: 'SG',
    state: 'ACTIVE',
    access_level: 'edge',
    zone: 'APAC',
    has_kvm: true,
    has_baremetal: false,
    has_k8s: false,
    has_dbaas: false,
    has_ai: false,
    has_sfs: false,
    file_share_types: [],
    has_ddos: false,
    available_volume_types: ['standard', 'ssd_hiiops'],
    coordinates: { latitude: '1.3521', longitude: '103.8198' },
    created_at: '2021-11-15T09:00:00+00:00',
  },
  {
    id: 18,
    display_name: 'Amsterdam',
    slug: 'amsterdam',
    country: 'NL',
    state: 'ACTIVE',
    access_level: 'edge',
    zone: 'EMEA',
    has_kvm: true,
    has_baremetal: false,
    has_k8s: true,
    has_dbaas: false,
    has_ai: false,
    has_sfs: false,
    file_share_types: [],
    has_ddos: false,
    available_volume_types: ['standard'],
    coordinates: { latitude: '52.3676', longitude: '4.9041' },
    created_at: '2020-02-03T09:00:00+00:00',
  },
  {
    id: 14,
    display_name: 'Tokyo',
    slug: 'tokyo',
    country: 'JP',
    state: 'ACTIVE',
    access_level: 'edge',
    zone: 'APAC',
    has_kvm: false,
    has_baremetal: true,
    has_k8s: false,
    has_dbaas: false,
    has_ai: false,
    has_sfs: false,
    file_share_types: [],
    has_ddos: false,
    available_volume_types: ['standard'],
    coordinates: { latitude: '35.6762', longitude: '139.6503' },
    created_at: '2020-06-12T09:00:00+00:00',
  },
  {
    id: 6,
    display_name: 'Chicago',
    slug: 'chicago',
    country: 'US',
    state: 'MAINTENANCE',
    access_level: 'edge',
    zone: 'AMERICAS',
    has_kvm: true,
    has_baremetal: false,
    has_k8s: false,
    has_dbaas: false,
    has_ai: false,
    has_sfs: false,
    file_share_types: [],
    has_ddos: false,
    available_volume_types: ['standard', 'cold'],
    coordinates: { latitude: '41.8781', longitude: '-87.6298' },
    created_at: '2019-01-15T09:00:00+00:00',
  },
  {
    id: 120,
    display_name: 'Sao Paulo',
    slug: 'sao-paulo',
    country: 'BR',
    state: 'NEW',
    access_level: 'core',
    zone: 'AMERICAS',
    has_kvm: true,
    has_baremetal: false,
    has_k8s: true,
    has_dbaas: false,
    has_ai: false,
    has_sfs: false,
    file_share_types: [],
    has_ddos: false,
    available_volume_types: ['standard', 'ssd_hiiops'],
    coordinates: { latitude: '-23.5505', longitude: '-46.6333' },
    created_at: '2026-09-01T09:00:00+00:00',
  },
];

/** The capability a kind of operation needs in its region. */
export type Capability = 'has_kvm' | 'has_k8s' | 'has_sfs' | 'network';
