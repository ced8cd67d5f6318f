import { Type } from 'typebox';
import { IntegerEnum, Nullable, StringEnum } from '../../../platform/schema.js';
import { IpAddress, IpNetwork, LIMITS, pageQuery, TagsInput, TagsPatch, Text, Uuid, regionalRecordFields } from '../../common/schemas.js';

/** Subnet names as the reference constrains them: 3 to 63 characters, letters, digits, space . _ - */
const SubnetName = Type.String({ pattern: '^[a-zA-Z0-9][a-zA-Z 0-9._\\-]{1,61}[a-zA-Z0-9._]$', maxLength: 63 });

const HostRoute = Type.Object({ destination: Type.String(), nexthop: Nullable(Type.String()) });
const HostRouteInput = Type.Object({
  destination: IpNetwork({ description: 'IPv4 network in CIDR form' }),
  nexthop: Nullable(IpAddress({ description: 'IPv4 address' })),
});
/** DNS servers and host routes of one subnet (the reference states no bound). */
const MAX_SUBNET_ENTRIES = 20;

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

const Ipv4 = Type.String({ format: 'ipv4', maxLength: 15 });
const DnsServers = Type.Optional(Nullable(Type.Array(Ipv4, { maxItems: MAX_SUBNET_ENTRIES })));
const HostRoutes = Type.Optional(Nullable(Type.Array(HostRouteInput, { maxItems: MAX_SUBNET_ENTRIES })));

export const SubnetCreateBody = Type.Object({
  name: SubnetName,
  network_id: Uuid(),
  cidr: IpNetwork({ description: 'IPv4 network in CIDR form, /8 to /30' }),
  ip_version: IntegerEnum([4, 6], { default: 4 }),
  enable_dhcp: Type.Boolean({ default: true }),
  gateway_ip: Type.Optional(Nullable(Ipv4)),
  dns_nameservers: DnsServers,
  host_routes: HostRoutes,
  connect_to_network_router: Type.Boolean({ default: true }),
  router_id_to_connect: Type.Optional(Nullable(Uuid())),
  tags: Type.Optional(TagsInput),
});

export const SubnetUpdateBody = Type.Object({
  name: Type.Optional(Nullable(SubnetName)),
  enable_dhcp: Type.Optional(Type.Boolean()),
  gateway_ip: Type.Optional(Nullable(Ipv4)),
  dns_nameservers: DnsServers,
  host_routes: HostRoutes,
  tags: Type.Optional(TagsPatch),
});

export const SubnetListQuery = Type.Object({
  ...pageQuery(),
  network_id: Type.Optional(Uuid()),
  order_by: Type.Optional(
    StringEnum([
      'available_ips.asc',
      'available_ips.desc',
      'cidr.asc',
      'cidr.desc',
      'created_at.asc',
      'created_at.desc',
      'name.asc',
      'name.desc',
      'total_ips.asc',
      'total_ips.desc',
      'updated_at.asc',
      'updated_at.desc',
    ]),
  ),
  owned_by: Type.Optional(StringEnum(['any', 'project'])),
  tag_key: Type.Optional(Type.Array(Text(255, { minLength: 1 }), { maxItems: LIMITS.tags })),
  tag_key_value: Type.Optional(Text(4096)),
});
