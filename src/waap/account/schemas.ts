import { Type, type Static } from 'typebox';

const Quota = Type.Object({ allowed: Type.Integer(), current: Type.Integer() });

export const ClientInfo = Type.Object({
  id: Type.Integer({ description: 'The client ID' }),
  service: Type.Object({ enabled: Type.Boolean() }),
  features: Type.Array(Type.String(), { description: 'Enabled features' }),
  quotas: Type.Record(Type.String(), Quota, { description: 'Quota name to allowed and current use' }),
});
export type ClientInfo = Static<typeof ClientInfo>;

/** Control API: the service settings of one client. */
export const ClientSettings = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    features: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { uniqueItems: true })),
    domain_quota: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000 })),
  },
  { additionalProperties: false },
);
export type ClientSettings = Static<typeof ClientSettings>;

export const ClientParams = Type.Object({ client_id: Type.Integer({ exclusiveMinimum: 0 }) });
