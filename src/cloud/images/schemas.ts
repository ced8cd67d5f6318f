import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { LIMITS, pageQuery, ResourceName, TagSchema, TagsInput, TagsPatch, Text, Uuid } from '../common/schemas.js';

const ARCHITECTURES = ['aarch64', 'x86_64'] as const;
const FIRMWARE = ['bios', 'uefi'] as const;
const MACHINE = ['i440', 'q35'] as const;
const OS_TYPES = ['linux', 'windows'] as const;
const SSH_KEY = ['allow', 'deny', 'required'] as const;

export const ImageSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Nullable(Type.String()),
    status: Type.String({ description: 'queued, saving, active, deleting' }),
    visibility: Type.String({ description: "public: the provider's catalogue; private: the project's own" }),
    architecture: StringEnum(ARCHITECTURES),
    os_type: StringEnum(OS_TYPES),
    os_distro: Type.String(),
    os_version: Type.String(),
    min_disk: Type.Integer({ description: 'Smallest boot volume, GiB' }),
    min_ram: Type.Integer({ description: 'Smallest RAM of the flavor, MiB' }),
    size: Nullable(Type.Integer({ description: 'Bytes' })),
    disk_format: Type.String(),
    hw_firmware_type: Nullable(StringEnum(FIRMWARE)),
    hw_machine_type: Nullable(StringEnum(MACHINE)),
    is_baremetal: Type.Boolean(),
    ssh_key: Nullable(StringEnum(SSH_KEY)),
    gpu_driver: Nullable(Type.String()),
    gpu_driver_type: Nullable(Type.String()),
    gpu_driver_version: Nullable(Type.String()),
    display_order: Nullable(Type.Integer()),
    currency_code: Nullable(Type.String()),
    price_per_hour: Nullable(Type.Number()),
    price_per_month: Nullable(Type.Number()),
    price_status: Nullable(StringEnum(['error', 'hide', 'show'])),
    tags_v2: Type.Array(TagSchema),
    project_id: Type.Integer(),
    region_id: Type.Integer(),
    region: Type.String(),
    creator_task_id: Nullable(Type.String()),
    task_id: Nullable(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { description: 'An image volumes and instances boot from' },
);

export const ImageListQuery = Type.Object({
  ...pageQuery(),
  architecture: Type.Optional(StringEnum(ARCHITECTURES)),
  name: Type.Optional(Text(LIMITS.text, { description: 'Case-insensitive part of the name' })),
  os_distro: Type.Optional(Text(LIMITS.text)),
  os_version: Type.Optional(Text(LIMITS.text)),
  private: Type.Optional(Text(LIMITS.text, { description: 'Any value: private images only' })),
  visibility: Type.Optional(StringEnum(['private', 'public', 'shared'])),
  include_prices: Type.Optional(Type.Boolean()),
  tag_key: Type.Optional(Type.Array(Text(255, { minLength: 1 }), { maxItems: LIMITS.tags })),
  tag_key_value: Type.Optional(Text(4096, { description: 'JSON object of tags every result has, e.g. {"env": "prod"}' })),
});

const imageFields = {
  name: ResourceName(),
  architecture: Type.Optional(StringEnum(ARCHITECTURES, { default: 'x86_64' })),
  os_type: Type.Optional(StringEnum(OS_TYPES, { default: 'linux' })),
  hw_firmware_type: Type.Optional(Nullable(StringEnum(FIRMWARE))),
  hw_machine_type: Type.Optional(Nullable(StringEnum(MACHINE))),
  is_baremetal: Type.Optional(Type.Boolean({ default: false })),
  ssh_key: Type.Optional(StringEnum(SSH_KEY, { default: 'allow' })),
  tags: Type.Optional(TagsInput),
};

export const ImageFromVolumeBody = Type.Object({
  ...imageFields,
  source: Type.Optional(StringEnum(['volume'], { default: 'volume' })),
  volume_id: Uuid({ description: 'A bootable volume of the project and region' }),
});

export const ImageUploadBody = Type.Object({
  ...imageFields,
  url: Type.String({ format: 'uri', minLength: 1, maxLength: LIMITS.url, description: 'http(s) URL of the image file' }),
  cow_format: Type.Optional(Type.Boolean({ default: false, description: 'When true, the image cannot be deleted while volumes made from it exist' })),
  os_distro: Type.Optional(Nullable(Text())),
  os_version: Type.Optional(Nullable(Text())),
});

export const ImageUpdateBody = Type.Object({
  name: Type.Optional(ResourceName()),
  hw_firmware_type: Type.Optional(StringEnum(FIRMWARE)),
  hw_machine_type: Type.Optional(StringEnum(MACHINE)),
  is_baremetal: Type.Optional(Nullable(Type.Boolean())),
  os_type: Type.Optional(StringEnum(OS_TYPES)),
  ssh_key: Type.Optional(StringEnum(SSH_KEY)),
  tags: Type.Optional(TagsPatch),
});

export const ImageGetQuery = Type.Object({ include_prices: Type.Optional(Type.Boolean({ default: false })) });
