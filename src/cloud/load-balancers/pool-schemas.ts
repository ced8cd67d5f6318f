// Schemas of load balancer pools, their members and health monitors: inputs (alone or inside a
// balancer's or listener's create) and the records as the API shows them. Fields with a default are
// optional and defaulted in code too: inside a nullable object the validator does not fill them in.
import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { IpAddress, LIMITS, pageQuery, ResourceName, Text, Uuid } from '../common/schemas.js';
import { HTTP_METHODS, LB_ALGORITHMS, MONITOR_TYPES, OPERATING_STATUSES, PERSISTENCE_TYPES, POOL_PROTOCOLS, PROVISIONING_STATUSES } from './enums.js';

const Provisioning = StringEnum(PROVISIONING_STATUSES);
const Operating = StringEnum(OPERATING_STATUSES);
const Timeout = Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 86_400_000, description: 'Milliseconds' })));
const Port = (options = {}) => Type.Integer({ minimum: 1, maximum: 65535, ...options });

const monitorFields = {
  delay: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Seconds between probes' }),
  timeout: Type.Integer({ minimum: 0, maximum: 2_147_483, description: 'Seconds a probe may take; less than delay' }),
  max_retries: Type.Integer({ minimum: 1, maximum: 10 }),
  max_retries_down: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 3 })),
  admin_state_up: Type.Optional(Type.Boolean({ default: true })),
  domain_name: Type.Optional(Nullable(Type.String({ pattern: '^[A-Za-z0-9._-]{1,253}$', maxLength: 253 }))),
  expected_codes: Type.Optional(Nullable(Text(255, { description: 'e.g. 200,202,300-302 (HTTP and HTTPS monitors)' }))),
  http_method: Type.Optional(Nullable(StringEnum(HTTP_METHODS))),
  http_version: Type.Optional(Nullable(StringEnum(['1.0', '1.1']))),
  url_path: Type.Optional(Nullable(Type.String({ pattern: '^/([^/?#%][^?#%]*)?$', maxLength: 2048 }))),
};
export const MonitorInput = Type.Object({ type: StringEnum(MONITOR_TYPES), ...monitorFields });
/** A pool update replaces its monitor; the type may be left out to keep the current one. */
export const MonitorPatchInput = Type.Object({ type: Type.Optional(Nullable(StringEnum(MONITOR_TYPES))), ...monitorFields });

export const MemberInput = Type.Object({
  address: IpAddress({ description: "The member's IP address" }),
  protocol_port: Port(),
  instance_id: Type.Optional(Nullable(Uuid({ description: 'The instance that has `address`' }))),
  subnet_id: Type.Optional(Nullable(Uuid({ description: 'The subnet `address` is on' }))),
  weight: Type.Optional(Type.Integer({ minimum: 1, maximum: 256, default: 1 })),
  admin_state_up: Type.Optional(Type.Boolean({ default: true })),
  backup: Type.Optional(Type.Boolean({ default: false })),
  monitor_address: Type.Optional(Nullable(IpAddress())),
  monitor_port: Type.Optional(Nullable(Port())),
});

export const PersistenceInput = Type.Object({
  type: StringEnum(PERSISTENCE_TYPES),
  cookie_name: Type.Optional(Nullable(ResourceName({ description: 'APP_COOKIE only' }))),
  persistence_granularity: Type.Optional(Nullable(Text(49, { description: 'A netmask, for UDP pools with SOURCE_IP' }))),
  persistence_timeout: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 86_400, description: 'Seconds, for UDP pools with SOURCE_IP' }))),
});

const secretFields = {
  secret_id: Type.Optional(Nullable(Uuid({ description: 'TLS client certificate towards HTTPS members' }))),
  ca_secret_id: Type.Optional(Nullable(Uuid())),
  crl_secret_id: Type.Optional(Nullable(Uuid())),
};

/** The fields of a new pool, wherever it is created. */
export const poolInputFields = {
  name: ResourceName(),
  protocol: StringEnum(POOL_PROTOCOLS),
  lb_algorithm: StringEnum(LB_ALGORITHMS),
  healthmonitor: Type.Optional(Nullable(MonitorInput)),
  members: Type.Optional(Type.Array(MemberInput, { maxItems: LIMITS.items })),
  session_persistence: Type.Optional(Nullable(PersistenceInput)),
  timeout_client_data: Timeout,
  timeout_member_connect: Timeout,
  timeout_member_data: Timeout,
  ...secretFields,
};

