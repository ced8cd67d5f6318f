// IAM users: the full user record of /iam/users, the list query and the editable fields (PutUser).
import { Type, type Static } from 'typebox';
import { GROUP_NAMES } from '../../platform/auth/principal.js';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { AUTH_TYPES, LANGUAGES, UserSchema } from '../account/schemas.js';

export const USER_TYPES = ['common', 'reseller', 'seller'] as const;

const ClientAndRolesSchema = Type.Object({
  client_id: Type.Integer(),
  client_company_name: Type.String(),
  user_id: Type.Integer(),
  user_roles: Type.Array(Type.String({ description: 'Group ID as text' })),
});

const userDetailFields = {
  ...UserSchema.properties,
  user_type: StringEnum(USER_TYPES),
  is_active: Type.Boolean({ description: 'Activated and not deleted' }),
};
/** One user as its GET answers it: the reference declares `client_and_roles` in the list and the update only. */
export const UserDetailSchema = Type.Object(userDetailFields, { description: 'A user of the account' });
export const FullUserSchema = Type.Object(
  {
    ...userDetailFields,
    client_and_roles: Type.Array(ClientAndRolesSchema, { description: 'Accounts the user can access and its groups there' }),
  },
  { description: 'A user of the account' },
);
export type FullUser = Static<typeof FullUserSchema>;

export const UserPageSchema = Type.Object(
  {
    count: Type.Integer({ minimum: 0, description: 'Total number of users' }),
    next: Type.Optional(Type.String({ description: 'Path of the next page, when there is one' })),
    previous: Type.Optional(Type.String({ description: 'Path of the previous page, when there is one' })),
    results: Type.Array(FullUserSchema),
  },
  { description: 'Users of the account' },
);
export type UserPage = Static<typeof UserPageSchema>;

export const UserListQuerySchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 0, description: 'Page size; without it every user is returned (the reference sets no maximum)' })),
  offset: Type.Integer({ minimum: 0, default: 0, description: 'Number of users to skip' }),
});
export type UserListQuery = Static<typeof UserListQuerySchema>;

export const UserParamsSchema = Type.Object({ userId: Type.Integer({ minimum: 1 }) });

const GroupRefSchema = Type.Object(
  { id: Type.Optional(Type.Integer()), name: Type.Optional(StringEnum(GROUP_NAMES)) },
  { additionalProperties: false, description: 'A group by id, by name, or both' },
);

/** Editable fields. Read-only fields of the user record (id, client, deleted, ...) are refused as extra fields. */
export const UserPatchSchema = Type.Object(
  {
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    lang: Type.Optional(StringEnum(LANGUAGES)),
    phone: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
    // The official Python client always sends this system field; it is accepted and does not change.
    auth_types: Type.Optional(Type.Array(StringEnum(AUTH_TYPES), { uniqueItems: true, description: 'System field: accepted, not changed' })),
    groups: Type.Optional(Type.Array(GroupRefSchema, { minItems: 1, maxItems: 1, description: "The user's group; changing it needs an administrator" })),
  },
  { additionalProperties: false },
);
export type UserPatch = Static<typeof UserPatchSchema>;
