// Schemas of file shares (NFS, standard on a network or VAST) and their access rules.
import { Type } from 'typebox';
import { CLOSED, Nullable, StringEnum } from '../../platform/schema.js';
import { IpNetwork, LIMITS, pageQuery, ResourceName, TagSchema, TagsInput, TagsPatch, Text, Uuid } from '../common/schemas.js';

export const SHARE_TYPES = ['standard', 'vast'] as const;
export type ShareType = (typeof SHARE_TYPES)[number];
/** The deprecated `volume_type` of each type. */
export const VOLUME_TYPES: Record<ShareType, string> = { standard: 'default_share_type', vast: 'vast_share_type' };
/** Largest share, in GiB (the reference states none). */
export const MAX_SHARE_SIZE = 100_000;

const Size = Type.Integer({ minimum: 1, maximum: MAX_SHARE_SIZE, description: 'GiB' });
const VastSettings = Type.Object(
  {
    root_squash: Type.Optional(Type.Boolean({ description: 'Default true: root is mapped to nobody' })),
    allowed_characters: Type.Optional(StringEnum(['LCD', 'NPL'])),
    path_length: Type.Optional(StringEnum(['LCD', 'NPL'])),
  },
  CLOSED,
);
export const AccessRuleBody = Type.Object({
  access_mode: StringEnum(['ro', 'rw']),
  ip_address: IpNetwork({ description: 'An IP address or network' }),
});

/**
 * One object for both types rather than the reference's union, so that a field a type needs or does not
 * take is refused by name (service.ts checks which): standard shares take `network` and `access`, VAST
 * ones `share_settings`. Both of the reference's forms are closed, so unknown fields are refused.
 */
export const FileShareCreateBody = Type.Object(
  {
    name: ResourceName(),
    protocol: StringEnum(['NFS']),
    size: Size,
    type_name: Type.Optional(StringEnum(SHARE_TYPES, { description: 'Default standard' })),
    volume_type: Type.Optional(StringEnum(['default_share_type', 'vast_share_type'], { description: 'Deprecated: type_name' })),
    network: Type.Optional(Type.Object({ network_id: Uuid(), subnet_id: Type.Optional(Uuid({ description: "Default: the network's first subnet" })) })),
    access: Type.Optional(Type.Array(AccessRuleBody, { maxItems: LIMITS.items })),
    share_settings: Type.Optional(VastSettings),
    tags: Type.Optional(TagsInput),
  },
  CLOSED,
);

export const FileShareUpdateBody = Type.Object({
  name: Type.Optional(ResourceName()),
  share_settings: Type.Optional(VastSettings),
  tags: Type.Optional(TagsPatch),
});
export const ExtendBody = Type.Object({ size: Size });
export const CheckLimitsBody = Type.Object({ size: Size });
const QuotaFields = ['sfs_count', 'sfs_size'].flatMap((q) => ['limit', 'requested', 'usage'].map((f) => [`${q}_${f}`, Type.Optional(Type.Integer())]));
export const ShareQuotaSchema = Type.Object(Object.fromEntries(QuotaFields), { description: 'The quotas a share would exceed; empty when it fits' });
export const FileShareListQuery = Type.Object({ ...pageQuery(), name: Type.Optional(Text()), type_name: Type.Optional(StringEnum(SHARE_TYPES)) });

const STATUSES = ['available', 'creating', 'deleting', 'extending', 'error'] as const;
export const FileShareSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    protocol: Type.String(),
    size: Type.Integer({ minimum: 1 }),
    status: StringEnum(STATUSES),
    type_name: StringEnum(SHARE_TYPES),
    volume_type: StringEnum(['default_share_type', 'vast_share_type']),
    connection_point: Nullable(Type.String({ description: 'What NFS clients mount, once the share is available' })),
    network_id: Type.String({ format: 'uuid' }),
    network_name: Type.String(),
    subnet_id: Type.String({ format: 'uuid' }),
    subnet_name: Type.String(),
    share_network_name: Nullable(Type.String()),
    share_settings: Type.Union([
      Type.Object({ type_name: Type.Literal('standard') }),
      Type.Object({
        type_name: Type.Literal('vast'),
        root_squash: Type.Boolean(),
        allowed_characters: Nullable(StringEnum(['LCD', 'NPL'])),
        path_length: Nullable(StringEnum(['LCD', 'NPL'])),
      }),
    ]),
    tags: Type.Array(TagSchema),
    project_id: Type.Integer(),
    region_id: Type.Integer(),
    region: Type.String(),
    creator_task_id: Type.String(),
    task_id: Nullable(Type.String()),
    created_at: Type.String(),
  },
  { description: 'An NFS file share' },
);

export const AccessRuleSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  access_level: StringEnum(['ro', 'rw']),
  access_to: Type.String(),
  state: StringEnum(['active', 'applying', 'denying', 'error', 'new', 'queued_to_apply', 'queued_to_deny']),
});
export const AccessRuleList = Type.Object({ count: Type.Integer({ minimum: 0 }), results: Type.Array(AccessRuleSchema) });
