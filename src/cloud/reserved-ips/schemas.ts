// Schemas of reserved fixed IPs: ports with an address of their own, kept when what they are attached to
// goes; a VIP one is shared by instance ports (its connected devices).
import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { IpAddress, LIMITS, pageQuery, placedRecordFields, Text, Uuid } from '../common/schemas.js';
import { NetworkSchema } from '../networks/schemas.js';
import { SubnetSchema } from '../networks/subnets/schemas.js';

export const RESERVE_TYPES = ['external', 'subnet', 'any_subnet', 'ip_address', 'port'] as const;
export type ReserveType = (typeof RESERVE_TYPES)[number];

/**
 * The five ways to reserve an address, told apart by `type`. One object rather than the reference's union,
 * so that a field a type lacks or does not take is refused by name (service.ts checks which).
 */
export const ReservedIpCreateBody = Type.Object({
  type: StringEnum(RESERVE_TYPES),
  subnet_id: Type.Optional(Uuid({ description: 'type subnet' })),
  network_id: Type.Optional(Uuid({ description: 'types any_subnet and ip_address' })),
  ip_address: Type.Optional(IpAddress({ description: 'type ip_address' })),
  port_id: Type.Optional(Uuid({ description: 'type port: an instance port that becomes reserved' })),
  ip_family: Type.Optional(Nullable(StringEnum(['dual', 'ipv4', 'ipv6']))),
  is_vip: Type.Optional(Type.Boolean({ description: 'Default false; not for type port' })),
});

export const ReservedIpPatchBody = Type.Object({ is_vip: Type.Boolean() });
export const PortIdsBody = Type.Object({ port_ids: Type.Optional(Type.Array(Uuid(), { maxItems: LIMITS.items })) });

export const ReservedIpListQuery = Type.Object({
  ...pageQuery(),
  available_only: Type.Optional(Type.Boolean({ default: false, description: 'Only those attached to nothing' })),
  device_id: Type.Optional(Text(36, { description: 'Only those attached to this instance or balancer' })),
  external_only: Type.Optional(Type.Boolean({ default: false })),
  internal_only: Type.Optional(Type.Boolean({ default: false })),
  ip_address: Type.Optional(Text(45)),
  vip_only: Type.Optional(Type.Boolean({ default: false })),
  order_by: Type.Optional(
    StringEnum([
      'created_at.asc',
      'created_at.desc',
      'fixed_ip_address.asc',
      'fixed_ip_address.desc',
      'name.asc',
      'name.desc',
      'status.asc',
      'status.desc',
      'updated_at.asc',
      'updated_at.desc',
    ]),
  ),
});

export const ReservedIpSchema = Type.Object(
  {
    port_id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    network_id: Type.String({ format: 'uuid' }),
    subnet_id: Nullable(Type.String({ format: 'uuid' })),
    subnet_v6_id: Type.Null(),
    fixed_ip_address: Nullable(Type.String()),
    fixed_ipv6_address: Type.Null(),
    is_external: Type.Boolean(),
    is_vip: Type.Boolean(),
    status: Type.String({ description: 'ACTIVE while attached, DOWN while free, BUILD while being made' }),
    attachments: Type.Array(Type.Object({ resource_id: Nullable(Type.String()), resource_type: Nullable(Type.String()) })),
    reservation: Type.Object({ resource_id: Nullable(Type.String()), resource_type: Nullable(Type.String()), status: Nullable(Type.String()) }),
    allowed_address_pairs: Type.Array(Type.Object({ ip_address: Type.String(), mac_address: Nullable(Type.String()) })),
    network: NetworkSchema,
    ...placedRecordFields,
  },
  { description: "A reserved fixed IP: a port whose address stays the project's" },
);

/** An instance port a VIP can be shared with, or is. */
export const DevicePortSchema = Type.Object({
  port_id: Type.String({ format: 'uuid' }),
  instance_id: Type.String({ format: 'uuid' }),
  instance_name: Type.String(),
  ip_assignments: Type.Array(Type.Object({ ip_address: Type.String(), subnet_id: Type.String({ format: 'uuid' }), subnet: SubnetSchema })),
  network: NetworkSchema,
});
export const DevicePortList = Type.Object({ count: Type.Integer({ minimum: 0 }), results: Type.Array(DevicePortSchema) });
