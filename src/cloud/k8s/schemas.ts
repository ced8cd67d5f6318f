import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { LIMITS, NAME_PATTERN, pageQuery, Text, Uuid } from '../common/schemas.js';
import { VOLUME_TYPES } from '../volumes/schemas.js';

export const K8S_VERSIONS = ['v1.29.12', 'v1.30.8', 'v1.31.4', 'v1.32.1'] as const;

/** Cluster and pool names as the reference constrains them: lower-case letters, digits and dashes, 2 to 20. */
const K8sName = Type.String({ minLength: 1, maxLength: 20, pattern: '^[a-z][a-z0-9\\-]{0,18}[a-z0-9]$' });
/** Labels, taints and runtime settings of a pool: string maps, bounded. */
const StringMap = Type.Unsafe<Record<string, string>>({
  type: 'object',
  propertyNames: { type: 'string', minLength: 1, maxLength: 317 },
  additionalProperties: { type: 'string', maxLength: LIMITS.text },
  maxProperties: LIMITS.items,
});
const ANY_OBJECT = { type: 'object', maxProperties: LIMITS.items } as const;
const NodeCount = Type.Integer({ minimum: 1, maximum: 200 });

export const PoolSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    flavor_id: Type.String(),
    node_count: Type.Integer(),
    min_node_count: Type.Integer(),
    max_node_count: Type.Integer(),
    status: Type.String({ description: 'Provisioning, Running, Scaling, Deleting' }),
    boot_volume_size: Type.Integer(),
    boot_volume_type: Type.String(),
    auto_healing_enabled: Type.Boolean(),
    is_public_ipv4: Type.Boolean(),
    labels: Type.Record(Type.String(), Type.String()),
    taints: Type.Record(Type.String(), Type.String()),
    kubelet_config: Type.Record(Type.String(), Type.String()),
    crio_config: Type.Record(Type.String(), Type.String()),
    security_group_ids: Type.Array(Type.String()),
    servergroup_id: Type.String(),
    servergroup_name: Type.String(),
    servergroup_policy: Type.String(),
    created_at: Type.String(),
  },
  { description: 'A pool of nodes of one flavor' },
);

const Slurm = Type.Object({
  enabled: Type.Boolean(),
  file_share_id: Nullable(Type.String()),
  ssh_key_ids: Nullable(Type.Array(Type.String())),
  worker_count: Nullable(Type.Integer()),
});
const Logging = Type.Object({
  enabled: Type.Boolean(),
  destination_region_id: Nullable(Type.Integer()),
  topic_name: Nullable(Type.String()),
  retention_policy: Type.Optional(Nullable(Type.Object({ period: Nullable(Type.Integer()) }))),
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
    pods_ipv6_pool: Nullable(Type.String()),
    services_ipv6_pool: Nullable(Type.String()),
    pools: Type.Array(PoolSchema),
    add_ons: Type.Object({ slurm: Slurm }),
    csi: Type.Object({ nfs: Type.Object({ vast_enabled: Type.Boolean() }) }),
    logging: Nullable(Logging),
    autoscaler_config: Nullable(Type.Record(Type.String(), Type.String())),
    cni: Nullable(Type.Unsafe<Record<string, unknown>>({ type: 'object' })),
    authentication: Nullable(
      Type.Object({
        kubeconfig_created_at: Nullable(Type.String({ format: 'date-time' })),
        kubeconfig_expires_at: Nullable(Type.String({ format: 'date-time' })),
        oidc: Nullable(Type.Unsafe<Record<string, unknown>>({ type: 'object' })),
      }),
    ),
    ddos_profile: Nullable(Type.Unsafe<Record<string, unknown>>({ type: 'object' })),
    creator_task_id: Nullable(Type.String()),
    task_id: Nullable(Type.String({ description: 'The task working on the cluster right now, else null' })),
    created_at: Type.String(),
  },
  { description: 'A managed Kubernetes cluster' },
);