export const PoolCreateBody = Type.Object({
  load_balancer_id: Type.Optional(Nullable(Uuid())),
  listener_id: Type.Optional(Nullable(Uuid({ description: "The pool becomes this listener's default pool" }))),
  ...poolInputFields,
});

/** A pool update (v1 and v2 alike, a task): `members` replaces every member, `healthmonitor` the monitor. */
export const PoolPatchBody = Type.Object({
  name: Type.Optional(ResourceName()),
  protocol: Type.Optional(StringEnum(POOL_PROTOCOLS)),
  lb_algorithm: Type.Optional(StringEnum(LB_ALGORITHMS)),
  admin_state_up: Type.Optional(Type.Boolean()),
  healthmonitor: Type.Optional(Nullable(MonitorPatchInput)),
  members: Type.Optional(Nullable(Type.Array(MemberInput, { maxItems: LIMITS.items }))),
  session_persistence: Type.Optional(Nullable(PersistenceInput)),
  timeout_client_data: Timeout,
  timeout_member_connect: Timeout,
  timeout_member_data: Timeout,
  ...secretFields,
});

export const PoolListQuery = Type.Object({
  ...pageQuery(),
  details: Type.Optional(Type.Boolean({ default: false, description: 'Members in full rather than their IDs' })),
  listener_id: Type.Optional(Uuid()),
  load_balancer_id: Type.Optional(Uuid()),
  name: Type.Optional(Text()),
});

export const MonitorSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  type: StringEnum(MONITOR_TYPES),
  delay: Type.Integer(),
  timeout: Type.Integer(),
  max_retries: Type.Integer(),
  max_retries_down: Type.Integer(),
  admin_state_up: Type.Boolean(),
  domain_name: Nullable(Type.String()),
  expected_codes: Nullable(Type.String()),
  http_method: Nullable(StringEnum(HTTP_METHODS)),
  http_version: Nullable(StringEnum(['1.0', '1.1'])),
  url_path: Nullable(Type.String()),
  provisioning_status: Provisioning,
  operating_status: Operating,
});

export const MemberSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  address: Type.String(),
  protocol_port: Type.Integer(),
  subnet_id: Nullable(Type.String({ format: 'uuid' })),
  weight: Type.Integer(),
  admin_state_up: Type.Boolean(),
  backup: Type.Boolean(),
  monitor_address: Nullable(Type.String()),
  monitor_port: Nullable(Type.Integer()),
  provisioning_status: Provisioning,
  operating_status: Operating,
});

const IdRef = Type.Object({ id: Type.String({ format: 'uuid' }) });
const poolFields = {
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  protocol: StringEnum(POOL_PROTOCOLS),
  lb_algorithm: StringEnum(LB_ALGORITHMS),
  admin_state_up: Type.Boolean(),
  listeners: Type.Array(IdRef),
  loadbalancers: Type.Array(IdRef),
  healthmonitor: Nullable(MonitorSchema),
  session_persistence: Nullable(
    Type.Object({
      type: StringEnum(PERSISTENCE_TYPES),
      cookie_name: Nullable(Type.String()),
      persistence_granularity: Nullable(Type.String()),
      persistence_timeout: Nullable(Type.Integer()),
    }),
  ),
  timeout_client_data: Nullable(Type.Integer()),
  timeout_member_connect: Nullable(Type.Integer()),
  timeout_member_data: Nullable(Type.Integer()),
  secret_id: Nullable(Type.String()),
  ca_secret_id: Nullable(Type.String()),
  crl_secret_id: Nullable(Type.String()),
  provisioning_status: Provisioning,
  operating_status: Operating,
  creator_task_id: Nullable(Type.String()),
  task_id: Nullable(Type.String()),
};

export const PoolSchema = Type.Object({ ...poolFields, members: Type.Array(MemberSchema) }, { description: 'A pool of members a listener sends traffic to' });
/** Listed pools show their members' IDs only, unless `details` asks for more. */
export const PoolListItem = Type.Object({ ...poolFields, members: Type.Array(Type.Union([MemberSchema, IdRef])) }, { description: 'A pool of members' });
