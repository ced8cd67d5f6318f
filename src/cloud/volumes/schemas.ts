import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { TagsInput, regionalRecordFields } from '../common/schemas.js';

const VOLUME_TYPES = ['cold', 'ssd_hiiops', 'ssd_local', 'ssd_lowlatency', 'standard', 'ultra'] as const;

export const VolumeSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    size: Type.Integer({ description: 'GiB' }),
    volume_type: Type.String(),
    status: Type.String({ description: 'creating, available, attaching, in-use, deleting...' }),
    bootable: Type.Boolean(),
    is_root_volume: Type.Boolean(),
    attachments: Nullable(Type.Array(Type.Object({ attachment_id: Type.String(), volume_id: Type.String(), server_id: Nullable(Type.String()), instance_name: Nullable(Type.String()), device: Nullable(Type.String()), attached_at: Nullable(Type.String({ format: 'date-time' })) }))),
    ...regionalRecordFields,
    updated_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { description: 'A block-storage volume' },
);

export const VolumeCreateBody = Type.Object(
  {
    source: StringEnum(['new-volume', 'image'], { description: 'new-volume: empty; image: from an image' }),
    name: Type.String({ minLength: 1, maxLength: 255 }),
    size: Type.Integer({ minimum: 1, maximum: 16384 }),
    type_name: StringEnum(VOLUME_TYPES, { default: 'standard' }),
    image_id: Type.Optional(Type.String({ format: 'uuid' })),
    instance_id_to_attach_to: Type.Optional(Type.String({ format: 'uuid' })),
    attachment_tag: Type.Optional(Type.String()),
    lifecycle_policy_ids: Type.Optional(Type.Array(Type.Integer())),
    tags: Type.Optional(TagsInput),
  },
  { additionalProperties: false },
);

export const AttachBody = Type.Object({ instance_id: Type.String({ format: 'uuid' }), attachment_tag: Type.Optional(Type.String()) }, { additionalProperties: false });
export const DetachBody = Type.Object({ instance_id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });

export const VolumeListQuery = Type.Object({
  limit: Type.Integer({ minimum: 0, maximum: 1000, default: 1000 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  instance_id: Type.Optional(Type.String({ format: 'uuid' })),
});
