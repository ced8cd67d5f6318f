import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { IpAddress, LIMITS, pageQuery, ResourceName, TagsInput, TagsPatch, Text, Uuid, regionalRecordFields } from '../common/schemas.js';
import { AttachmentTag, MAX_VOLUME_SIZE, RETYPE_TYPES, VOLUME_TYPES } from '../volumes/schemas.js';

export const InstanceSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    instance_description: Nullable(Type.String()),
    status: Type.String({ description: 'BUILD while being created, ACTIVE, SHUTOFF, SUSPENDED, REBOOT, RESIZE, DELETED...' }),
    vm_state: Type.String(),
    task_state: Nullable(Type.String()),
    flavor: Type.Object({
      flavor_id: Type.String(),
      flavor_name: Type.String(),
      vcpus: Type.Integer(),
      ram: Type.Integer(),
      architecture: Type.String(),
      os_type: Type.String(),
      hardware_description: Type.Object({ ram: Type.String(), vcpus: Type.String() }),
    }),
    addresses: Type.Record(
      Type.String(),
      Type.Array(
        Type.Object({
          addr: Type.String(),
          type: Type.String(),
          interface_name: Nullable(Type.String()),
          subnet_id: Type.String(),
          subnet_name: Type.String(),
        }),
      ),
    ),
    volumes: Type.Array(Type.Object({ id: Type.String(), delete_on_termination: Type.Boolean() })),
    security_groups: Type.Array(Type.Object({ name: Type.String() })),
    fixed_ip_assignments: Nullable(Type.Array(Type.Object({ external: Type.Boolean(), ip_address: Type.String(), subnet_id: Type.String() }))),
    blackhole_ports: Type.Array(Type.Object({})),
    ddos_profile: Type.Null(),
    instance_isolation: Type.Null(),
    ssh_key_name: Nullable(Type.String()),
    ...regionalRecordFields,
  },
  { description: 'A virtual machine' },
);

const SecurityGroups = Type.Optional(Type.Array(Type.Object({ id: Uuid() }), { maxItems: LIMITS.items }));
const volumeCommon = {
  attachment_tag: Type.Optional(AttachmentTag),
  delete_on_termination: Type.Optional(Type.Boolean({ default: false })),
  tags: Type.Optional(TagsInput),
};
const Size = Type.Integer({ minimum: 1, maximum: MAX_VOLUME_SIZE });
const NewVolume = Type.Object({
  source: StringEnum(['new-volume']),
  size: Size,
  type_name: Type.Optional(StringEnum(VOLUME_TYPES)),
  name: Type.Optional(ResourceName()),
  ...volumeCommon,
});
const ImageVolume = Type.Object({
  source: StringEnum(['image']),
  image_id: Uuid(),
  size: Type.Optional(Size),
  boot_index: Type.Optional(Type.Integer({ minimum: -1, maximum: 100 })),
  type_name: Type.Optional(StringEnum(VOLUME_TYPES)),
  name: Type.Optional(ResourceName()),
  ...volumeCommon,
});
const SnapshotVolume = Type.Object({
  source: StringEnum(['snapshot']),
  snapshot_id: Uuid(),
  size: Size,
  boot_index: Type.Optional(Type.Integer({ minimum: -1, maximum: 100 })),
  type_name: Type.Optional(StringEnum(RETYPE_TYPES)),
  name: Type.Optional(ResourceName()),
  ...volumeCommon,
});
const AppTemplateVolume = Type.Object({
  source: StringEnum(['apptemplate']),
  apptemplate_id: Text(),
  size: Type.Optional(Size),
  boot_index: Type.Optional(Type.Integer({ minimum: -1, maximum: 100 })),
  type_name: Type.Optional(StringEnum(VOLUME_TYPES)),
  name: Type.Optional(ResourceName()),
  ...volumeCommon,
});
const ExistingVolume = Type.Object({
  source: StringEnum(['existing-volume']),
  volume_id: Uuid(),
  boot_index: Type.Optional(Type.Integer({ minimum: -1, maximum: 100 })),
  ...volumeCommon,
});
export const InstanceVolume = Type.Union([NewVolume, ImageVolume, SnapshotVolume, AppTemplateVolume, ExistingVolume]);

const FloatingInput = Type.Optional(
  Type.Union([Type.Object({ source: StringEnum(['new']) }), Type.Object({ source: StringEnum(['existing']), existing_floating_id: Uuid() })]),
);
const InterfaceName = Type.Optional(Nullable(Type.String({ maxLength: 37 })));
const IpFamily = Type.Optional(Nullable(StringEnum(['dual', 'ipv4', 'ipv6'])));
const External = Type.Object({ type: StringEnum(['external']), interface_name: InterfaceName, ip_family: IpFamily, security_groups: SecurityGroups });
const SubnetIf = Type.Object({
  type: StringEnum(['subnet']),
  network_id: Uuid(),
  subnet_id: Uuid(),
  interface_name: InterfaceName,
  floating_ip: FloatingInput,
  security_groups: SecurityGroups,
});
const AnySubnetIf = Type.Object({
  type: StringEnum(['any_subnet']),
  network_id: Uuid(),
  ip_address: Type.Optional(IpAddress()),
  ip_family: IpFamily,
  interface_name: InterfaceName,
  floating_ip: FloatingInput,
  security_groups: SecurityGroups,
});
const ReservedIf = Type.Object({
  type: StringEnum(['reserved_fixed_ip']),
  port_id: Text(36),
  interface_name: InterfaceName,
  floating_ip: FloatingInput,
  security_groups: SecurityGroups,
});
export const NewInterface = Type.Union([External, SubnetIf, AnySubnetIf, ReservedIf]);

