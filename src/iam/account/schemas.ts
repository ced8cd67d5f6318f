// The account record of GET /iam/clients/me, field for field as the official clients read it.
import { Type, type Static } from 'typebox';
import { GROUP_NAMES } from '../../platform/auth/principal.js';
import { Nullable, StringEnum } from '../../platform/schema.js';

export const SERVICES = ['CDN', 'STORAGE', 'STREAMING', 'DNS', 'DDOS', 'CLOUD'] as const;
export const CLIENT_STATUSES = ['new', 'trial', 'trialend', 'active', 'integration', 'paused', 'preparation', 'ready'] as const;
export const SERVICE_STATUSES = ['new', 'trial', 'trialend', 'active', 'paused', 'activating', 'deleted'] as const;
export const LANGUAGES = ['de', 'en', 'ru', 'zh', 'az'] as const;
export const AUTH_TYPES = ['password', 'sso', 'github', 'google-oauth2'] as const;

export const GroupSchema = Type.Object(
  { id: Type.Integer({ description: 'Group ID: 1 Administrators, 2 Users, 5 Engineers, 3009 and 3022 purge-only' }), name: StringEnum(GROUP_NAMES) },
  { description: "A user's group (role) in the account" },
);

export const UserSchema = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  name: Nullable(Type.String()),
  lang: StringEnum(LANGUAGES),
  phone: Nullable(Type.String()),
  company: Type.String(),
  reseller: Type.Integer({ description: 'ID of the reseller serving the account, 0 if none' }),
  client: Type.Number({ description: "The user's account ID" }),
  deleted: Type.Boolean(),
  groups: Type.Array(GroupSchema),
  activated: Type.Boolean(),
  sso_auth: Type.Boolean(),
  two_fa: Type.Boolean(),
  auth_types: Type.Array(StringEnum(AUTH_TYPES)),
});
export type User = Static<typeof UserSchema>;

const featureFields = { create_date: Type.String(), feature_id: Type.Integer(), name: Type.String(), service: StringEnum(SERVICES) };
// Each list has its own id field, as the reference declares them.
const PaidFeatureSchema = Type.Object({ ...featureFields, paid_feature_id: Type.Optional(Type.Integer()) });
const FreeFeatureSchema = Type.Object({ ...featureFields, free_feature_id: Type.Optional(Type.Integer()) });

const perService = <T extends Parameters<typeof Type.Object>[0][string]>(schema: T) =>
  Type.Object(Object.fromEntries(SERVICES.map((s) => [s, schema])) as Record<(typeof SERVICES)[number], T>);

const ServiceStatusSchema = Type.Object({ status: StringEnum(SERVICE_STATUSES), enabled: Type.Boolean() });

export const AccountSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Account (client) ID' }),
    users: Type.Array(UserSchema),
    email: Type.String(),
    phone: Nullable(Type.String()),
    name: Nullable(Type.String()),
    status: StringEnum(CLIENT_STATUSES),
    companyName: Type.String(),
    website: Type.String(),
    currentUser: Type.Integer({ description: 'ID of the user the token belongs to' }),
    capabilities: Type.Array(StringEnum(SERVICES)),
    serviceStatuses: perService(ServiceStatusSchema),
    paidFeatures: perService(Type.Array(PaidFeatureSchema)),
    freeFeatures: perService(Type.Array(FreeFeatureSchema)),
    entryBaseDomain: Nullable(Type.String()),
    signup_process: Nullable(StringEnum(['sign_up_full', 'sign_up_simple'])),
    deleted: Type.Boolean(),
    bill_type: Type.String(),
    custom_id: Nullable(Type.String()),
    country_code: Type.String(),
    is_test: Type.Boolean(),
    has_active_admin: Type.Boolean(),
  },
  { description: 'Account details' },
);
export type Account = Static<typeof AccountSchema>;
