import { Type } from 'typebox';
import { Nullable, IntegerEnum } from '../../../platform/schema.js';
import { TagsInput, regionalRecordFields } from '../../common/schemas.js';

/** Subnet names as the reference constrains them: 3 to 63 characters, letters, digits, space . _ - */
const SubnetName = Type.String({ pattern: '^[a-zA-Z0-9][a-zA-Z 0-9._\\-]{1,61}[a-zA-Z0-9._]$' });

const HostRoute = Type.Object({ destination: Type.String(), nexthop: Type.String() }, { additionalProperties: false });

export const SubnetSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    network_id: Type.String({ format: 'uuid' }),
    cidr: Type.String(),
    ip_version: IntegerEnum([4, 6]),
    enable_dhcp: Type.Boolean(),
    gateway_ip: Nullable(Type.String()),
    dns_nameservers: Nullable(Type.Array(Type.String())),
    host_routes: Nullable(Type.Array(HostRoute)),
    has_router: Type.Boolean(),
    total_ips: Nullable(Type.Integer()),
    available_ips: Nullable(Type.Integer()),
    ...regionalRecordFields,
    updated_at: Type.String({ format: 'date-time' }),
  },
  { description: 'A subnet of a network' },
);

export const SubnetCreateBody = Type.Object(
  {
    name: SubnetName,
    network_id: Type.String({ format: 'uuid' }),
    cidr: Type.String({ description: 'IPv4 network in CIDR form, /8 to /30' }),
    ip_version: IntegerEnum([4, 6], { default: 4 }),
    enable_dhcp: Type.Boolean({ default: true }),
    gateway_ip: Type.Optional(Nullable(Type.String({ format: 'ipv4' }))),
    dns_nameservers: Type.Optional(Nullable(Type.Array(Type.String({ format: 'ipv4' })))),
    host_routes: Type.Optional(Nullable(Type.Array(HostRoute))),
    connect_to_network_router: Type.Boolean({ default: true }),
    router_id_to_connect: Type.Optional(Nullable(Type.String({ format: 'uuid' }))),
    tags: Type.Optional(TagsInput),
  },
  { additionalProperties: false },
);

export const SubnetUpdateBody = Type.Object(
  {
    name: Type.Optional(Nullable(SubnetName)),
    enable_dhcp: Type.Optional(Type.Boolean()),
    gateway_ip: Type.Optional(Nullable(Type.String({ format: 'ipv4' }))),
    dns_nameservers: Type.Optional(Nullable(Type.Array(Type.String({ format: 'ipv4' })))),
    host_routes: Type.Optional(Nullable(Type.Array(HostRoute))),
    tags: Type.Optional(Nullable(TagsInput)),
  },
  { additionalProperties: false },
);

export const SubnetListQuery = Type.Object({
  limit: Type.Integer({ minimum: 0, maximum: 1000, default: 1000 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  network_id: Type.Optional(Type.String({ format: 'uuid' })),
});
