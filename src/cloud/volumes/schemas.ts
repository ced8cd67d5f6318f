import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { LIMITS, pageQuery, ResourceName, TagsInput, TagsPatch, Text, Uuid, regionalRecordFields } from '../common/schemas.js';

export const VOLUME_TYPES = ['cold', 'ssd_hiiops', 'ssd_local', 'ssd_lowlatency', 'standard', 'ultra'] as const;
/** The types a volume can be changed to, and a volume made from a snapshot for an instance can have. */
export const RETYPE_TYPES = ['ssd_hiiops', 'standard'] as const;

/** Largest volume, GiB. */
export const MAX_VOLUME_SIZE = 16_384;

export const AttachmentTag = Type.String({ pattern: '^[^,/]{1,60}$', maxLength: 60 });

export const VolumeSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    size: Type.Integer({ description: 'GiB' }),
    volume_type: Type.String(),
    status: Type.String({ description: 'creating, available, attaching, in-use, detaching, extending, retyping, reverting, deleting' }),
    bootable: Type.Boolean(),
    is_root_volume: Type.Boolean(),
    attachments: Nullable(
      Type.Array(
        Type.Object({
          attachment_id: Type.String(),
          volume_id: Type.String(),
          server_id: Nullable(Type.String()),
          instance_name: Nullable(Type.String()),
          device: Nullable(Type.String()),
          flavor_id: Nullable(Type.String()),
          attached_at: Nullable(Type.String({ format: 'date-time' })),
        }),
      ),
    ),
    snapshot_ids: Nullable(Type.Array(Type.String())),
    volume_image_metadata: Nullable(Type.Record(Type.String(), Type.String())),
    ...regionalRecordFields,
    updated_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { description: 'A block-storage volume' },
);

export const VolumeCreateBody = Type.Object({
  source: StringEnum(['new-volume', 'image', 'snapshot'], { description: 'new-volume: empty; image: from an image; snapshot: from a snapshot' }),
  name: ResourceName(),
  size: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_VOLUME_SIZE, description: "GiB; required unless the source is a snapshot (then it must equal the snapshot's)" }),
  ),
  type_name: Type.Optional(StringEnum(VOLUME_TYPES, { description: "Default: standard, or the snapshot's type" })),
  image_id: Type.Optional(Uuid({ description: 'Required when source is image' })),
  snapshot_id: Type.Optional(Uuid({ description: 'Required when source is snapshot' })),
  instance_id_to_attach_to: Type.Optional(Uuid()),
  attachment_tag: Type.Optional(AttachmentTag),
  lifecycle_policy_ids: Type.Optional(Type.Array(Type.Integer(), { maxItems: LIMITS.items })),
  tags: Type.Optional(TagsInput),
});

export const VolumeUpdateBody = Type.Object({ name: Type.Optional(ResourceName()), tags: Type.Optional(TagsPatch) });

export const AttachBody = Type.Object({ instance_id: Uuid(), attachment_tag: Type.Optional(AttachmentTag) });
export const DetachBody = Type.Object({ instance_id: Uuid() });
export const ExtendBody = Type.Object({
  size: Type.Integer({ minimum: 1, maximum: MAX_VOLUME_SIZE, description: 'New size, GiB: larger than the current one' }),
});
export const RetypeBody = Type.Object({ volume_type: StringEnum(RETYPE_TYPES) });

export const VolumeListQuery = Type.Object({
  ...pageQuery(),
  instance_id: Type.Optional(Uuid()),
  cluster_id: Type.Optional(Text(36, { description: 'Volumes of the nodes of a Kubernetes cluster' })),
  bootable: Type.Optional(Type.Boolean()),
  has_attachments: Type.Optional(Type.Boolean()),
  id_part: Type.Optional(Text(36)),
  name_part: Type.Optional(Text()),
  tag_key: Type.Optional(Type.Array(Text(255, { minLength: 1 }), { maxItems: LIMITS.tags })),
  tag_key_value: Type.Optional(Text(4096)),
});

export const VolumeDeleteQuery = Type.Object({
  snapshots: Type.Optional(Text(LIMITS.idList, { description: "Comma-separated IDs of the volume's snapshots to delete with it" })),
});