export const PoolInput = Type.Object({
  name: K8sName,
  flavor_id: Text(),
  min_node_count: NodeCount,
  max_node_count: Type.Optional(Nullable(NodeCount)),
  boot_volume_size: Type.Optional(Nullable(Type.Integer({ minimum: 10, maximum: 2000 }))),
  boot_volume_type: Type.Optional(Nullable(StringEnum(VOLUME_TYPES))),
  auto_healing_enabled: Type.Optional(Nullable(Type.Boolean())),
  is_public_ipv4: Type.Optional(Nullable(Type.Boolean())),
  labels: Type.Optional(Nullable(StringMap)),
  taints: Type.Optional(Nullable(StringMap)),
  security_group_ids: Type.Optional(Type.Array(Uuid(), { maxItems: LIMITS.items })),
  servergroup_policy: Type.Optional(Nullable(StringEnum(['affinity', 'anti-affinity', 'soft-anti-affinity']))),
  crio_config: Type.Optional(Nullable(StringMap)),
  kubelet_config: Type.Optional(Nullable(StringMap)),
});

const SlurmEnable = Type.Object({
  enabled: Type.Boolean(),
  file_share_id: Type.Optional(Uuid()),
  ssh_key_ids: Type.Optional(Type.Array(Uuid(), { minItems: 1, maxItems: LIMITS.items })),
  worker_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
});
const LoggingInput = Type.Object({
  enabled: Type.Optional(Type.Boolean({ default: false })),
  destination_region_id: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  topic_name: Type.Optional(
    Nullable(Type.String({ minLength: 1, maxLength: 223, pattern: '^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])*)*$' })),
  ),
  retention_policy: Type.Optional(Nullable(Type.Object({ period: Nullable(Type.Integer({ exclusiveMinimum: 0, maximum: 1825 })) }))),
});
const Settings = {
  add_ons: Type.Optional(Type.Object({ slurm: Type.Optional(SlurmEnable) })),
  authentication: Type.Optional(Nullable(Type.Object({ oidc: Type.Optional(Nullable(Type.Unsafe<Record<string, unknown>>({ ...ANY_OBJECT }))) }))),
  autoscaler_config: Type.Optional(Nullable(StringMap)),
  cni: Type.Optional(Nullable(Type.Unsafe<Record<string, unknown>>({ ...ANY_OBJECT }))),
  ddos_profile: Type.Optional(Nullable(Type.Unsafe<Record<string, unknown>>({ ...ANY_OBJECT }))),
  logging: Type.Optional(Nullable(LoggingInput)),
};

export const ClusterCreateBody = Type.Object({
  name: K8sName,
  keypair: Type.String({ minLength: 1, maxLength: 255, pattern: NAME_PATTERN, description: 'Name of an SSH key of the project' }),
  version: Text(32),
  pools: Type.Array(PoolInput, { minItems: 1, maxItems: LIMITS.items }),
  fixed_network: Type.Optional(Nullable(Uuid())),
  fixed_subnet: Type.Optional(Nullable(Uuid())),
  is_ipv6: Type.Optional(Nullable(Type.Boolean())),
  pods_ip_pool: Type.Optional(Nullable(Text(49))),
  services_ip_pool: Type.Optional(Nullable(Text(49))),
  pods_ipv6_pool: Type.Optional(Nullable(Text(49))),
  services_ipv6_pool: Type.Optional(Nullable(Text(49))),
  csi: Type.Optional(Type.Object({ nfs: Type.Optional(Type.Object({ vast_enabled: Type.Optional(Type.Boolean({ default: false })) })) })),
  ...Settings,
});

export const ClusterUpdateBody = Type.Object(Settings);

export const PoolUpdateBody = Type.Object({
  auto_healing_enabled: Type.Optional(Nullable(Type.Boolean())),
  labels: Type.Optional(Nullable(StringMap)),
  taints: Type.Optional(Nullable(StringMap)),
  min_node_count: Type.Optional(Nullable(NodeCount)),
  max_node_count: Type.Optional(Nullable(NodeCount)),
  node_count: Type.Optional(Nullable(NodeCount)),
  security_group_ids: Type.Optional(Type.Array(Uuid(), { maxItems: LIMITS.items })),
});

