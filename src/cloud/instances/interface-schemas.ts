import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { IpAddress, LIMITS, Text, Uuid } from '../common/schemas.js';

const common = {
  interface_name: Type.Optional(Nullable(Type.String({ maxLength: 37 }))),
  security_groups: Type.Optional(Type.Array(Type.Object({ id: Uuid() }), { maxItems: LIMITS.items, description: "Default: the project's default group" })),
  port_group: Type.Optional(Type.Integer({ minimum: 0, maximum: 3, default: 0 })),
  ddos_profile: Type.Optional(
    Type.Object({
      profile_template: Type.Integer(),
      profile_template_name: Type.Optional(Nullable(Text())),
      fields: Type.Optional(
        Type.Array(Type.Object({ base_field: Type.Integer(), field_value: Type.Optional(Type.Unknown()), value: Type.Optional(Nullable(Text(500))) }), {
          maxItems: LIMITS.items,
        }),
      ),
    }),
  ),
};
const IpFamily = Type.Optional(Nullable(StringEnum(['dual', 'ipv4', 'ipv6'])));

export const AttachInterfaceBody = Type.Union([
  Type.Object({ type: Type.Optional(StringEnum(['external'], { description: 'Default: external' })), ip_family: IpFamily, ...common }),
  Type.Object({ type: StringEnum(['subnet']), subnet_id: Uuid(), ...common }),
  Type.Object({ type: StringEnum(['any_subnet']), network_id: Uuid(), ip_family: IpFamily, ...common }),
  Type.Object({ type: StringEnum(['reserved_fixed_ip']), port_id: Uuid(), ...common }),
]);

export const DetachInterfaceBody = Type.Object({ ip_address: IpAddress(), port_id: Uuid() });

export const PortParams = Type.Object({ project_id: Type.Integer({ minimum: 1 }), region_id: Type.Integer({ minimum: 1 }), port_id: Uuid() });
