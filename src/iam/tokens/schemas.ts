// API tokens as the IAM API shows them (v1 and v2 paths share the record).
import { Type, type Static } from 'typebox';
import { GROUP_NAMES } from '../../platform/auth/principal.js';
import { Nullable, StringEnum } from '../../platform/schema.js';

const RoleSchema = Type.Object(
  {
    id: Type.Optional(Type.Integer({ description: 'Group ID (1, 2, 5, 3009, 3022)' })),
    name: Type.Optional(StringEnum(GROUP_NAMES)),
  },
  { additionalProperties: false, description: 'Role of the token: give its id, its name, or both' },
);

export const TokenCreateSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    exp_date: Nullable(Type.String({ format: 'date-time', description: 'ISO 8601 expiry in UTC; null never expires' })),
    client_user: Type.Object({ role: RoleSchema }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);
export type TokenCreate = Static<typeof TokenCreateSchema>;

export const TokenSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.Optional(Type.String({ description: 'Absent when the token has none' })),
  exp_date: Nullable(Type.String()),
  expired: Type.Boolean(),
  deleted: Type.Boolean(),
  created: Type.String(),
  last_usage: Type.String({ description: 'Last use of the token (its creation time if never used)' }),
  client_user: Type.Object({
    client_id: Type.Integer(),
    user_id: Type.Integer(),
    user_name: Type.String(),
    user_email: Type.String(),
    deleted: Type.Boolean(),
    role: Type.Object({ id: Type.Integer(), name: StringEnum(GROUP_NAMES) }),
  }),
});
export type Token = Static<typeof TokenSchema>;

export const TokenCreatedSchema = Type.Object({ ...TokenSchema.properties, token: Type.String({ description: 'The secret, shown only this once' }) });
export type TokenCreated = Static<typeof TokenCreatedSchema>;

export const TokenListQuerySchema = Type.Object({
  deleted: Type.Optional(Type.Boolean({ description: 'true: only deleted tokens; false: only live ones' })),
  issued_by: Type.Optional(Type.Integer({ description: 'Only tokens of this user' })),
  not_issued_by: Type.Optional(Type.Integer({ description: 'Tokens of everyone but this user' })),
  role: Type.Optional(Type.String({ description: 'Role name or group ID' })),
});
export type TokenListQuery = Static<typeof TokenListQuerySchema>;

export const ClientParamsSchema = Type.Object({ clientId: Type.Integer({ minimum: 1 }) });
export const TokenParamsSchema = Type.Object({ clientId: Type.Integer({ minimum: 1 }), tokenId: Type.Integer({ minimum: 1 }) });
