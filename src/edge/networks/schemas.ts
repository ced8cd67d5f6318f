// Edge-function networks: the reseller's admin view, the client's FastEdge overview, and control-API input.
import { Type, type Static } from 'typebox';

export const NETWORK_NAME_PATTERN = '^[a-z0-9][a-z0-9_-]*[a-z0-9]$';

export const NetworkSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64, pattern: NETWORK_NAME_PATTERN, description: 'Network name' }),
    is_default: Type.Boolean({ description: 'Whether apps run on this network unless told otherwise' }),
  },
  { additionalProperties: false },
);
export type Network = Static<typeof NetworkSchema>;

export const NetworkListSchema = Type.Object({ networks: Type.Array(NetworkSchema) }, { description: 'Networks available to the client' });
export type NetworkList = Static<typeof NetworkListSchema>;

export const AdminNetworksQuerySchema = Type.Object({
  client_id: Type.Integer({ minimum: 1, description: "ID of the client (one of the reseller's sub-clients) whose networks are listed" }),
});
export type AdminNetworksQuery = Static<typeof AdminNetworksQuerySchema>;

export const FastedgeClientSchema = Type.Object(
  {
    status: Type.Integer({ minimum: 1, maximum: 5, description: '1 enabled, 2 disabled, 5 suspended' }),
    hourly_consumption: Type.Integer({ description: 'Calls of all apps this hour' }),
    daily_consumption: Type.Integer({ description: 'Calls of all apps today (UTC)' }),
    monthly_consumption: Type.Integer({ description: 'Calls of all apps this calendar month (UTC)' }),
    app_count: Type.Integer({ description: 'Number of apps' }),
    networks: Type.Array(NetworkSchema),
    plan_id: Type.Integer(),
    plan: Type.String(),
  },
  { description: "The client's FastEdge status, usage and networks" },
);
export type FastedgeClient = Static<typeof FastedgeClientSchema>;

export const ClientParamsSchema = Type.Object({ client_id: Type.Integer({ minimum: 1 }) });
export const NetworkParamsSchema = Type.Object({ client_id: Type.Integer({ minimum: 1 }), name: Type.String({ minLength: 1, maxLength: 64 }) });

export const NetworkReplaceSchema = Type.Object(
  { networks: Type.Array(NetworkSchema, { minItems: 1, maxItems: 100 }) },
  { additionalProperties: false, description: 'The complete set; exactly one network is the default' },
);
export type NetworkReplace = Static<typeof NetworkReplaceSchema>;

export const NetworkAddSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64, pattern: NETWORK_NAME_PATTERN }),
    is_default: Type.Boolean({ default: false, description: 'true moves the default to this network' }),
  },
  { additionalProperties: false },
);
export type NetworkAdd = Static<typeof NetworkAddSchema>;
