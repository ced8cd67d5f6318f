import { Type } from 'typebox';

/** The quota names this emulator enforces, as the reference spells them (without _limit/_usage). */
export const QUOTA_NAMES = ['vm_count', 'cpu_count', 'ram', 'volume_count', 'volume_size', 'network_count', 'subnet_count', 'floating_count', 'cluster_count'] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];

export const DEFAULT_LIMITS: Record<QuotaName, number> = {
  vm_count: 50,
  cpu_count: 200,
  ram: 409_600,
  volume_count: 100,
  volume_size: 10_000,
  network_count: 50,
  subnet_count: 100,
  floating_count: 50,
  cluster_count: 10,
};

const pair = (description: string) => ({
  limit: Type.Integer({ minimum: 0, description: `${description}: limit` }),
  usage: Type.Integer({ minimum: 0, description: `${description}: usage` }),
});

const DESCRIPTIONS: Record<QuotaName, string> = {
  vm_count: 'Instances',
  cpu_count: 'vCPUs of instances',
  ram: 'RAM of instances in MiB',
  volume_count: 'Volumes',
  volume_size: 'Volume size in GiB',
  network_count: 'Networks',
  subnet_count: 'Subnets',
  floating_count: 'Floating IPs',
  cluster_count: 'Kubernetes clusters',
};

const regionalProps: Record<string, ReturnType<typeof Type.Integer>> = { region_id: Type.Integer() };
for (const name of QUOTA_NAMES) {
  const { limit, usage } = pair(DESCRIPTIONS[name]);
  regionalProps[`${name}_limit`] = limit;
  regionalProps[`${name}_usage`] = usage;
}

export const RegionalQuotas = Type.Object(regionalProps, { description: 'Limits and usage of one region' });
export const GlobalQuotas = Type.Object(
  { project_count_limit: Type.Integer(), project_count_usage: Type.Integer() },
  { description: 'Limits and usage that are not per region' },
);
export const ClientQuotas = Type.Object({ global_quotas: GlobalQuotas, regional_quotas: Type.Array(RegionalQuotas) });

const limitProps: Record<string, ReturnType<typeof Type.Optional>> = {};
for (const name of QUOTA_NAMES) limitProps[`${name}_limit`] = Type.Optional(Type.Integer({ minimum: 0, description: DESCRIPTIONS[name] }));
export const QuotaLimitsBody = Type.Object(limitProps, { additionalProperties: false, minProperties: 1 });
export const QuotaLimits = Type.Object(
  Object.fromEntries(QUOTA_NAMES.map((n) => [`${n}_limit`, Type.Integer()])),
  { description: 'Per-region limits of a client' },
);
