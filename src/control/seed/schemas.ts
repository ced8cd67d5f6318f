import { Type, type Static } from 'typebox';
import { GROUP_NAMES } from '../../platform/auth/principal.js';
import { StringEnum } from '../../platform/schema.js';

const REF = Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_-]{0,62}$', description: 'Name other entries use to refer to this one' });

export const SeedTokenSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    role: Type.Optional(StringEnum(GROUP_NAMES, { default: 'Administrators' })),
    token: Type.Optional(
      Type.String({ minLength: 8, maxLength: 512, description: 'Exact secret to use (otherwise generated; derived from the seed number when one is given)' }),
    ),
    kind: Type.Optional(StringEnum(['client', 'reseller'] as const, { description: 'reseller: an admin-portal token (the client must be a reseller)' })),
    expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

export const SeedClientSchema = Type.Object(
  {
    ref: Type.Optional(REF),
    email: Type.String({ minLength: 3, maxLength: 254 }),
    companyName: Type.String({ minLength: 1, maxLength: 200 }),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    reseller: Type.Optional(Type.Boolean({ description: 'The account is a reseller' })),
    resellerRef: Type.Optional(Type.String({ description: 'ref of the reseller this client belongs to (declared earlier)' })),
    tokens: Type.Optional(Type.Array(SeedTokenSchema)),
  },
  { additionalProperties: false },
);

export const SeedRequestSchema = Type.Object(
  {
    method: StringEnum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const),
    path: Type.String({ pattern: '^/', description: 'May use {{ref.clientId}}, {{ref.userId}}, {{ref.token}}, {{ref.tokens.NAME}}' }),
    query: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]))),
    body: Type.Optional(Type.Unknown({ description: 'JSON body; the same placeholders apply inside strings' })),
    contentType: Type.Optional(Type.String({ description: 'Send `body` (then a string, e.g. NDJSON lines) as-is with this content type' })),
    as: Type.Optional(Type.String({ description: 'ref of a seeded client whose first token sends the request; the operator token by default' })),
    expect: Type.Optional(Type.Integer({ minimum: 100, maximum: 599, description: 'Expected status (default: any 2xx)' })),
  },
  { additionalProperties: false },
);

export const SeedSchema = Type.Object(
  {
    seed: Type.Optional(Type.Integer({ minimum: 0, description: 'Makes generated secrets repeatable: the same file gives the same tokens' })),
    clients: Type.Optional(Type.Array(SeedClientSchema)),
    requests: Type.Optional(
      Type.Array(SeedRequestSchema, { description: 'Calls made in order after the clients exist (product data: WAAP, DDoS, edge, CDN, quotas)' }),
    ),
  },
  { additionalProperties: false },
);
export type Seed = Static<typeof SeedSchema>;

export const SeedResultSchema = Type.Object({
  clients: Type.Array(
    Type.Object({
      ref: Type.String(),
      clientId: Type.Integer(),
      userId: Type.Integer(),
      email: Type.String(),
      tokens: Type.Array(Type.Object({ name: Type.String(), id: Type.Integer(), token: Type.String() })),
    }),
  ),
  requests: Type.Array(Type.Object({ method: Type.String(), path: Type.String(), status: Type.Integer(), body: Type.Unknown() })),
});
export type SeedResult = Static<typeof SeedResultSchema>;
