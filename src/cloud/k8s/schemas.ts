import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';

export const K8S_VERSIONS = ['v1.29.12', 'v1.30.8', 'v1.31.4', 'v1.32.1'] as const;

const Pool = Type.Object({
  id: Type.String(),
  name: Type.String(),
  flavor_id: Type.String(),
  node_count: Type.Integer(),
  min_node_count: Type.Integer(),
  max_node_count: Type.Integer(),
  status: Type.String(),
  boot_volume_size: Type.Integer(),
  boot_volume_type: Type.String(),
  auto_healing_enabled: Type.Boolean(),
  is_public_ipv4: Type.Boolean(),
  labels: Type.Object({}, { additionalProperties: true }),
  taints: Type.Object({}, { additionalProperties: true }),
  kubelet_config: Type.Object({}, { additionalProperties: true }),
  crio_config: Type.Object({}, { additionalProperties: true }),
  security_group_ids: Type.Array(Type.String()),
  servergroup_id: Type.String(),
  servergroup_name: Type.String(),
  servergroup_policy: Type.String(),
  created_at: Type.String(),
});

export const ClusterSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    version: Type.String({ description: 'Changes only when an upgrade task finishes' }),
    status: StringEnum(['Deleting', 'Provisioned', 'Provisioning']),
    keypair: Type.String(),
    is_public: Type.Boolean(),
    is_ipv6: Type.Boolean(),
    fixed_network: Nullable(Type.String()),
    fixed_subnet: Nullable(Type.String()),
    pods_ip_pool: Nullable(Type.String()),
    services_ip_pool: Nullable(Type.String()),
    pools: Type.Array(Pool),
    add_ons: Type.Object({ slurm: Type.Object({ enabled: Type.Boolean(), file_share_id: Nullable(Type.String()), ssh_key_ids: Nullable(Type.Array(Type.String())), worker_count: Nullable(Type.Integer()) }) }),
    csi: Type.Object({ nfs: Type.Object({ vast_enabled: Type.Boolean() }) }),
    logging: Nullable(Type.Object({ enabled: Type.Boolean(), destination_region_id: Nullable(Type.Integer()), topic_name: Nullable(Type.String()) })),
    creator_task_id: Nullable(Type.String()),
    task_id: Nullable(Type.String({ description: 'The task working on the cluster right now, else null' })),
    created_at: Type.String(),
  },
  { description: 'A managed Kubernetes cluster' },
);

const PoolInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 20 }),
    flavor_id: Type.String({ minLength: 1 }),
    min_node_count: Type.Integer({ minimum: 1, maximum: 200 }),
    max_node_count: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 200 }))),
    boot_volume_size: Type.Optional(Nullable(Type.Integer({ minimum: 10 }))),
    boot_volume_type: Type.Optional(Nullable(StringEnum(['cold', 'ssd_hiiops', 'ssd_local', 'ssd_lowlatency', 'standard', 'ultra']))),
    auto_healing_enabled: Type.Optional(Nullable(Type.Boolean())),
    is_public_ipv4: Type.Optional(Nullable(Type.Boolean())),
    labels: Type.Optional(Nullable(Type.Record(Type.String(), Type.String()))),
    taints: Type.Optional(Nullable(Type.Record(Type.String(), Type.String()))),
    security_group_ids: Type.Optional(Type.Array(Type.String({ format: 'uuid' }))),
    servergroup_policy: Type.Optional(Nullable(StringEnum(['affinity', 'anti-affinity', 'soft-anti-affinity']))),
    crio_config: Type.Optional(Nullable(Type.Record(Type.String(), Type.String()))),
    kubelet_config: Type.Optional(Nullable(Type.Record(Type.String(), Type.String()))),
  },
  { additionalProperties: false },
);

export const ClusterCreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 20, pattern: '^[a-z][a-z0-9-]*$', description: 'Lower-case letters, digits and dashes' }),
    keypair: Type.String({ minLength: 1, maxLength: 255 }),
    version: Type.String({ minLength: 1 }),
    pools: Type.Array(PoolInput, { minItems: 1 }),
    fixed_network: Type.Optional(Nullable(Type.String())),
    fixed_subnet: Type.Optional(Nullable(Type.String())),
    is_ipv6: Type.Optional(Nullable(Type.Boolean())),
    pods_ip_pool: Type.Optional(Nullable(Type.String())),
    services_ip_pool: Type.Optional(Nullable(Type.String())),
    pods_ipv6_pool: Type.Optional(Nullable(Type.String())),
    services_ipv6_pool: Type.Optional(Nullable(Type.String())),
    autoscaler_config: Type.Optional(Nullable(Type.Record(Type.String(), Type.String()))),
    cni: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
    csi: Type.Optional(Type.Object({}, { additionalProperties: true })),
    logging: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
    authentication: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
    ddos_profile: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
    add_ons: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: false },
);

export const UpgradeBody = Type.Object({ version: Type.String({ minLength: 1, description: 'Target version, newer than the current one' }) }, { additionalProperties: false });

export const VersionList = Type.Object({ count: Type.Integer(), results: Type.Array(Type.Object({ version: Type.String() })) });

export const ClusterParams = Type.Object({
  project_id: Type.Integer({ minimum: 1 }),
  region_id: Type.Integer({ minimum: 1 }),
  cluster_name: Type.String({ minLength: 1, maxLength: 63 }),
});
