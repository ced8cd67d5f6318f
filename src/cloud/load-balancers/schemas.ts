// Schemas of load balancers: the create (with its listeners, their pools, members and monitors), the
// updates, the list filters, and the balancer, its status tree and metrics as the API shows them.
import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { LIMITS, pageQuery, placedRecordFields, ResourceName, TagSchema, TagsInput, TagsPatch, Text, Uuid } from '../common/schemas.js';
import { FloatingIpSchema } from '../floating-ips/schemas.js';
import { CONNECTIVITY, IP_FAMILIES, MONITOR_TYPES, OPERATING_STATUSES, PROVISIONING_STATUSES } from './enums.js';
import { listenerInputFields, StatsSchema } from './listener-schemas.js';
import { poolInputFields } from './pool-schemas.js';

const Provisioning = StringEnum(PROVISIONING_STATUSES);
const Operating = StringEnum(OPERATING_STATUSES);

const Logging = Type.Object({
  enabled: Type.Boolean({ default: false }),
  destination_region_id: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  topic_name: Type.Optional(
    Nullable(Type.String({ minLength: 1, maxLength: 223, pattern: '^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])*)*$' })),
  ),
  retention_policy: Type.Optional(Nullable(Type.Object({ period: Nullable(Type.Integer({ minimum: 1, maximum: 1825, description: 'Days' })) }))),
});

const FloatingIpInput = Type.Union([
  Type.Object({ source: Type.Literal('new') }),
  Type.Object({ source: Type.Literal('existing'), existing_floating_id: Uuid() }),
]);

/** A listener inside a balancer's create: with at most one pool, its default pool. */
export const NestedListener = Type.Object({ ...listenerInputFields, pools: Type.Optional(Type.Array(Type.Object(poolInputFields), { maxItems: 1 })) });

export const LoadBalancerCreateBody = Type.Object({
  name: ResourceName(),
  flavor: Type.Optional(Text(64, { description: 'Default: lb1-1-2' })),
  vip_network_id: Type.Optional(Uuid({ description: "Default: the provider's public network" })),
  vip_subnet_id: Type.Optional(Uuid({ description: 'With vip_network_id: which of its subnets' })),
  vip_port_id: Type.Optional(Uuid({ description: 'A free reserved fixed IP to use as the VIP' })),
  vip_ip_family: Type.Optional(StringEnum(IP_FAMILIES)),
  floating_ip: Type.Optional(FloatingIpInput),
  listeners: Type.Optional(Type.Array(NestedListener, { maxItems: 51 })),
  logging: Type.Optional(Logging),
  preferred_connectivity: Type.Optional(StringEnum(CONNECTIVITY, { default: 'L2' })),
  tags: Type.Optional(TagsInput),
});

/** v1: at once. */
export const LoadBalancerUpdateBody = Type.Object({
  name: Type.Optional(ResourceName()),
  logging: Type.Optional(Logging),
  preferred_connectivity: Type.Optional(StringEnum(CONNECTIVITY)),
  tags: Type.Optional(TagsPatch),
});
/** v2: through a task, and it can switch the balancer off and on. */
export const LoadBalancerUpdateV2Body = Type.Object({ ...LoadBalancerUpdateBody.properties, admin_state_up: Type.Optional(Type.Boolean()) });

export const CheckLimitsBody = Type.Object({
  floating_ip: Type.Optional(Type.Object({ source: StringEnum(['existing', 'new']), existing_floating_id: Type.Optional(Uuid()) })),
  logging: Type.Optional(Logging),
  vip_ip_family: Type.Optional(StringEnum(IP_FAMILIES)),
  vip_network_id: Type.Optional(Uuid()),
  vip_port_id: Type.Optional(Uuid()),
});
const QuotaFields = ['external_ip_count', 'floating_count', 'laas_topic_count', 'loadbalancer_count'].flatMap((q) =>
  ['limit', 'requested', 'usage'].map((f) => [`${q}_${f}`, Type.Optional(Type.Integer())]),
);
export const LbQuotaSchema = Type.Object(Object.fromEntries(QuotaFields), { description: 'The quotas a balancer would exceed; empty when it fits' });

export const FailoverBody = Type.Object({ force: Type.Boolean({ default: false, description: 'Fail over even while the balancer is busy' }) });
export const ResizeBody = Type.Object({ flavor: Text(64) });

