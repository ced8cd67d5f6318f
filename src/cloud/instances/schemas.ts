import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { TagsInput, regionalRecordFields } from '../common/schemas.js';

const VOLUME_TYPES = ['cold', 'ssd_hiiops', 'ssd_local', 'ssd_lowlatency', 'standard', 'ultra'] as const;

export const InstanceSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    instance_description: Nullable(Type.String()),
    status: Type.String({ description: 'BUILD while being created, ACTIVE, SHUTOFF, SUSPENDED, REBOOT, DELETED...' }),
    vm_state: Type.String(),
    task_state: Nullable(Type.String()),
    flavor: Type.Object({ flavor_id: Type.String(), flavor_name: Type.String(), vcpus: Type.Integer(), ram: Type.Integer(), architecture: Type.String(), os_type: Type.String(), hardware_description: Type.Object({ ram: Type.String(), vcpus: Type.String() }) }),
    addresses: Type.Record(Type.String(), Type.Array(Type.Object({ addr: Type.String(), type: Type.String(), interface_name: Nullable(Type.String()), subnet_id: Type.String(), subnet_name: Type.String() }))),
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

const NewVolume = Type.Object({ source: StringEnum(['new-volume']), size: Type.Integer({ minimum: 1, maximum: 16384 }), type_name: Type.Optional(StringEnum(VOLUME_TYPES)), name: Type.Optional(Type.String()), delete_on_termination: Type.Optional(Type.Boolean()), attachment_tag: Type.Optional(Type.String()), tags: Type.Optional(TagsInput) }, { additionalProperties: false });
const ImageVolume = Type.Object({ source: StringEnum(['image']), image_id: Type.String({ format: 'uuid' }), size: Type.Optional(Type.Integer({ minimum: 1, maximum: 16384 })), boot_index: Type.Optional(Type.Integer()), type_name: Type.Optional(StringEnum(VOLUME_TYPES)), name: Type.Optional(Type.String()), delete_on_termination: Type.Optional(Type.Boolean()), attachment_tag: Type.Optional(Type.String()), tags: Type.Optional(TagsInput) }, { additionalProperties: false });
const ExistingVolume = Type.Object({ source: StringEnum(['existing-volume']), volume_id: Type.String({ format: 'uuid' }), boot_index: Type.Optional(Type.Integer()), delete_on_termination: Type.Optional(Type.Boolean()), attachment_tag: Type.Optional(Type.String()), tags: Type.Optional(TagsInput) }, { additionalProperties: false });

const SecurityGroups = Type.Optional(Type.Array(Type.Object({ id: Type.String({ format: 'uuid' }) })));
const FloatingInput = Type.Optional(Type.Object({ source: StringEnum(['new', 'existing']), existing_floating_id: Type.Optional(Type.String({ format: 'uuid' })) }, { additionalProperties: false }));
const External = Type.Object({ type: StringEnum(['external']), interface_name: Type.Optional(Type.String({ maxLength: 37 })), ip_family: Type.Optional(Nullable(StringEnum(['dual', 'ipv4', 'ipv6']))), security_groups: SecurityGroups }, { additionalProperties: false });
const SubnetIf = Type.Object({ type: StringEnum(['subnet']), network_id: Type.String({ format: 'uuid' }), subnet_id: Type.String({ format: 'uuid' }), interface_name: Type.Optional(Type.String({ maxLength: 37 })), floating_ip: FloatingInput, security_groups: SecurityGroups }, { additionalProperties: false });
const AnySubnetIf = Type.Object({ type: StringEnum(['any_subnet']), network_id: Type.String({ format: 'uuid' }), ip_address: Type.Optional(Type.String()), ip_family: Type.Optional(Nullable(StringEnum(['dual', 'ipv4', 'ipv6']))), interface_name: Type.Optional(Type.String({ maxLength: 37 })), floating_ip: FloatingInput, security_groups: SecurityGroups }, { additionalProperties: false });

export const InstanceCreateBody = Type.Object(
  {
    flavor: Type.String({ minLength: 1 }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    name_template: Type.Optional(Type.String()),
    volumes: Type.Array(Type.Union([NewVolume, ImageVolume, ExistingVolume]), { minItems: 1 }),
    interfaces: Type.Array(Type.Union([External, SubnetIf, AnySubnetIf]), { minItems: 1 }),
    ssh_key_name: Type.Optional(Nullable(Type.String())),
    password: Type.Optional(Type.String()),
    username: Type.Optional(Type.String()),
    user_data: Type.Optional(Type.String()),
    security_groups: SecurityGroups,
    servergroup_id: Type.Optional(Type.String({ format: 'uuid' })),
    allow_app_ports: Type.Optional(Type.Boolean()),
    configuration: Type.Optional(Nullable(Type.Record(Type.String(), Type.String()))),
    tags: Type.Optional(TagsInput),
  },
  { additionalProperties: false },
);

export const InstanceActionBody = Type.Object(
  { action: StringEnum(['start', 'stop', 'reboot', 'reboot_hard', 'suspend', 'resume']), activate_profile: Type.Optional(Nullable(Type.Boolean())) },
  { additionalProperties: false },
);

export const InstanceListQuery = Type.Object({
  limit: Type.Integer({ minimum: 0, maximum: 1000, default: 1000 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  name: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
});

export const FlavorSchema = Type.Object({
  flavor_id: Type.String(), flavor_name: Type.String(), vcpus: Type.Integer(), ram: Type.Integer(), architecture: Type.String(), os_type: Type.String(),
  disabled: Type.Boolean(), hardware_description: Type.Object({ ram: Type.String(), vcpus: Type.String() }),
});