export const ResizeBody = Type.Object({ node_count: Type.Integer({ minimum: 0, maximum: 200 }) });

export const CheckPoolBody = Type.Object({
  flavor_id: Text(),
  name: Type.Optional(Nullable(Text(20))),
  min_node_count: Type.Optional(Nullable(NodeCount)),
  max_node_count: Type.Optional(Nullable(NodeCount)),
  node_count: Type.Optional(Nullable(NodeCount)),
  boot_volume_size: Type.Optional(Nullable(Type.Integer({ minimum: 10, maximum: 2000 }))),
  servergroup_policy: Type.Optional(Nullable(StringEnum(['affinity', 'anti-affinity', 'soft-anti-affinity']))),
});
export const CheckClusterBody = Type.Object({
  pools: Type.Optional(Type.Array(CheckPoolBody, { maxItems: LIMITS.items })),
  logging: Type.Optional(Nullable(LoggingInput)),
});
export const QuotaCheckSchema = Type.Record(Type.String(), Type.Integer(), {
  description: 'For each quota the request would exceed: its limit, what is requested and what is in use; {} when it fits',
});

export const UpgradeBody = Type.Object({ version: Text(32, { minLength: 1, description: 'Target version, newer than the current one' }) });

export const VersionList = Type.Object({ count: Type.Integer(), results: Type.Array(Type.Object({ version: Type.String() })) });

export const KubeconfigSchema = Type.Object({
  config: Type.String({ description: 'kubeconfig YAML' }),
  host: Type.String(),
  client_certificate: Type.String({ description: 'Base64 of the PEM' }),
  client_key: Type.String({ description: 'Base64 of the PEM' }),
  cluster_ca_certificate: Type.String({ description: 'Base64 of the PEM' }),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
});
export const CertificateSchema = Type.Object({
  certificate: Type.String({ description: 'The cluster CA certificate (PEM)' }),
  key: Type.String({ description: 'Its private key (PEM)' }),
});

export const K8sFlavorSchema = Type.Object({
  flavor_id: Type.String(),
  flavor_name: Type.String(),
  vcpus: Type.Integer(),
  ram: Type.Integer(),
  architecture: Type.String(),
  os_type: Type.String(),
  disabled: Type.Boolean(),
  resource_class: Nullable(Type.String()),
  hardware_description: Type.Record(Type.String(), Type.String()),
});
export const K8sFlavorQuery = Type.Object({
  ...pageQuery(),
  exclude_gpu: Type.Optional(Type.Boolean()),
  include_capacity: Type.Optional(Type.Boolean()),
  include_prices: Type.Optional(Type.Boolean()),
});

const ints = { project_id: Type.Integer({ minimum: 1 }), region_id: Type.Integer({ minimum: 1 }) };
export const ClusterParams = Type.Object({ ...ints, cluster_name: Type.String({ minLength: 1, maxLength: 63 }) });
export const PoolParams = Type.Object({
  ...ints,
  cluster_name: Type.String({ minLength: 1, maxLength: 63 }),
  pool_name: Type.String({ minLength: 1, maxLength: 63 }),
});
export const NodeParams = Type.Object({ ...ints, cluster_name: Type.String({ minLength: 1, maxLength: 63 }), instance_id: Uuid() });
export const PoolNodeParams = Type.Object({
  ...ints,
  cluster_name: Type.String({ minLength: 1, maxLength: 63 }),
  pool_name: Type.String({ minLength: 1, maxLength: 63 }),
  instance_id: Uuid(),
});
export const NodeListQuery = Type.Object({ ...pageQuery(), with_ddos: Type.Optional(Type.Boolean()) });
export const ClusterDeleteQuery = Type.Object({
  volumes: Type.Optional(Text(LIMITS.idList, { description: 'Comma-separated IDs of volumes to delete with the cluster' })),
});