const ORDER = ['created_at', 'flavor', 'name', 'operating_status', 'provisioning_status', 'updated_at', 'vip_address', 'vip_ip_family'].flatMap((f) => [
  `${f}.asc`,
  `${f}.desc`,
]);
export const LoadBalancerListQuery = Type.Object({
  ...pageQuery(),
  name: Type.Optional(Text()),
  assigned_floating: Type.Optional(Type.Boolean()),
  logging_enabled: Type.Optional(Type.Boolean()),
  operating_status: Type.Optional(Operating),
  provisioning_status: Type.Optional(Provisioning),
  order_by: Type.Optional(StringEnum(ORDER)),
  show_stats: Type.Optional(Type.Boolean({ default: false })),
  with_ddos: Type.Optional(Type.Boolean({ default: false })),
  tag_key: Type.Optional(Type.Array(Text(255, { minLength: 1 }), { maxItems: LIMITS.tags })),
  tag_key_value: Type.Optional(Text(4096)),
});
export const LoadBalancerGetQuery = Type.Object({
  show_stats: Type.Optional(Type.Boolean({ default: false })),
  with_ddos: Type.Optional(Type.Boolean({ default: false })),
});

export const LbFlavorSchema = Type.Object({ flavor_id: Type.String(), flavor_name: Type.String(), vcpus: Type.Integer(), ram: Type.Integer() });
export const LbFlavorPriced = Type.Object({
  ...LbFlavorSchema.properties,
  currency_code: Nullable(Type.String()),
  price_per_hour: Nullable(Type.Number()),
  price_per_month: Nullable(Type.Number()),
  price_status: Nullable(StringEnum(['error', 'hide', 'show'])),
});
export const LbFlavorQuery = Type.Object({ ...pageQuery(), include_prices: Type.Optional(Type.Boolean({ default: false })) });

export const LoadBalancerSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    flavor: Nullable(LbFlavorSchema),
    vip_address: Nullable(Type.String()),
    vip_port_id: Nullable(Type.String({ format: 'uuid' })),
    vip_ip_family: Nullable(StringEnum(IP_FAMILIES)),
    additional_vips: Type.Array(Type.Object({ ip_address: Type.String(), subnet_id: Type.String({ format: 'uuid' }) })),
    floating_ips: Type.Array(FloatingIpSchema),
    listeners: Type.Array(Type.Object({ id: Type.String({ format: 'uuid' }) })),
    admin_state_up: Type.Boolean(),
    provisioning_status: Provisioning,
    operating_status: Operating,
    preferred_connectivity: StringEnum(CONNECTIVITY),
    logging: Nullable(
      Type.Object({
        enabled: Type.Boolean(),
        destination_region_id: Nullable(Type.Integer()),
        topic_name: Nullable(Type.String()),
        retention_policy: Nullable(Type.Object({ period: Nullable(Type.Integer()) })),
      }),
    ),
    stats: Nullable(StatsSchema),
    ddos_profile: Type.Null(),
    tags_v2: Type.Array(TagSchema),
    ...placedRecordFields,
  },
  { description: 'A load balancer: a virtual IP address, its listeners and their pools' },
);

const StatusIds = { id: Type.String({ format: 'uuid' }), provisioning_status: Provisioning, operating_status: Operating };
const MemberStatus = Type.Object({ ...StatusIds, address: Type.String(), protocol_port: Type.Integer() });
const MonitorStatus = Type.Object({ ...StatusIds, type: StringEnum(MONITOR_TYPES) });
const PoolStatus = Type.Object({ ...StatusIds, name: Type.String(), members: Type.Array(MemberStatus), health_monitor: Nullable(MonitorStatus) });
const ListenerStatus = Type.Object({ ...StatusIds, name: Type.String(), pools: Type.Array(PoolStatus) });
export const LoadBalancerStatusSchema = Type.Object(
  { ...StatusIds, name: Type.String(), listeners: Type.Array(ListenerStatus), tags: Type.Array(TagSchema) },
  { description: 'The statuses of a balancer and of everything in it' },
);

export const LbMetricsBody = Type.Object({
  time_interval: Type.Integer({ minimum: 1, maximum: 60, description: 'How far back, in time_unit (at most 30 days or 60 hours)' }),
  time_unit: StringEnum(['day', 'hour']),
});
const N = () => Nullable(Type.Number());
export const LbMetricPoint = Type.Object({
  time: Type.String(),
  cpu_util: N(),
  memory_util: N(),
  network_Bps_egress: N(),
  network_Bps_ingress: N(),
  network_pps_egress: N(),
  network_pps_ingress: N(),
});
