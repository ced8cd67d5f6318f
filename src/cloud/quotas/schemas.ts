import { Type, type TInteger, type TOptional } from 'typebox';

/** The regional quotas this emulator enforces, as the reference spells them (without _limit/_usage). */
export const QUOTA_NAMES = [
  'vm_count',
  'cpu_count',
  'ram',
  'volume_count',
  'volume_size',
  'network_count',
  'subnet_count',
  'floating_count',
  'cluster_count',
  'image_count',
  'image_size',
  'volume_snapshots_count',
  'volume_snapshots_size',
  'firewall_count',
  'loadbalancer_count',
  'external_ip_count',
  'router_count',
  'sfs_count',
  'sfs_size',
  'servergroup_count',
] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];

/** The quotas that are not per region. */
export const GLOBAL_QUOTA_NAMES = ['keypair_count'] as const;
export type GlobalQuotaName = (typeof GLOBAL_QUOTA_NAMES)[number];
export type AnyQuotaName = QuotaName | GlobalQuotaName;

const GIB = 1024 ** 3;

export const DEFAULT_LIMITS: Record<AnyQuotaName, number> = {
  vm_count: 50,
  cpu_count: 200,
  ram: 409_600,
  volume_count: 100,
  volume_size: 10_000,
  network_count: 50,
  subnet_count: 100,
  floating_count: 50,
  cluster_count: 10,
  image_count: 50,
  image_size: 1_000 * GIB,
  volume_snapshots_count: 100,
  volume_snapshots_size: 10_000,
  firewall_count: 50,
  loadbalancer_count: 20,
  external_ip_count: 100,
  router_count: 10,
  sfs_count: 20,
  sfs_size: 10_000,
  servergroup_count: 20,
  keypair_count: 100,
};

/** Projects per client: reported, not configurable. */
export const PROJECT_COUNT_LIMIT = 100;

const DESCRIPTIONS: Record<AnyQuotaName, string> = {
  vm_count: 'Instances (Kubernetes nodes included)',
  cpu_count: 'vCPUs of instances',
  ram: 'RAM of instances in MiB',
  volume_count: 'Volumes',
  volume_size: 'Volume size in GiB',
  network_count: 'Networks',
  subnet_count: 'Subnets',
  floating_count: 'Floating IPs',
  cluster_count: 'Kubernetes clusters',
  image_count: 'Private images',
  image_size: 'Size of private images in bytes',
  volume_snapshots_count: 'Volume snapshots',
  volume_snapshots_size: 'Size of volume snapshots in GiB',
  firewall_count: 'Security groups',
  loadbalancer_count: 'Load balancers',
  router_count: 'Routers',
  sfs_count: 'File shares',
  sfs_size: 'Size of file shares in GiB',
  servergroup_count: 'Placement groups',
  external_ip_count: 'Addresses on the public network (external interfaces, public VIPs, external reserved fixed IPs)',
  keypair_count: 'SSH keys (all projects)',
};

const pair = (name: AnyQuotaName) => ({
  limit: Type.Integer({ minimum: 0, description: `${DESCRIPTIONS[name]}: limit` }),
  usage: Type.Integer({ minimum: 0, description: `${DESCRIPTIONS[name]}: usage` }),
});

const regionalProps: Record<string, ReturnType<typeof Type.Integer>> = { region_id: Type.Integer() };
for (const name of QUOTA_NAMES) {
  const { limit, usage } = pair(name);
  regionalProps[`${name}_limit`] = limit;
  regionalProps[`${name}_usage`] = usage;
}
const globalProps: Record<string, ReturnType<typeof Type.Integer>> = { project_count_limit: Type.Integer(), project_count_usage: Type.Integer() };
for (const name of GLOBAL_QUOTA_NAMES) {
  const { limit, usage } = pair(name);
  globalProps[`${name}_limit`] = limit;
  globalProps[`${name}_usage`] = usage;
}

export const RegionalQuotas = Type.Object(regionalProps, { description: 'Limits and usage of one region' });
export const GlobalQuotas = Type.Object(globalProps, { description: 'Limits and usage that are not per region' });
export const ClientQuotas = Type.Object({ global_quotas: GlobalQuotas, regional_quotas: Type.Array(RegionalQuotas) });

const ALL_NAMES: readonly AnyQuotaName[] = [...QUOTA_NAMES, ...GLOBAL_QUOTA_NAMES];
const limitProps: Record<string, TOptional<TInteger>> = {};
for (const name of ALL_NAMES) limitProps[`${name}_limit`] = Type.Optional(Type.Integer({ minimum: 0, description: DESCRIPTIONS[name] }));
export const QuotaLimitsBody = Type.Object(limitProps, { additionalProperties: false, minProperties: 1 });
export const QuotaLimits = Type.Object(Object.fromEntries(ALL_NAMES.map((n) => [`${n}_limit`, Type.Integer()])), {
  description: 'Limits of a client (regional ones apply in each region)',
});
