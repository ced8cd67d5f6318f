// Schemas of load balancer listeners: what a create (alone or inside a balancer's create) and the
// updates accept, and the listener as the API shows it.
import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { IpNetwork, pageQuery, ResourceName, Text, Uuid } from '../common/schemas.js';
import { LISTENER_PROTOCOLS, OPERATING_STATUSES, PROVISIONING_STATUSES } from './enums.js';

const Timeout = Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 86_400_000, description: 'Milliseconds' })));
const UserList = Type.Array(
  Type.Object({
    username: Type.String({ maxLength: 32, pattern: '^[a-zA-Z0-9][a-zA-Z 0-9._\\-]{1,30}[a-zA-Z0-9._]$' }),
    encrypted_password: Text(128, { description: 'A crypt(3) hash, as htpasswd writes it' }),
  }),
  { maxItems: 3 },
);
const AllowedCidrs = Nullable(Type.Array(IpNetwork(), { maxItems: 100 }));
const SecretId = Type.Union([Type.Literal(''), Uuid()]);

/** The fields of a new listener, wherever it is created. */
export const listenerInputFields = {
  name: ResourceName(),
  protocol: StringEnum(LISTENER_PROTOCOLS),
  protocol_port: Type.Integer({ minimum: 1, maximum: 65535 }),
  allowed_cidrs: Type.Optional(AllowedCidrs),
  connection_limit: Type.Optional(Type.Integer({ minimum: -1, maximum: 1_000_000, default: 100_000, description: '-1: the default, 100000' })),
  insert_x_forwarded: Type.Optional(Type.Boolean({ description: 'HTTP and TERMINATED_HTTPS only' })),
  secret_id: Type.Optional(SecretId),
  sni_secret_id: Type.Optional(Type.Array(Uuid(), { maxItems: 100 })),
  timeout_client_data: Timeout,
  timeout_member_connect: Timeout,
  timeout_member_data: Timeout,
  user_list: Type.Optional(UserList),
};

export const ListenerInput = Type.Object(listenerInputFields);

export const ListenerCreateBody = Type.Object({
  load_balancer_id: Uuid(),
  default_pool_id: Type.Optional(Uuid({ description: 'A pool of the same balancer the listener sends its traffic to' })),
  ...listenerInputFields,
});

/** v1: a rename, at once. */
export const ListenerRenameBody = Type.Object({ name: ResourceName() });

/** v2: a task; fields left out stay as they are. */
export const ListenerPatchBody = Type.Object({
  name: Type.Optional(ResourceName()),
  admin_state_up: Type.Optional(Type.Boolean()),
  allowed_cidrs: Type.Optional(AllowedCidrs),
  connection_limit: Type.Optional(Type.Integer({ minimum: -1, maximum: 1_000_000 })),
  secret_id: Type.Optional(Nullable(Uuid())),
  sni_secret_id: Type.Optional(Nullable(Type.Array(Uuid(), { maxItems: 100 }))),
  timeout_client_data: Timeout,
  timeout_member_connect: Timeout,
  timeout_member_data: Timeout,
  user_list: Type.Optional(Nullable(UserList)),
});

export const ListenerListQuery = Type.Object({
  ...pageQuery(),
  load_balancer_id: Type.Optional(Uuid()),
  name: Type.Optional(Text()),
  show_stats: Type.Optional(Type.Boolean({ default: false })),
});
export const ShowStatsQuery = Type.Object({ show_stats: Type.Optional(Type.Boolean({ default: false })) });
export const ListenerDeleteQuery = Type.Object({
  delete_default_pool: Type.Optional(Type.Boolean({ default: false, description: "Delete the listener's default pool with it" })),
});

export const StatsSchema = Type.Object({
  active_connections: Type.Integer(),
  bytes_in: Type.Integer(),
  bytes_out: Type.Integer(),
  request_errors: Type.Integer(),
  total_connections: Type.Integer(),
});

export const ListenerSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    load_balancer_id: Nullable(Type.String({ format: 'uuid' })),
    protocol: StringEnum(LISTENER_PROTOCOLS),
    protocol_port: Type.Integer(),
    admin_state_up: Type.Boolean(),
    allowed_cidrs: Nullable(Type.Array(Type.String())),
    connection_limit: Type.Integer(),
    insert_headers: Type.Record(Type.String(), Type.String()),
    pool_count: Nullable(Type.Integer()),
    secret_id: Nullable(Type.String()),
    sni_secret_id: Nullable(Type.Array(Type.String())),
    timeout_client_data: Nullable(Type.Integer()),
    timeout_member_connect: Nullable(Type.Integer()),
    timeout_member_data: Nullable(Type.Integer()),
    user_list: Type.Array(Type.Object({ username: Type.String(), encrypted_password: Type.String() })),
    stats: Nullable(StatsSchema),
    provisioning_status: StringEnum(PROVISIONING_STATUSES),
    operating_status: StringEnum(OPERATING_STATUSES),
    creator_task_id: Nullable(Type.String()),
    task_id: Nullable(Type.String()),
  },
  { description: 'A listener of a load balancer: a protocol and port it accepts traffic on' },
);