export const InstanceCreateBody = Type.Object({
  flavor: Text(),
  name: Type.Optional(ResourceName()),
  name_template: Type.Optional(
    Type.String({
      maxLength: 63,
      pattern: '^[a-zA-Z0-9{][a-zA-Z 0-9._\\-}{]{1,61}[a-zA-Z0-9._}]$',
      description: 'A name with {ip_octets}, {two_ip_octets} or {one_ip_octet} from its first address',
    }),
  ),
  volumes: Type.Array(InstanceVolume, { minItems: 1, maxItems: LIMITS.items }),
  interfaces: Type.Array(NewInterface, { minItems: 1, maxItems: LIMITS.items }),
  ssh_key_name: Type.Optional(Nullable(Text())),
  password: Type.Optional(Text()),
  username: Type.Optional(Text()),
  user_data: Type.Optional(Text(LIMITS.userData, { description: 'Base64 cloud-init user data' })),
  security_groups: SecurityGroups,
  servergroup_id: Type.Optional(Uuid()),
  allow_app_ports: Type.Optional(Type.Boolean()),
  configuration: Type.Optional(Nullable(Type.Unsafe<Record<string, unknown>>({ type: 'object', maxProperties: LIMITS.items }))),
  tags: Type.Optional(TagsInput),
});

export const InstanceUpdateBody = Type.Object({ name: Type.Optional(ResourceName()), tags: Type.Optional(TagsPatch) });

export const InstanceActionBody = Type.Object({
  action: StringEnum(['start', 'stop', 'reboot', 'reboot_hard', 'suspend', 'resume']),
  activate_profile: Type.Optional(Nullable(Type.Boolean())),
});

export const ResizeBody = Type.Object({ flavor_id: Text() });

export const InstanceListQuery = Type.Object({
  ...pageQuery(),
  name: Type.Optional(Text(LIMITS.text, { description: 'Part of the name' })),
  uuid: Type.Optional(Text(36, { description: 'Part of the ID' })),
  ip: Type.Optional(Text(45, { description: 'Part of an address' })),
  status: Type.Optional(
    StringEnum([
      'ACTIVE',
      'BUILD',
      'ERROR',
      'HARD_REBOOT',
      'MIGRATING',
      'PAUSED',
      'REBOOT',
      'REBUILD',
      'RESIZE',
      'REVERT_RESIZE',
      'SHELVED',
      'SHELVED_OFFLOADED',
      'SHUTOFF',
      'SOFT_DELETED',
      'SUSPENDED',
      'VERIFY_RESIZE',
    ]),
  ),
  flavor_id: Type.Optional(Text()),
  flavor_prefix: Type.Optional(Text()),
  exclude_flavor_prefix: Type.Optional(Text()),
  exclude_secgroup: Type.Optional(Text(LIMITS.text, { description: 'Instances with no port in the security group of this name' })),
  available_floating: Type.Optional(Type.Boolean({ description: 'Instances with a port a floating IP can be assigned to' })),
  include_k8s: Type.Optional(Type.Boolean({ default: true })),
  order_by: Type.Optional(StringEnum(['created.asc', 'created.desc', 'name.asc', 'name.desc', 'status.asc', 'status.desc'])),
  tag_key_value: Type.Optional(Text(4096)),
  tag_value: Type.Optional(Type.Array(Text(255, { minLength: 1 }), { maxItems: LIMITS.tags })),
});

export const InstanceDeleteQuery = Type.Object({
  volumes: Type.Optional(Text(LIMITS.idList, { description: 'Comma-separated IDs of attached volumes to delete with it' })),
  delete_floatings: Type.Optional(Type.Boolean({ description: 'Delete its floating IPs too (default: unassign them)' })),
  floatings: Type.Optional(Text(LIMITS.idList, { description: 'Comma-separated IDs of its floating IPs to delete with it' })),
  reserved_fixed_ips: Type.Optional(Text(LIMITS.idList, { description: 'Comma-separated port IDs of reserved fixed IPs to delete with it' })),
});

export const ConsoleQuery = Type.Object({ console_type: Type.Optional(Text(32, { description: 'novnc (default), xvpvnc, spice-html5, serial' })) });
export const ConsoleSchema = Type.Object({
  remote_console: Type.Object({ protocol: Type.String(), type: Type.String(), url: Type.String({ format: 'uri' }) }),
});

export const FlavorSchema = Type.Object({
  flavor_id: Type.String(),
  flavor_name: Type.String(),
  vcpus: Type.Integer(),
  ram: Type.Integer(),
  architecture: Type.String(),
  os_type: Type.String(),
  disabled: Type.Boolean(),
  hardware_description: Type.Object({ ram: Type.String(), vcpus: Type.String() }),
});

export const SecurityGroupNamesBody = Type.Object({
  name: Type.Optional(ResourceName({ description: 'A group for every port of the instance' })),
  ports_security_group_names: Type.Optional(
    Type.Array(Type.Object({ port_id: Nullable(Uuid()), security_group_names: Type.Array(ResourceName(), { maxItems: LIMITS.items }) }), {
      maxItems: LIMITS.items,
    }),
  ),
});

export const InstanceGroupsSchema = Type.Object({
  count: Type.Integer({ minimum: 0 }),
  results: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
});
