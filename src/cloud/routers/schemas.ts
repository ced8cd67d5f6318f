// Schemas of routers: what a create and the updates accept, and the router as the API shows it (its
// subnet interfaces, external gateway and routes).
import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { IpAddress, IpNetwork, LIMITS, pageQuery, placedRecordFields, ResourceName, Text, Uuid } from '../common/schemas.js';

/** Routes of one router (the reference states no bound). */
export const MAX_ROUTES = 100;

const Route = Type.Object({
  destination: IpNetwork({ description: 'IPv4 or IPv6 network in CIDR form' }),
  nexthop: IpAddress({ description: 'An address on a subnet the router is attached to' }),
});
/** `default`: the region's public network; `manual`: the network named (the public network is the only external one). */
const Gateway = Type.Object({
  type: Type.Optional(StringEnum(['default', 'manual'], { description: 'Default: manual when network_id is given, else default' })),
  network_id: Type.Optional(Uuid()),
  enable_snat: Type.Optional(Type.Boolean({ description: 'Default true' })),
});

export const RouterCreateBody = Type.Object({
  name: ResourceName(),
  external_gateway_info: Type.Optional(Nullable(Gateway)),
  interfaces: Type.Optional(Nullable(Type.Array(Type.Object({ subnet_id: Uuid(), type: Type.Optional(StringEnum(['subnet'])) }), { maxItems: LIMITS.items }))),
  routes: Type.Optional(Nullable(Type.Array(Route, { maxItems: MAX_ROUTES }))),
});

/** Fields left out stay; `external_gateway_info: null` removes the gateway, `routes` replaces every route. */
export const RouterUpdateBody = Type.Object({
  name: Type.Optional(Nullable(ResourceName())),
  external_gateway_info: Type.Optional(Nullable(Gateway)),
  routes: Type.Optional(Nullable(Type.Array(Route, { maxItems: MAX_ROUTES }))),
});

export const AttachBody = Type.Object({ subnet_id: Uuid(), ip_address: Type.Optional(IpAddress({ description: "Default: the subnet's gateway address" })) });
export const DetachBody = Type.Object({ subnet_id: Uuid() });
export const RouterListQuery = Type.Object({ ...pageQuery(), name: Type.Optional(Text()) });

const Assignment = Type.Object({ ip_address: Type.String(), subnet_id: Type.String({ format: 'uuid' }) });
export const RouterSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    status: Type.String({ description: 'BUILD while its create task runs, then ACTIVE' }),
    distributed: Type.Boolean(),
    interfaces: Type.Array(
      Type.Object({
        port_id: Type.String({ format: 'uuid' }),
        network_id: Type.String({ format: 'uuid' }),
        mac_address: Nullable(Type.String()),
        ip_assignments: Type.Array(Assignment),
      }),
    ),
    external_gateway_info: Nullable(
      Type.Object({ network_id: Type.String({ format: 'uuid' }), enable_snat: Type.Boolean(), external_fixed_ips: Type.Array(Assignment) }),
    ),
    routes: Type.Array(Type.Object({ destination: Type.String(), nexthop: Type.String() })),
    ...placedRecordFields,
  },
  { description: 'A router: subnets it connects, routes, and a gateway to the public network' },
);
