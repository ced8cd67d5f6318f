// Schemas of ports as the port calls show them: every port of the project in a region, whatever holds it
// (an instance, a load balancer's VIP, a reserved fixed IP).
import { Type } from 'typebox';
import { StringEnum } from '../../platform/schema.js';
import { IpAddress, LIMITS, pageQuery, Uuid } from '../common/schemas.js';

export const PortSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    network_id: Type.String({ format: 'uuid' }),
    mac_address: Type.String(),
    ip_assignments: Type.Array(Type.Object({ ip_address: Type.String(), subnet_id: Type.String({ format: 'uuid' }) })),
    allowed_address_pairs: Type.Array(Type.Object({ ip_address: Type.String() })),
    port_security_enabled: Type.Boolean(),
    security_group_ids: Type.Array(Type.String({ format: 'uuid' })),
    managed_by: StringEnum(['system', 'user'], { description: 'system: made for a load balancer or router; user: made for an instance or reserved' }),
    capabilities: Type.Object({ allowed_address_pairs: Type.Boolean(), port_security: Type.Boolean(), security_groups: Type.Boolean() }),
    tags: Type.Record(Type.String(), Type.String()),
    system_tags: Type.Record(Type.String(), Type.String()),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { description: 'A port: an address on a network and what may pass it' },
);

export const PortListQuery = Type.Object({
  ...pageQuery(100),
  ids: Type.Optional(Type.Array(Uuid(), { maxItems: LIMITS.items })),
  ip_addresses: Type.Optional(Type.Array(IpAddress(), { maxItems: LIMITS.items })),
  network_ids: Type.Optional(Type.Array(Uuid(), { maxItems: LIMITS.items })),
  subnet_ids: Type.Optional(Type.Array(Uuid(), { maxItems: LIMITS.items })),
  order_by: Type.Optional(StringEnum(['created_at.asc', 'created_at.desc', 'network_id.asc', 'network_id.desc'])),
});
