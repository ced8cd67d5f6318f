// Request and response schemas of origin groups. Two forms, as the reference has them: sources (host,
// S3 or FastEdge origins; auth_type "none"), or the deprecated group-wide S3 credentials (auth_type
// "awsSignatureV4" with `auth`). Bodies are open: unknown fields are ignored. Which fields a source needs
// depends on its origin_type, so those requirements are checked by the service with clear messages.
import { type Static, Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { ListOf, PageQuery } from '../http.js';
import { MAX_LENGTH, QUOTAS } from '../limits.js';

export const NEXT_UPSTREAM_CASES = [
  'error',
  'timeout',
  'invalid_header',
  'http_403',
  'http_404',
  'http_429',
  'http_500',
  'http_502',
  'http_503',
  'http_504',
] as const;
export const AUTH_TYPES = ['none', 'awsSignatureV4'] as const;
export const ORIGIN_TYPES = ['host', 's3', 'fastedge'] as const;
export const S3_TYPES = ['amazon', 'other'] as const;

const Name = Type.String({ maxLength: MAX_LENGTH.name, description: 'Origin group name, unique in the account' });
const UseNext = Type.Boolean({ description: 'Try the next origin on the proxy_next_upstream cases' });
const NextUpstream = Type.Array(StringEnum(NEXT_UPSTREAM_CASES), {
  uniqueItems: true,
  maxItems: NEXT_UPSTREAM_CASES.length,
  description: 'When to try the next origin',
});
const Backup = Type.Boolean({ description: 'A backup origin is used only when the active ones fail' });
const Enabled = Type.Boolean({ description: 'A disabled origin is not used' });
const HostHeaderOverride = Nullable(Type.String({ maxLength: 255 }), { description: 'Host header sent to this origin instead of the default' });

const ConfigInput = Type.Object(
  {
    s3_type: Type.Optional(StringEnum(S3_TYPES)),
    s3_bucket_name: Type.Optional(Type.String({ maxLength: 256 })),
    s3_region: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
    s3_storage_hostname: Type.Optional(Nullable(Type.String({ maxLength: MAX_LENGTH.hostname }))),
    s3_access_key_id: Type.Optional(Type.String({ maxLength: 255 })),
    s3_secret_access_key: Type.Optional(Type.String({ maxLength: 255 })),
    s3_auth_type: Type.Optional(Type.String({ maxLength: 64 })),
    app_id: Type.Optional(Type.String({ maxLength: MAX_LENGTH.short })),
  },
  { description: 'S3 storage (origin_type s3) or FastEdge application (origin_type fastedge)' },
);

const SourceInput = Type.Object({
  source: Type.Optional(
    Type.String({ maxLength: MAX_LENGTH.hostname, description: 'Host name or public IP address of a host origin, with ":port" if needed' }),
  ),
  origin_type: Type.Optional(StringEnum(ORIGIN_TYPES)),
  config: Type.Optional(ConfigInput),
  backup: Type.Optional(Backup),
  enabled: Type.Optional(Enabled),
  host_header_override: Type.Optional(HostHeaderOverride),
});

const AuthInput = Type.Object(
  {
    s3_type: Type.Optional(StringEnum(S3_TYPES)),
    s3_access_key_id: Type.Optional(Type.String({ maxLength: 512 })),
    s3_secret_access_key: Type.Optional(Type.String({ maxLength: 255 })),
    s3_bucket_name: Type.Optional(Type.String({ maxLength: 256 })),
    s3_storage_hostname: Type.Optional(Type.String({ maxLength: MAX_LENGTH.hostname })),
    s3_region: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { description: 'Deprecated: S3 credentials for the whole group (auth_type awsSignatureV4)' },
);

const fields = {
  name: Name,
  use_next: UseNext,
  proxy_next_upstream: NextUpstream,
  auth_type: StringEnum(AUTH_TYPES, { description: 'none (sources), or the deprecated awsSignatureV4 (auth)' }),
  auth: Nullable(AuthInput),
  sources: Type.Array(SourceInput, { maxItems: QUOTAS.sourcesPerGroup, description: `Origins, at most ${QUOTAS.sourcesPerGroup}` }),
  path: Type.String({ maxLength: 255, description: 'Deprecated origin path prefix' }),
};

export const OriginGroupCreate = Type.Object({ ...Type.Partial(Type.Object(fields)).properties, name: Name });
export const OriginGroupReplace = Type.Object({ ...Type.Partial(Type.Object(fields)).properties, name: Name, use_next: UseNext });
export const OriginGroupPatch = Type.Partial(Type.Object(fields));
export type OriginGroupInput = Static<typeof OriginGroupPatch>;
export type SourceInputValue = Static<typeof SourceInput>;
export type AuthInputValue = Static<typeof AuthInput>;

const HostSourceOut = Type.Object(
  { source: Type.String(), backup: Backup, enabled: Enabled, host_header_override: HostHeaderOverride },
  { additionalProperties: false, description: 'A host origin' },
);
const S3ConfigOut = Type.Object({
  s3_type: StringEnum(S3_TYPES),
  s3_bucket_name: Type.String(),
  s3_region: Type.Optional(Nullable(Type.String())),
  s3_storage_hostname: Type.Optional(Nullable(Type.String())),
  s3_access_key_id: Type.String({ description: 'Masked: SECRET_VALUE' }),
  s3_secret_access_key: Type.String({ description: 'Masked: SECRET_VALUE' }),
  s3_auth_type: Type.String(),
});
const S3SourceOut = Type.Object(
  { origin_type: StringEnum(ORIGIN_TYPES), config: S3ConfigOut, backup: Backup, enabled: Enabled, host_header_override: HostHeaderOverride },
  { additionalProperties: false, description: 'An S3 origin' },
);
const FastedgeSourceOut = Type.Object(
  {
    origin_type: StringEnum(ORIGIN_TYPES),
    config: Type.Object({ app_id: Type.String() }),
    backup: Backup,
    enabled: Enabled,
    host_header_override: HostHeaderOverride,
  },
  { additionalProperties: false, description: 'A FastEdge application origin' },
);

export const OriginGroupSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Origin group ID' }),
    name: Type.String(),
    use_next: UseNext,
    proxy_next_upstream: Type.Array(Type.String()),
    auth_type: Type.String({ description: 'none or awsSignatureV4' }),
    sources: Type.Optional(Type.Array(Type.Union([HostSourceOut, S3SourceOut, FastedgeSourceOut]))),
    auth: Type.Optional(
      Type.Object({
        s3_type: Type.String(),
        s3_access_key_id: Type.String({ description: 'Masked: SECRET_VALUE' }),
        s3_secret_access_key: Type.String({ description: 'Masked: SECRET_VALUE' }),
        s3_bucket_name: Type.String(),
        s3_storage_hostname: Type.Optional(Type.String()),
        s3_region: Type.Optional(Type.String()),
      }),
    ),
    path: Type.String(),
    has_related_resources: Type.Boolean({ description: 'Whether a CDN resource uses the group' }),
  },
  { description: 'Origin group: sources, or (deprecated) group-wide S3 credentials' },
);
export type OriginGroup = Static<typeof OriginGroupSchema>;

export const OriginGroupParams = Type.Object({ origin_group_id: Type.Integer({ description: 'Origin group ID' }) });

export const OriginGroupListQuery = Type.Object({
  name: Type.Optional(Type.String({ maxLength: MAX_LENGTH.name, description: 'Groups with exactly this name' })),
  sources: Type.Optional(Type.String({ maxLength: MAX_LENGTH.hostname, description: 'Groups with a host source equal to this one' })),
  has_related_resources: Type.Optional(Type.Boolean({ description: 'Groups used (true) or not used (false) by a CDN resource' })),
  ...PageQuery,
});

export const OriginGroupList = ListOf(OriginGroupSchema, 'Origin groups: an array, or a page when limit is given');
